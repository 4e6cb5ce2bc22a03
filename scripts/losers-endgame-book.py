#!/usr/bin/env python3
"""Write a book of Losers Chess endgames for `[selfplay] branch_book`.

Why: the shipped losers bot draws won endgames by shuffling (issue #21,
docs/experiments.md, sessions 18-20): one side has its king and a few
pieces, the other a king and one or two pawns, and the winner must feed
its pieces to the enemy king (a capture is compulsory, docs/rules.md §1).
Self-play from the start seldom reaches such material, so the network
never learns the plan. This book holds random positions of that kind;
self-play from them decides who wins.

Each position: one side (White or Black at random) has its king and 1-4
pieces from Q R R B N P, the other its king and 1-2 pawns or one minor
piece; the side to move is random. Refused and drawn again: pawns on the
first or last rank, kings side by side, the side not to move in check,
and positions where the side to move has no legal move (mate or
stalemate: the loader refuses finished positions). Legality is checked
with python-chess's standard-chess rules, which agree with Losers Chess on
all of these (the capture obligation only narrows the legal moves).

With --won-by ENGINE only positions a UCI engine that plays `losers`
(Fairy-Stockfish) scores as a forced win for the side to move in
--min-mate to --max-mate moves, in --movetime ms, are written: a test set of won
endgames for measuring conversion (`lokizero match --openings`). The
engine's built-in losers gives a stalemate to the stalemated side where
docs/rules.md §1 calls it a draw, so a rare "win" may be a draw here.

Usage: scripts/losers-endgame-book.py [--positions N] [--seed S]
       [--won-by /usr/games/fairy-stockfish] > book.txt
Needs python-chess (`pip install chess`).
"""

import argparse
import random
import subprocess
import sys

import chess

STRONG = "QRRBNP"
WEAK = ["P", "PP", "N", "B"]


def random_position(rng: random.Random) -> chess.Board | None:
    """One candidate position, or None when it breaks a rule above."""
    strong_white = rng.random() < 0.5
    strong = rng.sample(STRONG, rng.randint(1, 4))
    weak = list(rng.choice(WEAK))
    board = chess.Board(None)
    squares = rng.sample(chess.SQUARES, 2 + len(strong) + len(weak))
    kings = squares[:2]
    if chess.square_distance(*kings) < 2:
        return None
    board.set_piece_at(kings[0], chess.Piece(chess.KING, chess.WHITE))
    board.set_piece_at(kings[1], chess.Piece(chess.KING, chess.BLACK))
    rest = squares[2:]
    for symbol, colour in [(s, strong_white) for s in strong] + [
        (s, not strong_white) for s in weak
    ]:
        square = rest.pop()
        piece = chess.Piece.from_symbol(symbol)
        if piece.piece_type == chess.PAWN and chess.square_rank(square) in (0, 7):
            return None
        board.set_piece_at(square, chess.Piece(piece.piece_type, colour))
    board.turn = rng.random() < 0.5
    if board.was_into_check() or not any(board.legal_moves):
        return None
    return board


class Engine:
    """A UCI engine playing losers, asked for the score of one position."""

    def __init__(self, path: str, movetime: int):
        self.proc = subprocess.Popen(
            [path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        self.movetime = movetime
        self.send("uci\nsetoption name UCI_Variant value losers\nisready")
        self.wait("readyok")

    def send(self, text: str) -> None:
        self.proc.stdin.write(text + "\n")
        self.proc.stdin.flush()

    def wait(self, prefix: str) -> list[str]:
        lines = []
        for line in self.proc.stdout:
            lines.append(line.strip())
            if line.startswith(prefix):
                return lines
        raise RuntimeError("the engine stopped")

    def mate_in(self, fen: str) -> int | None:
        """Moves to mate for the side to move by the last info line, if a win."""
        self.send(f"position fen {fen}\ngo movetime {self.movetime}")
        score = None
        for line in self.wait("bestmove"):
            words = line.split()
            if "score" in words:
                kind, value = words[words.index("score") + 1 : words.index("score") + 3]
                score = int(value) if kind == "mate" else None
        return score if score is not None and score > 0 else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=4096, help="positions to write (default 4096)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--won-by", help="UCI engine that plays losers: keep only its forced wins")
    parser.add_argument("--min-mate", type=int, default=2, help="shortest forced win kept, in moves (default 2)")
    parser.add_argument("--max-mate", type=int, default=12, help="longest forced win kept, in moves (default 12)")
    parser.add_argument("--movetime", type=int, default=200, help="engine time per position in ms (default 200)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    engine = Engine(args.won_by, args.movetime) if args.won_by else None
    print(f"# losers endgames: scripts/losers-endgame-book.py {' '.join(sys.argv[1:])}")
    written = 0
    while written < args.positions:
        board = random_position(rng)
        if board is None:
            continue
        if engine is not None:
            mate = engine.mate_in(board.fen())
            if mate is None or not args.min_mate <= mate <= args.max_mate:
                continue
        print(board.fen(), flush=True)
        written += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
