#!/usr/bin/env python3
"""Nodes per second in play: the UCI bot's `nps` from each variant's start
position, fp32 against int8 and one thread against two, configurations
alternating within each round so a slow spell of the machine hits all of
them alike. Prints each round's figures, the medians and the ratios as a
Markdown table (docs/benchmarks.md, "Nodes per second in play"), then
the time from `go` to `bestmove`, median and longest, per configuration
(a `go movetime` search that overruns its time shows there).

    python3 scripts/bench-nps.py --rounds 5 --movetime 1000
    python3 scripts/bench-nps.py --rounds 7 --nodes 10000
    python3 scripts/bench-nps.py --lokizero target/release/lokizero --variants losers,viking
    python3 scripts/bench-nps.py --lokizero OLD --lokizero NEW --no-threads   # before/after

The figure is the `nps` of the last `info` line before `bestmove`
(`go movetime` may stop early when the best move cannot change; nps is
nodes over the time actually searched). With `--nodes` every search is
`go nodes N`: the same tree size for every configuration, no early stop. Needs the shipped bundles under
models/ (run from the repository root) or `--bundle-dir`.
"""
import argparse
import os
import re
import statistics
import subprocess
import sys
import time

VARIANTS = "losers,viking,hnefatafl,loki,shakti,copenhagen"


def nps(lokizero, variant, precision, threads, go, bundle_dir):
    """One search from the start position; returns its nps and the
    milliseconds from sending `go` to reading `bestmove`."""
    cmd = [lokizero, "uci", "--threads", str(threads), "--precision", precision]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    setup = f"uci\nsetoption name UCI_Variant value {variant}\n"
    if bundle_dir:
        setup += f"setoption name BundlePath value {bundle_dir}/{variant}\n"
    proc.stdin.write(setup + "isready\nposition startpos\n")
    proc.stdin.flush()
    for line in proc.stdout:
        if line.startswith("readyok"):
            break
    proc.stdin.write(f"go {go}\n")
    proc.stdin.flush()
    sent = time.monotonic()
    found, said = None, []
    for line in proc.stdout:
        said.append(line.strip())
        m = re.search(r" nps (\d+)", line)
        if m:
            found = int(m.group(1))
        if line.startswith("bestmove"):
            took = (time.monotonic() - sent) * 1000
            break
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    proc.wait()
    if found is None:
        sys.exit(f"{variant} {precision}: no nps reported; the bot said: {' | '.join(said[-3:])}")
    return found, took


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lokizero", action="append", help="the binary (default: target/release/lokizero); repeat to compare binaries, alternating within each round")
    ap.add_argument("--variants", default=VARIANTS, help="comma separated (default: %(default)s)")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds (default: %(default)s)")
    ap.add_argument("--movetime", type=int, default=1000, help="milliseconds per search (default: %(default)s)")
    ap.add_argument("--nodes", type=int, help="search `go nodes N` instead of `go movetime`")
    ap.add_argument("--bundle-dir", help="folder with one bundle per variant (default: the bot's search path)")
    ap.add_argument("--no-threads", action="store_true", help="skip the 2-thread int8 runs")
    args = ap.parse_args()
    if args.rounds < 1:
        ap.error("--rounds must be at least 1")
    if args.nodes is not None and args.nodes < 1:
        ap.error("--nodes must be at least 1")
    if args.movetime < 1:
        ap.error("--movetime must be at least 1")
    known = VARIANTS.split(",")
    for v in args.variants.split(","):
        if v not in known:
            ap.error(f"unknown variant {v!r} (known: {VARIANTS})")
    for b in args.lokizero or ["target/release/lokizero"]:
        if not os.access(b, os.X_OK):
            ap.error(f"{b}: no such program (build it: cargo build --release, or give --lokizero)")
    go = f"nodes {args.nodes}" if args.nodes is not None else f"movetime {args.movetime}"
    configs = [("fp32", 1), ("int8", 1)] + ([] if args.no_threads else [("int8", 2)])
    variants = args.variants.split(",")
    binaries = args.lokizero or ["target/release/lokizero"]
    got, took = {}, {}
    for r in range(args.rounds):
        for v in variants:
            for b in binaries:
                for p, t in configs:
                    x, ms = nps(b, v, p, t, go, args.bundle_dir)
                    got.setdefault((v, b, p, t), []).append(x)
                    took.setdefault((v, b, p, t), []).append(ms)
                    print(f"round {r + 1} {v} {b} {p} threads {t}: {x} nps, bestmove after {ms:.0f} ms", file=sys.stderr, flush=True)
    med = {k: statistics.median(xs) for k, xs in got.items()}
    several = len(binaries) > 1
    head = "| variant |" + (" binary |" if several else "") + " fp32, 1 thread | int8, 1 thread | int8/fp32 (per round) |"
    sep = "|---|" + ("---|" if several else "") + "---:|---:|---|"
    if not args.no_threads:
        head += " int8, 2 threads | 2 threads/1 (per round) |"
        sep += "---:|---|"
    print(head)
    print(sep)
    for v in variants:
        for b in binaries:
            f, i = got[(v, b, "fp32", 1)], got[(v, b, "int8", 1)]
            mf, mi = med[(v, b, "fp32", 1)], med[(v, b, "int8", 1)]
            per = ", ".join(f"{x / y:.2f}" for x, y in zip(i, f))
            row = f"| {v} |" + (f" {b} |" if several else "") + f" {mf:.0f} | {mi:.0f} | **{mi / mf:.2f}** ({per}) |"
            if not args.no_threads:
                two = got[(v, b, "int8", 2)]
                m2 = med[(v, b, "int8", 2)]
                per2 = ", ".join(f"{x / y:.2f}" for x, y in zip(two, i))
                row += f" {m2:.0f} | **{m2 / mi:.2f}** ({per2}) |"
            print(row)
    # Time used: from `go` to `bestmove` as a GUI sees it (process pipes
    # included), the longest search being the one that would flag.
    print()
    print("| variant |" + (" binary |" if several else "") + "".join(f" {p}, {t} thread{'s' * (t > 1)}: median / longest ms |" for p, t in configs))
    print("|---|" + ("---|" if several else "") + "---:|" * len(configs))
    for v in variants:
        for b in binaries:
            cells = "".join(f" {statistics.median(took[(v, b, p, t)]):.0f} / {max(took[(v, b, p, t)]):.0f} |" for p, t in configs)
            print(f"| {v} |" + (f" {b} |" if several else "") + cells)


if __name__ == "__main__":
    main()
