#!/usr/bin/env python3
"""Write a book of the positions where recorded chess-board games were cut off.

Why: the shipped losers bot loses its equal-time points in won endgames
that it shuffles until the match's ply cap adjudicates a draw (issue #21,
docs/experiments.md, sessions 18-21). Random won endgames
(`scripts/losers-endgame-book.py --won-by`) do not separate bundles on
that failure; the positions of real capped games do. This script reads
the records of `lokizero match --pgn` and writes, for every game whose
termination is the ply cap, the position BACK plies before its last move
(default 0: the very last position), one position text per line, ready
for `lokizero match --openings` or `[selfplay] branch_book`.

Moves are replayed with python-chess's standard-chess rules, which accept
every Losers Chess move (docs/rules.md §1: the capture obligation only
narrows the legal moves), so it serves the 8x8 variants of the project
whose moves are chess moves (`losers`). Duplicate positions are written
once. A record whose move does not replay is reported on stderr and
skipped.

Usage: scripts/book-from-records.py [--back N] [--termination TEXT]
       RECORDS.pgn... > book.txt
Needs python-chess (`pip install chess`).
"""

import argparse
import re
import sys

import chess

MOVE_NUMBER = re.compile(r"^\d+\.+$")
RESULTS = {"1-0", "0-1", "1/2-1/2", "*"}


def games(text: str):
    """Yield (tags, moves) for each record of a lokizero match PGN file."""
    for block in re.split(r"\n(?=\[Event )", text):
        tags = dict(re.findall(r'^\[(\w+) "([^"]*)"\]$', block, re.M))
        if not tags:
            continue
        body = "\n".join(l for l in block.splitlines() if not l.startswith("["))
        moves = [t for t in body.split() if not MOVE_NUMBER.match(t) and t not in RESULTS]
        yield tags, moves


def position_before_end(tags: dict, moves: list[str], back: int) -> str:
    """The position text `back` plies before the game's last move was played.

    Raises ValueError when a move does not replay from the record's start.
    """
    board = chess.Board(tags.get("FEN", chess.STARTING_FEN))
    for text in moves[: max(len(moves) - back, 0)]:
        # Records hold SAN moves; older records hold UCI ones.
        try:
            move = chess.Move.from_uci(text)
        except ValueError:
            try:
                move = board.parse_san(text)
            except ValueError as e:
                raise ValueError(f"move {text} does not read in {board.fen()}: {e}") from e
        if move not in board.legal_moves:
            raise ValueError(f"move {text} is not legal in {board.fen()}")
        board.push(move)
    return board.fen()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("records", nargs="+", help="PGN files written by `lokizero match --pgn`")
    parser.add_argument("--back", type=int, default=0, help="plies before the last move (default 0)")
    parser.add_argument(
        "--termination",
        default="adjudicated draw: ply cap",
        help="keep games whose Termination tag is this (default: the ply cap)",
    )
    args = parser.parse_args()
    seen = set()
    for path in args.records:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for number, (tags, moves) in enumerate(games(text), 1):
            if tags.get("Termination") != args.termination:
                continue
            try:
                fen = position_before_end(tags, moves, args.back)
            except ValueError as e:
                print(f"{path}: game {number}: {e}; skipped", file=sys.stderr)
                continue
            if fen not in seen:
                seen.add(fen)
                print(fen)
    print(f"{len(seen)} positions", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
