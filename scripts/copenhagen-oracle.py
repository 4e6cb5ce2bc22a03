#!/usr/bin/env python3
"""Oracle positions for rules::Copenhagen from the Copenhagen Hnefatafl engine.

Writes crates/rules/tests/data/copenhagen/vectors.jsonl, read by
crates/rules/tests/copenhagen.rs (which needs neither Python nor the
engine). The engine is `hnefatafl-text-protocol` from the crate
`hnefatafl-copenhagen` 6.4.1 (`cargo install hnefatafl-copenhagen
--version 6.4.1 --locked --bin hnefatafl-text-protocol`), run as a separate
program and spoken to over its text protocol on stdin/stdout; nothing of it
is copied here.

The engine cannot set up a position, so every position is a move sequence
from the start. The script plays games with seeded move pickers: uniform
random, random avoiding a game end, capture-seeking, edge-seeking, and
pickers steering towards one ruling each (an edge fort, encirclement, the
engine's "king cannot escape" tests, no attacker left), plus a few games
where the engine's own `generate_move` picks the moves of one or both
sides. At each position of a game it asks the engine for the status
(`final_status`), the board (`show_board_open_tafl`) and the pieces that
can move (`play_from`), then tries every rook move of the side to move
with `play`: an accepted one is followed by `final_status` and
`play_undo`, which tells what it captures and whether it ends the game; a
refused one is recorded with the engine's reason (the only refusals of
rook moves are the defenders' repetition ban; the script predicts them and
stops if the engine disagrees). Positions are kept when they show
something rare (a shieldwall, a king capture, an edge fort, an
encirclement or other adjudicated end, a refused move, the move limit, a
finished game) and a few others per game at random.

One JSON object per line:
  id        "<picker>-<seed>-<game>-<ply>"
  moves     the moves from the start, this project's tokens ("d11d9"),
            space-separated
  side      "a" or "d" (the side to move)
  status    the engine's final_status: "ongoing", "attacker_wins",
            "defender_wins" or "draw"
  board     the engine's show_board_open_tafl text (A attacker, D defender,
            K king, digits for empty squares, rank 11 first)
  legal     the sorted legal moves, space-separated (empty once the game
            is over)
  captures  {move: [captured squares, sorted]} for each legal move that
            captures (the king's square when the king is taken)
  ends      {move: status} for each legal move after which the game is over
  refused   {move: engine's message} for pseudo-legal moves it refuses
  tags      what the position shows (for coverage counts only)

Engine protocol facts used here: one command per line; every reply is one
line "= TEXT" (success) or "? MESSAGE" followed by an empty line (error),
except `show_board` and `generate_move`, whose replies span several lines
(`generate_move` also prints a line "1 turn: ..." or "2 turn: ..." before
its reply); `quit` ends the engine (at end of input it spins forever, so
always send `quit`). `play_undo` leaves the engine's captured-piece
counters one move behind when the undone-to move captured, and those
counters feed its "king cannot escape" adjudication, so after each trial
move the script undoes back to a position entered without a capture and
replays from there.

Usage: python3 scripts/copenhagen-oracle.py [--engine PATH] [--out FILE]
                                            [--quick] [--no-engine-moves]
"""

import argparse
import json
import os
import random
import subprocess
import sys
from collections import Counter

ENGINE_DEFAULT = "/var/tmp/htp/bin/hnefatafl-text-protocol"
OUT_DEFAULT = os.path.join(
    os.path.dirname(os.path.abspath(__file__)),
    "..",
    "crates",
    "rules",
    "tests",
    "data",
    "copenhagen",
    "vectors.jsonl",
)

FILES = "abcdefghijk"
SIZE = 11
CORNERS = {"a1", "k1", "a11", "k11"}
THRONE = "f6"
RESTRICTED = CORNERS | {THRONE}
BATCH = 150  # commands written before their replies are read


def square(file, rank):
    """Square name of 0-based file and rank (rank 0 = rank 1)."""
    return f"{FILES[file]}{rank + 1}"


def coords(name):
    return FILES.index(name[0]), int(name[1:]) - 1


def split_move(token):
    """'d11d9' -> ('d11', 'd9')."""
    second = next(i for i in range(1, len(token)) if token[i].isalpha())
    return token[:second], token[second:]


def parse_board(text):
    """show_board_open_tafl text -> {square: 'A' | 'D' | 'K'}."""
    rows = [r for r in text.strip().strip("/").split("/")]
    if len(rows) != SIZE:
        raise ValueError(f"bad board text {text!r}")
    board = {}
    for i, row in enumerate(rows):
        rank = SIZE - 1 - i
        file, num = 0, ""
        for ch in row + " ":
            if ch.isdigit():
                num += ch
                continue
            if num:
                file += int(num)
                num = ""
            if ch in "ADK":
                board[square(file, rank)] = ch
                file += 1
        if file != SIZE:
            raise ValueError(f"bad board row {row!r}")
    return board


def role_of(piece):
    return "attacker" if piece == "A" else "defender"


def pseudo_legal(board, role):
    """Rook moves of `role` over empty squares (the empty throne is passed
    over; only the king stops on the throne or a corner)."""
    out = []
    for sq, piece in board.items():
        if role_of(piece) != role:
            continue
        f0, r0 = coords(sq)
        for df, dr in ((0, 1), (1, 0), (0, -1), (-1, 0)):
            f, r = f0 + df, r0 + dr
            while 0 <= f < SIZE and 0 <= r < SIZE:
                to = square(f, r)
                if to in board:
                    break
                if piece == "K" or to not in RESTRICTED:
                    out.append(sq + to)
                f, r = f + df, r + dr
    return sorted(out)


def after_move(board, token, captured):
    b = dict(board)
    fr, to = split_move(token)
    b[to] = b.pop(fr)
    for sq in captured:
        b.pop(sq, None)
    return b


def neighbours(sq):
    f, r = coords(sq)
    for df, dr in ((0, 1), (1, 0), (0, -1), (-1, 0)):
        if 0 <= f + df < SIZE and 0 <= r + dr < SIZE:
            yield square(f + df, r + dr)


def on_edge(sq):
    f, r = coords(sq)
    return f in (0, SIZE - 1) or r in (0, SIZE - 1)


def encircled(board):
    """The king's area (through non-attackers) is off the edge and holds
    every defender: used only to tag positions."""
    king = next((s for s, p in board.items() if p == "K"), None)
    if king is None:
        return False
    seen, stack = {king}, [king]
    while stack:
        sq = stack.pop()
        if on_edge(sq):
            return False
        for n in neighbours(sq):
            if n not in seen and board.get(n) != "A":
                seen.add(n)
                stack.append(n)
    return all(s in seen for s, p in board.items() if p != "A")


class EngineError(Exception):
    pass


class Engine:
    """The engine process, spoken to line by line."""

    def __init__(self, path):
        env = dict(os.environ, NO_COLOR="1")
        self.proc = subprocess.Popen(
            [path],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
            bufsize=1,
            env=env,
        )
        self.version = self.one("version")

    def _reply(self):
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise EngineError("engine closed its output")
            line = line.rstrip("\n")
            if line.startswith("="):
                return True, line[1:].strip()
            if line.startswith("?"):
                return False, line[1:].strip()
            # empty line after an error reply, or stray output

    def batch(self, commands):
        """Send commands (single-line replies only); list of (ok, text)."""
        out = []
        for i in range(0, len(commands), BATCH):
            chunk = commands[i : i + BATCH]
            self.proc.stdin.write("".join(c + "\n" for c in chunk))
            self.proc.stdin.flush()
            out.extend(self._reply() for _ in chunk)
        return out

    def one(self, command):
        ok, text = self.batch([command])[0]
        if not ok:
            raise EngineError(f"{command}: {text}")
        return text

    def generate(self):
        """`generate_move`: the engine picks and plays a move; returns the
        move token, or None when it resigned."""
        self.proc.stdin.write("generate_move\nversion\n")
        self.proc.stdin.flush()
        reply = None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise EngineError("engine closed its output (generate_move)")
            line = line.rstrip("\n")
            if line == "= " + self.version:
                break
            if reply is None and (line.startswith("= play") or line.startswith("?")):
                reply = line
        if reply is None or reply.startswith("?"):
            raise EngineError(f"generate_move: {reply}")
        words = reply[1:].split(",")[0].split()
        # "play ROLE FROM TO" or "play ROLE resigns _"
        if words[2] == "resigns":
            return None
        return words[2] + words[3]

    def close(self):
        try:
            self.proc.stdin.write("quit\n")
            self.proc.stdin.flush()
            self.proc.wait(timeout=10)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()
            self.proc.wait()


class Game:
    """One game on the engine, with its move list and what each captured."""

    def __init__(self, engine):
        self.e = engine
        self.moves = []
        self.captured = []  # per move: number of pieces it captured
        self.e.one("board_size 11")
        self.boards = [self.board()]  # the board at the start and after each move

    def role(self, ply=None):
        ply = len(self.moves) if ply is None else ply
        return "attacker" if ply % 2 == 0 else "defender"

    def play_cmd(self, token, ply=None):
        fr, to = split_move(token)
        return f"play {self.role(ply)} {fr} {to}"

    def push(self, token):
        text = self.e.one(self.play_cmd(token))
        self.record(token, len(text.split()))
        return sorted(text.split())

    def record(self, token, captured):
        """Note a move the engine has played."""
        self.moves.append(token)
        self.captured.append(captured)
        self.boards.append(self.board())

    def resync_commands(self):
        """Commands that bring the engine from "this position, after one
        trial move and its undo" back to exact counters."""
        n = len(self.moves)
        if n == 0 or self.captured[n - 1] == 0:
            return []
        j = n - 1
        while j > 0 and self.captured[j - 1] != 0:
            j -= 1
        cmds = ["play_undo"] * (n - j)
        cmds += [self.play_cmd(self.moves[k], k) for k in range(j, n)]
        return cmds

    def status(self):
        return self.e.one("final_status")

    def board(self):
        return parse_board(self.e.one("show_board_open_tafl"))

    def probe(self):
        """Everything the record needs about the current position."""
        status = self.status()
        board_text = self.e.one("show_board_open_tafl")
        board = parse_board(board_text)
        if len(self.boards) != len(self.moves) + 1 or self.boards[-1] != board:
            raise EngineError("board record out of step")
        role = self.role()
        rec = {
            "moves": list(self.moves),
            "side": role[0],
            "status": status,
            "board": board_text,
            "legal": [],
            "captures": {},
            "ends": {},
            "refused": {},
        }
        if status != "ongoing":
            return rec, board
        words = self.e.one("play_from").split()
        if words[0] != role:
            raise EngineError(f"play_from says {words[0]}, expected {role}")
        froms = set(words[1:])
        # Every rook move is tried with `play`. The engine refuses a
        # pseudo-legal move only for the defenders' repetition ban (its
        # board, piece moved and nothing captured, is one it has had), so
        # the refusals are predicted, sent one by one and checked; the
        # others are played in batches, each undone.
        pseudo = pseudo_legal(board, role)
        refused = []
        if role == "defender":
            for token in pseudo:
                fr, to = split_move(token)
                moved = dict(board)
                moved[to] = moved.pop(fr)
                if moved in self.boards:
                    refused.append(token)
        for token in refused:
            ok, text = self.e.batch([self.play_cmd(token)])[0]
            if ok:
                raise EngineError(f"{token}: predicted refusal, but the engine played it")
            rec["refused"][token] = text
        legal = [t for t in pseudo if t not in refused]
        rec["legal"] = legal
        if {split_move(t)[0] for t in legal} != froms:
            raise EngineError(f"play_from lists {sorted(froms)}")
        resync = self.resync_commands()
        cmds = []
        for token in legal:
            cmds += [self.play_cmd(token), "final_status", "play_undo"] + resync
        replies = self.e.batch(cmds)
        step = 3 + len(resync)
        for i, token in enumerate(legal):
            group = replies[i * step : (i + 1) * step]
            if not all(ok for ok, _ in group):
                raise EngineError(f"trial of {token}: {group}")
            caps = sorted(group[0][1].split())
            if caps:
                rec["captures"][token] = caps
            if group[1][1] != "ongoing":
                rec["ends"][token] = group[1][1]
        return rec, board


def end_reason(rec, board):
    """A guess at why a finished game ended, for coverage counts."""
    king = next((s for s, p in board.items() if p == "K"), None)
    if rec["status"] == "draw":
        return "move-limit"
    if rec["status"] == "defender_wins":
        if king in CORNERS:
            return "escape"
        if not any(p == "A" for p in board.values()):
            return "no-attackers"
        return "edge-fort" if on_edge(king) else "attackers-stuck"
    if king is None:
        return "king-captured"
    if encircled(board):
        return "encircled"
    return "cannot-escape"


def tags_of(rec, board):
    """What a record shows, for coverage counts."""
    tags = set()
    if rec["status"] != "ongoing":
        tags.add("finished")
        tags.add("finished-" + rec["status"])
        tags.add("finished-" + end_reason(rec, board))
    if len(rec["moves"]) >= 130:
        tags.add("late")
    if rec["refused"]:
        tags.add("refused")
    king = next((s for s, p in board.items() if p == "K"), None)
    for token in rec["legal"]:
        fr, to = split_move(token)
        caps = rec["captures"].get(token, [])
        end = rec["ends"].get(token)
        if caps:
            tags.add("capture")
            if len(caps) > 1:
                tags.add("multi-capture")
        if any(c not in neighbours(to) for c in caps):
            tags.add("shieldwall")
        if king in caps:
            tags.add("king-capture")
        if fr == king and (to in CORNERS):
            tags.add("escape")
        if end == "draw":
            tags.add("move-limit")
        if end is None:
            continue
        after = after_move(board, token, caps)
        if end == "defender_wins" and to not in CORNERS:
            left = sum(1 for p in after.values() if p == "A")
            tags.add("no-attackers" if left == 0 else "edge-fort")
        if end == "attacker_wins" and king not in caps:
            if encircled(after):
                tags.add("encirclement")
            else:
                nxt = "defender" if rec["side"] == "a" else "attacker"
                if not pseudo_legal(after, nxt):
                    tags.add("no-move")
                else:
                    tags.add("cannot-escape")
    return sorted(tags)


RARE_EXTRA = 4  # rare positions kept per game beyond the first of each kind

RARE = {
    "shieldwall",
    "king-capture",
    "edge-fort",
    "encirclement",
    "cannot-escape",
    "no-move",
    "no-attackers",
    "refused",
    "finished",
    "move-limit",
}


def picker(kind, rng):
    """A move picker: (rec, board, game) -> token."""

    def uniform(rec, board, game):
        return rng.choice(rec["legal"])

    def quiet(rec, board, game):
        going = [m for m in rec["legal"] if m not in rec["ends"]]
        return rng.choice(going or rec["legal"])

    def captures(rec, board, game):
        going = [m for m in rec["legal"] if m not in rec["ends"]] or rec["legal"]
        caps = [m for m in going if m in rec["captures"]]
        if caps and rng.random() < 0.8:
            return rng.choice(caps)
        return rng.choice(going)

    def edges(rec, board, game):
        going = [m for m in rec["legal"] if m not in rec["ends"]] or rec["legal"]
        weights = []
        for m in going:
            fr, to = split_move(m)
            w = 1.0
            if on_edge(to):
                w += 6.0
            if any(on_edge(n) for n in neighbours(to)):
                w += 3.0
            if m in rec["captures"]:
                w += 4.0
            weights.append(w)
        return rng.choices(going, weights)[0]

    def fort(rec, board, game):
        # Defenders: take the king to an edge and gather around him;
        # attackers: mostly quiet moves far from the king.
        going = [m for m in rec["legal"] if m not in rec["ends"]]
        wins = [m for m in rec["legal"] if rec["ends"].get(m) == "defender_wins"]
        if rec["side"] == "d" and wins and rng.random() < 0.5:
            return rng.choice(wins)
        if not going:
            return rng.choice(rec["legal"])
        king = next((s for s, p in board.items() if p == "K"), None)
        if king is None:
            return rng.choice(going)
        kf, kr = coords(king)
        weights = []
        for m in going:
            fr, to = split_move(m)
            tf, tr = coords(to)
            dist = abs(tf - kf) + abs(tr - kr)
            if rec["side"] == "d":
                if fr == king:
                    w = 8.0 if on_edge(to) and not on_edge(king) else 0.5
                else:
                    w = 1.0 + 6.0 / (1 + dist)
            else:
                w = 0.3 + dist / 4.0
            weights.append(w)
        return rng.choices(going, weights)[0]

    def winning(rec):
        mover = "attacker_wins" if rec["side"] == "a" else "defender_wins"
        return [m for m in rec["legal"] if rec["ends"].get(m) == mover]

    def finisher(inner, p):
        # Take a move that wins for the mover with probability p.
        def pick(rec, board, game):
            wins = winning(rec)
            if wins and rng.random() < p:
                return rng.choice(wins)
            return inner(rec, board, game)

        return pick

    def fill(rec, board, targets, keep_out, filler, gentle=False):
        """`filler` ("a" or "d") moves its pieces onto the empty squares
        of `targets`; the other side makes quiet moves that capture
        nothing and stay off `targets` and `keep_out`. A winning move is
        taken by the filler; a `gentle` filler captures nothing if it can."""
        going = [m for m in rec["legal"] if m not in rec["ends"]]
        if gentle and rec["side"] == filler:
            going = [m for m in going if m not in rec["captures"]] or going
        if not going:
            return rng.choice(rec["legal"])
        if rec["side"] != filler:
            calm = [m for m in going if m not in rec["captures"]
                    and split_move(m)[1] not in targets | keep_out]
            leave = [m for m in calm if split_move(m)[0] in targets | keep_out]
            return rng.choice(leave or calm or going)
        wins = [m for m in winning(rec) if not (gentle and m in rec["captures"])]
        if wins:
            return rng.choice([m for m in wins if split_move(m)[1] not in CORNERS] or wins)
        holes = {t for t in targets if t not in board}
        movers = [m for m in going if split_move(m)[0] not in targets
                  and board[split_move(m)[0]] != "K"]
        onto = [m for m in movers if split_move(m)[1] in holes]
        if onto:
            return rng.choice(onto)
        role = "attacker" if filler == "a" else "defender"
        near = []
        for m in movers:
            to = split_move(m)[1]
            after = after_move(board, m, rec["captures"].get(m, []))
            reach = {split_move(t)[1] for t in pseudo_legal(after, role) if t.startswith(to)
                     and split_move(t)[0] == to}
            if reach & holes and to not in keep_out:
                near.append(m)
        return rng.choice(near or movers or going)

    def dist_from(sq, centre):
        f, r = coords(sq)
        cf, cr = coords(centre)
        return abs(f - cf) + abs(r - cr)

    ALL = [square(f, r) for f in range(SIZE) for r in range(SIZE)]

    def ring(rec, board, game):
        # Attackers close the diamond of distance 4 around the throne;
        # defenders stay inside: encirclement.
        targets = {s for s in ALL if dist_from(s, THRONE) == 4}
        keep_out = {s for s in ALL if dist_from(s, THRONE) > 4}
        return fill(rec, board, targets, keep_out, "a")

    def ring_out(rec, board, game):
        # As `ring`, but one defender first leaves the ring's area and
        # stays out: the ring closing is no encirclement then (every
        # defender must be in the king's area).
        targets = {s for s in ALL if dist_from(s, THRONE) == 4}
        keep_out = {s for s in ALL if dist_from(s, THRONE) > 4}
        if rec["side"] == "a":
            return fill(rec, board, targets, keep_out, "a", gentle=True)
        going = [m for m in rec["legal"] if m not in rec["ends"] and m not in rec["captures"]]
        if not any(p == "D" and s in keep_out for s, p in board.items()):
            out = [m for m in going if board[split_move(m)[0]] == "D"
                   and dist_from(split_move(m)[1], THRONE) >= 5 and not on_edge(split_move(m)[1])]
            if out:
                return rng.choice(out)
        calm = [m for m in going if split_move(m)[0] not in keep_out
                and dist_from(split_move(m)[1], THRONE) <= 3]
        return rng.choice(calm or going or rec["legal"])

    def walls(wall, feed_to):
        # Attackers wall off each corner `wall` squares out and take
        # defenders when they can; defenders offer themselves while more
        # than `feed_to` are left. Aims at the engine's "king cannot
        # escape" through its defender-count clauses.
        targets = {s for s in ALL if any(dist_from(s, c) == wall for c in CORNERS)}
        keep_out = {s for s in ALL if any(dist_from(s, c) < wall for c in CORNERS)}

        def pick(rec, board, game):
            going = [m for m in rec["legal"] if m not in rec["ends"]]
            many = sum(1 for p in board.values() if p == "D") > feed_to
            if rec["side"] == "a":
                caps = [m for m in going if m in rec["captures"]]
                if many and caps and rng.random() < 0.7:
                    return rng.choice(caps)
                return fill(rec, board, targets, keep_out, "a", gentle=not many)
            calm = [m for m in going if m not in rec["captures"]
                    and split_move(m)[1] not in targets | keep_out]
            offer = []
            if many:
                offer = [m for m in calm if board[split_move(m)[0]] == "D"
                         and any(board.get(n) == "A" for n in neighbours(split_move(m)[1]))]
            else:
                # Keep away from the attackers.
                calm = [m for m in calm
                        if not any(board.get(n) == "A" for n in neighbours(split_move(m)[1]))] or calm
            return rng.choice(offer or calm or going or rec["legal"])

        return pick

    def seal4(rec, board, game):
        # Attackers wall off each corner with a diagonal of five squares
        # (distance 4 from it); defenders keep away: every corner sealed
        # and at most one open edge square left between two walls, the
        # engine's "king cannot escape".
        targets = {s for s in ALL if any(dist_from(s, c) == 4 for c in CORNERS)}
        keep_out = {s for s in ALL if any(dist_from(s, c) < 4 for c in CORNERS)}
        return fill(rec, board, targets, keep_out, "a")

    def edge_spot(king):
        """(along, inward) unit steps for a king on an edge, else None."""
        f, r = coords(king)
        if f in (0, SIZE - 1):
            return (0, 1), ((1, 0) if f == 0 else (-1, 0))
        if r in (0, SIZE - 1):
            return (1, 0), ((0, 1) if r == 0 else (0, -1))
        return None

    def shifted(sq, *steps):
        f, r = coords(sq)
        for df, dr in steps:
            f, r = f + df, r + dr
        return square(f, r) if 0 <= f < SIZE and 0 <= r < SIZE else None

    def king_to_edge(rec, board, going, corner_min=3):
        """The king's moves to an edge square at least `corner_min` steps
        from every corner."""
        king = next((s for s, p in board.items() if p == "K"), None)
        return [m for m in going if split_move(m)[0] == king and on_edge(split_move(m)[1])
                and all(dist_from(split_move(m)[1], c) >= corner_min for c in CORNERS)]

    def trap_picker(corner_min, diagonal, feed_to):
        # The king goes to an edge and stays; attackers take the edge
        # squares beside him, the squares straight inward and (if
        # `diagonal`) one pair diagonally inward; defenders offer
        # themselves while more than `feed_to` are left: the engine's
        # "king trapped" and its clauses.
        def pick(rec, board, game):
            going = [m for m in rec["legal"] if m not in rec["ends"]]
            king = next((s for s, p in board.items() if p == "K"), None)
            spot = edge_spot(king) if king else None
            if spot is None:
                if rec["side"] == "d":
                    moves = king_to_edge(rec, board, going, corner_min)
                    if moves:
                        return rng.choice(moves)
                return rng.choice(going or rec["legal"])
            (a, i) = spot
            back = (-a[0], -a[1])
            targets = {shifted(king, a), shifted(king, a, a), shifted(king, back),
                       shifted(king, back, back), shifted(king, i), shifted(king, i, i)}
            if diagonal:
                targets |= {shifted(king, a, i), shifted(king, a, i, i)}
            targets -= {None} | CORNERS
            many = sum(1 for p in board.values() if p == "D") > feed_to
            if rec["side"] == "d" and many:
                offer = [m for m in going if m not in rec["captures"] and board[split_move(m)[0]] == "D"
                         and split_move(m)[1] not in targets
                         and any(board.get(n) == "A" for n in neighbours(split_move(m)[1]))]
                if offer:
                    return rng.choice(offer)
            if rec["side"] == "a" and many:
                caps = [m for m in going if m in rec["captures"]]
                if caps and rng.random() < 0.5:
                    return rng.choice(caps)
            return fill(rec, board, targets, set(), "a")

        return pick

    def rook_steps(board, frm, target):
        """Fewest rook moves of the piece on `frm` to `target` over the
        current board (other pieces fixed), or None."""
        piece = board[frm]
        rest = {k: v for k, v in board.items() if k != frm}
        seen, layer, n = {frm}, [frm], 0
        while layer:
            if target in layer:
                return n
            nxt = []
            for sq in layer:
                for t in pseudo_legal({**rest, sq: piece}, role_of(piece)):
                    fr, to = split_move(t)
                    if fr == sq and to not in seen:
                        seen.add(to)
                        nxt.append(to)
            layer, n = nxt, n + 1
        return None

    def walk(rec, board, going, goal):
        """A defenders' move bringing some defender nearest to `goal`."""
        best, best_n = [], None
        for m in going:
            fr, to = split_move(m)
            if board[fr] != "D" or m in rec["captures"]:
                continue
            n = 0 if to == goal else rook_steps(after_move(board, m, []), to, goal)
            if n is None:
                continue
            if best_n is None or n < best_n:
                best, best_n = [m], n
            elif n == best_n:
                best.append(m)
        return best

    def seal4n(rec, board, game):
        # As `seal4` with f1 walled too, after a defender has gone to b1,
        # next to the corner a1: the engine passes over a defender on a
        # corner's neighbour, so the corners still count as sealed.
        targets = {s for s in ALL if any(dist_from(s, c) == 4 for c in CORNERS)} | {"f1"}
        keep_out = {s for s in ALL if any(dist_from(s, c) < 4 for c in CORNERS)}
        going = [m for m in rec["legal"] if m not in rec["ends"]]
        if rec["side"] == "d" and board.get("b1") != "D":
            moves = walk(rec, board, going, "b1")
            if moves:
                return rng.choice(moves)
        if rec["side"] == "d":
            calm = [m for m in going if m not in rec["captures"] and split_move(m)[0] != "b1"
                    and split_move(m)[1] not in targets | keep_out]
            return rng.choice(calm or going or rec["legal"])
        return fill(rec, board, targets, keep_out, "a", gentle=True)

    def fort3(rec, board, game):
        # The king on an edge; defenders close a two-square area beside
        # him (back and back-inward of him) with a wall whose piece
        # straight inward of the king is covered only once the square
        # diagonally ahead-inward is taken last: first a closed area the
        # engine does not count as a fort, then a fort.
        going = [m for m in rec["legal"] if m not in rec["ends"] or rec["side"] == "d"]
        king = next((s for s, p in board.items() if p == "K"), None)
        spot = edge_spot(king) if king else None
        if spot is None:
            if rec["side"] == "d":
                moves = king_to_edge(rec, board, going)
                if moves:
                    return rng.choice(moves)
            calm = [m for m in going if m not in rec["ends"] and m not in rec["captures"]]
            return rng.choice(calm or going or rec["legal"])
        (a, i) = spot
        b = (-a[0], -a[1])
        area = {shifted(king, b), shifted(king, b, i)}
        wall = {shifted(king, a), shifted(king, i), shifted(king, b, b),
                shifted(king, b, b, i), shifted(king, b, i, i), shifted(king, b, b, i, i)}
        if None in wall | area:
            return rng.choice(going or rec["legal"])
        if wall <= {s for s, p in board.items() if p == "D"}:
            wall = wall | {shifted(king, a, i)}
        keep_out = {s for s in ALL if dist_from(s, king) <= 4} | area
        if rec["side"] == "d":
            # Never into the area, never the king or a wall piece; a move
            # that ends the game only when it fills the wall.
            out = [m for m in going if split_move(m)[0] in area and board[split_move(m)[0]] == "D"
                   and split_move(m)[1] not in area and m not in rec["ends"]]
            if out:
                return rng.choice(out)
            free = [m for m in going if split_move(m)[0] not in wall | {king}
                    and split_move(m)[1] not in area and m not in rec["captures"]]
            holes = [t for t in wall if t not in board]
            onto = [m for m in free if split_move(m)[1] in holes]
            if onto:
                return rng.choice(onto)
            free = [m for m in free if m not in rec["ends"]]
            for hole in holes:
                moves = walk(rec, board, free, hole)
                if moves:
                    return rng.choice(moves)
            return rng.choice(free or going or rec["legal"])
        calm = [m for m in going if m not in rec["ends"] and m not in rec["captures"]
                and split_move(m)[1] not in keep_out]
        leave = [m for m in calm if split_move(m)[0] in keep_out]
        return rng.choice(leave or calm or going or rec["legal"])

    def fort2(rec, board, game):
        # The king goes to an edge; defenders gather on the squares around
        # the one empty square beside him: an edge fort.
        going = [m for m in rec["legal"] if m not in rec["ends"]]
        king = next((s for s, p in board.items() if p == "K"), None)
        spot = edge_spot(king) if king else None
        if spot is None:
            if rec["side"] == "d":
                moves = king_to_edge(rec, board, going)
                if moves:
                    return rng.choice(moves)
            far = [m for m in going if m not in rec["captures"]]
            return rng.choice(far or going or rec["legal"])
        (a, i) = spot
        back = (-a[0], -a[1])
        targets = {shifted(king, a), shifted(king, i), shifted(king, back, i),
                   shifted(king, back, back)} - {None}
        keep_out = {s for s in ALL if dist_from(s, king) <= 3}
        return fill(rec, board, targets, keep_out, "d")

    def feed(rec, board, game):
        # Defenders capture whenever they can; attackers walk into places
        # next to defenders. Aims at "no attacker left".
        going = [m for m in rec["legal"] if m not in rec["ends"]]
        wins = winning(rec)
        if rec["side"] == "d":
            if wins:
                return rng.choice(wins)
            caps = [m for m in going if m in rec["captures"]]
            return rng.choice(caps or going or rec["legal"])
        if not going:
            return rng.choice(rec["legal"])
        nextto = [m for m in going
                  if any(board.get(n) == "D" for n in neighbours(split_move(m)[1]))]
        return rng.choice(nextto or going)

    def seal(rec, board, game):
        # Attackers fill the edge squares near the corners and the edge
        # around the king; the king heads for an edge. Aims at the
        # engine's "king cannot escape" adjudication.
        going = [m for m in rec["legal"] if m not in rec["ends"]]
        wins = winning(rec)
        if wins and rng.random() < 0.7:
            return rng.choice(wins)
        if not going:
            return rng.choice(rec["legal"])
        king = next((s for s, p in board.items() if p == "K"), None)
        weights = []
        for m in going:
            fr, to = split_move(m)
            tf, tr = coords(to)
            w = 1.0
            if rec["side"] == "a":
                corner_dist = min(abs(tf - cf) + abs(tr - cr) for cf in (0, 10) for cr in (0, 10))
                if on_edge(to) and corner_dist <= 3:
                    w += 8.0
                if king and on_edge(king) and on_edge(to):
                    kf, kr = coords(king)
                    if abs(tf - kf) + abs(tr - kr) <= 2:
                        w += 12.0
                if on_edge(fr):
                    w *= 0.2
            else:
                if fr == king and on_edge(to):
                    w += 6.0
            weights.append(w)
        return rng.choices(going, weights)[0]

    return {
        "random": uniform,
        "quiet": quiet,
        "captures": finisher(captures, 0.6),
        "edges": finisher(edges, 0.6),
        "fort": fort,
        "ring": ring,
        "seal4": seal4,
        "ring_out": ring_out,
        "seal3": walls(3, 5),
        "seal2": walls(2, 3),
        "trap": trap_picker(3, True, 99),
        "trap2": trap_picker(2, True, 99),
        "trapfeed": trap_picker(3, False, 1),
        "seal4n": seal4n,
        "fort3": fort3,
        "fort2": fort2,
        "feed": feed,
        "seal": seal,
    }[kind]


def play_game(engine, gid, pick, rng, keep_plain, limit, engine_sides=(), opening=()):
    """Play one game; returns the kept records."""
    game = Game(engine)
    kept = []
    plain = []
    for token in opening:
        game.push(token)
    while True:
        rec, board = game.probe()
        rec["id"] = f"{gid}-{len(game.moves)}"
        rec["tags"] = tags_of(rec, board)
        if RARE & set(rec["tags"]):
            kept.append(rec)
        else:
            plain.append(rec)
        if rec["status"] != "ongoing" or len(game.moves) >= limit:
            break
        side = rec["side"]
        if side in engine_sides:
            token = engine.generate()
            if token is None:
                break
            if token not in rec["legal"]:
                raise EngineError(f"generate_move gave {token}, not in the legal list")
            # generate_move played it already: record it without replaying.
            game.record(token, len(rec["captures"].get(token, [])))
        else:
            token = pick(rec, board, game)
            game.push(token)
    # Of the positions showing something rare: the first of each kind,
    # the last one, and a few others.
    chosen, seen_tags, rest = [], set(), []
    for i, rec in enumerate(kept):
        new = RARE & set(rec["tags"]) - seen_tags
        if new or i == len(kept) - 1:
            chosen.append(rec)
            seen_tags |= new
        else:
            rest.append(rec)
    chosen += rng.sample(rest, min(RARE_EXTRA, len(rest)))
    chosen += rng.sample(plain, min(keep_plain, len(plain)))
    return chosen


# Games where the engine's `generate_move` picks the moves of these sides
# (the other side: random moves that do not end the game), and their ply
# limit (each engine move takes seconds; past 137 plies its search would
# meet the move limit, which it does not expect, and the engine exits).
ENGINE_GAMES = [("a", "d"), ("a",), ("d",), ("a", "d")]
ENGINE_PLIES = 40


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--engine", default=ENGINE_DEFAULT)
    ap.add_argument("--out", default=OUT_DEFAULT)
    ap.add_argument("--quick", action="store_true", help="a few games only, none by the engine")
    ap.add_argument("--no-engine-moves", action="store_true", help="leave out the generate_move games")
    args = ap.parse_args()

    engine = Engine(args.engine)
    print(f"engine {engine.one('name')} {engine.version}", file=sys.stderr)
    records = []
    plan = [
        # (picker, seed, games, plain positions kept per game, ply limit)
        ("random", 1, 40, 2, 400),
        ("quiet", 2, 12, 3, 400),
        ("captures", 3, 25, 2, 400),
        ("edges", 4, 25, 2, 400),
        ("fort", 5, 40, 1, 400),
        ("ring", 7, 20, 1, 400),
        ("feed", 8, 20, 1, 400),
        ("seal", 9, 30, 1, 400),
        ("seal4", 10, 15, 1, 400),
        ("trap", 11, 20, 1, 400),
        ("fort2", 12, 20, 1, 400),
        ("ring_out", 13, 10, 1, 400),
        ("seal3", 14, 15, 1, 400),
        ("seal2", 15, 15, 1, 400),
        ("fort3", 16, 20, 1, 400),
        ("seal4n", 17, 8, 1, 400),
        ("trap2", 18, 10, 1, 400),
        ("trapfeed", 19, 10, 1, 400),
    ]
    if args.quick:
        plan = [(p, s, 2, k, lim) for p, s, _, k, lim in plan]
    try:
        for kind, seed, games, keep, limit in plan:
            rng = random.Random(seed)
            pick = picker(kind, rng)
            for g in range(games):
                got = play_game(engine, f"{kind}-{seed}-{g}", pick, rng, keep, limit)
                records += got
                print(f"{kind} seed {seed} game {g}: {len(got)} kept", file=sys.stderr)
        # The engine's own moves: against itself and against random play,
        # stopping before its search can reach the move limit (it does not
        # expect a drawn game inside its search).
        rng = random.Random(6)
        for g, sides in enumerate([] if args.quick or args.no_engine_moves else ENGINE_GAMES):
            gid = f"engine{''.join(sides)}-6-{g}"
            opening = [] if g < 3 else ["d11d9"]
            got = play_game(
                engine, gid, picker("quiet", rng), rng, 3, ENGINE_PLIES,
                engine_sides=sides, opening=opening,
            )
            records += got
            print(f"{gid}: {len(got)} kept", file=sys.stderr)
    finally:
        engine.close()

    seen = set()
    unique = []
    for rec in records:
        key = tuple(rec["moves"])
        if key not in seen:
            seen.add(key)
            unique.append(rec)
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        for rec in unique:
            line = dict(rec, moves=" ".join(rec["moves"]), legal=" ".join(rec["legal"]))
            f.write(json.dumps(line, separators=(",", ":"), sort_keys=True) + "\n")
    counts = Counter(t for rec in unique for t in rec["tags"])
    print(f"{len(unique)} positions written to {args.out}", file=sys.stderr)
    for tag, n in sorted(counts.items()):
        print(f"  {tag}: {n}", file=sys.stderr)


if __name__ == "__main__":
    main()
