#!/usr/bin/env python3
"""Fairy-Stockfish's SAN for every legal move of every chess oracle position.

Writes crates/rules/tests/data/<variant>/san.tsv, read by
crates/rules/tests/san_oracle.rs (which needs no Python). One line per
position of vectors.jsonl and edge_cases.jsonl that has legal moves:

    <fen in this project's notation> TAB <uci>=<san> <uci>=<san> ...

in the order of the oracle's sorted legal-move list. Needs
`pip install pyffish==0.0.90` (the version that made the oracle data).

Losers uses Fairy-Stockfish's built-in `losers`. Viking uses
configs/fairy-stockfish/viking.ini for White's moves; there Black's pawn is
a custom piece `o` (Fairy-Stockfish's own pawn only moves towards the
opponent), which Fairy-Stockfish's SAN writes as an officer (`Oh4`, not
`h4`). Black's moves therefore come from `vikingm`, the same game mirrored
top to bottom (rank r becomes 8 - r): there Black's pawn moves down the
board, so it is Fairy-Stockfish's own pawn `p` and gets pawn SAN, while
White's pawn becomes the custom piece. The SAN of the mirrored move is
mapped back (rank digits r -> 8 - r). As a check of the mirrored
definition, both formulations must list the same legal moves in every
position, and give the same SAN for every move of a piece other than a pawn;
the script fails otherwise.

Usage: python3 scripts/fsf-san.py [losers|viking ...]
"""

import json
import os
import re
import sys

import pyffish as sf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DATA = os.path.join(ROOT, "crates", "rules", "tests", "data")

MIRRORED_INI = """
[vikingm]
maxRank = 7
maxFile = 12
pawn = p
knight = n
bishop = b
rook = r
queen = q
king = k
customPiece1 = o:mbWcbF
startFen = RBKQBOpbqkbr/RONNOOppnnpr/1OOOO2pppp1/12/12/12/12 w - - 0 1
promotionPawnTypesWhite = o
promotionPawnTypesBlack = p
promotionPieceTypesWhite = nbrq
promotionPieceTypesBlack = nbrq
promotionRegionWhite = *1
promotionRegionBlack = *1
mandatoryPawnPromotion = true
doubleStep = false
enPassantRegion = -
castling = false
nMoveRuleTypesWhite = o
nMoveRuleTypesBlack = p
"""

HEIGHT = 7


def mirror_fen(fen):
    """Viking FEN (FSF notation, black pawn `o`) -> vikingm FEN."""
    fields = fen.split()
    ranks = fields[0].split("/")[::-1]
    swap = {"P": "O", "o": "p"}
    fields[0] = "/".join("".join(swap.get(c, c) for c in r) for r in ranks)
    return " ".join(fields)


def mirror_squares(text):
    """Map every square name in `text` (move or SAN) to rank 8 - r."""
    return re.sub(
        r"([a-l])(\d+)", lambda m: m.group(1) + str(HEIGHT + 1 - int(m.group(2))), text
    )


def mirror_rank_digits(san):
    """Map a SAN from vikingm back: squares and a lone rank disambiguator."""
    # Squares first (letter+digits), then a rank digit standing alone
    # after a piece letter (`R3a4` style disambiguation).
    out = []
    i = 0
    while i < len(san):
        m = re.match(r"[a-l]\d+", san[i:])
        if m:
            out.append(mirror_squares(m.group(0)))
            i += len(m.group(0))
            continue
        m = re.match(r"\d+", san[i:])
        if m:
            out.append(str(HEIGHT + 1 - int(m.group(0))))
            i += len(m.group(0))
            continue
        out.append(san[i])
        i += 1
    return "".join(out)


def losers_lines(records):
    for r in records:
        fen, moves = r["fen"], r["legal_moves"]
        if not moves:
            continue
        assert sorted(sf.legal_moves("losers", fen, [])) == moves, fen
        yield fen, [(m, sf.get_san("losers", fen, m)) for m in moves]


def viking_lines(records):
    for r in records:
        fen, moves = r["fen"], r["legal_moves"]
        if not moves:
            continue
        mfen = mirror_fen(fen)
        direct = sorted(sf.legal_moves("viking", fen, []))
        mirrored = sorted(mirror_squares(m) for m in sf.legal_moves("vikingm", mfen, []))
        assert direct == moves == mirrored, fen
        black = fen.split()[1] == "b"
        pairs = []
        for m in moves:
            san_direct = sf.get_san("viking", fen, m)
            san_mirror = mirror_rank_digits(sf.get_san("vikingm", mfen, mirror_squares(m)))
            pawn_move = not san_direct[0].isupper() or san_direct[0] == "O"
            if not pawn_move:
                assert san_direct == san_mirror, (fen, m, san_direct, san_mirror)
            pairs.append((m, san_mirror if black else san_direct))
        yield r["fen_std"], pairs


def main():
    variants = sys.argv[1:] or ["losers", "viking"]
    with open(os.path.join(ROOT, "configs", "fairy-stockfish", "viking.ini")) as f:
        sf.load_variant_config(f.read() + MIRRORED_INI)
    for variant in variants:
        records = []
        for name in ["vectors.jsonl", "edge_cases.jsonl"]:
            with open(os.path.join(DATA, variant, name)) as f:
                records += [json.loads(l) for l in f if l.strip()]
        lines = (losers_lines if variant == "losers" else viking_lines)(records)
        out = os.path.join(DATA, variant, "san.tsv")
        positions = moves = 0
        with open(out, "w") as f:
            for fen, pairs in lines:
                f.write(fen + "\t" + " ".join(f"{m}={s}" for m, s in pairs) + "\n")
                positions += 1
                moves += len(pairs)
        print(f"{variant}: {positions} positions, {moves} moves -> {out}")


if __name__ == "__main__":
    main()
