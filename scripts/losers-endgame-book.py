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

Usage: scripts/losers-endgame-book.py [--positions N] [--seed S] > book.txt
Needs python-chess (`pip install chess`).
"""

import argparse
import random
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--positions", type=int, default=4096, help="positions to write (default 4096)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(f"# losers endgames: scripts/losers-endgame-book.py --positions {args.positions} --seed {args.seed}")
    written = 0
    while written < args.positions:
        board = random_position(rng)
        if board is not None:
            print(board.fen())
            written += 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
