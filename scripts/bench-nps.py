#!/usr/bin/env python3
"""Nodes per second in play: the UCI bot's `nps` from each variant's start
position, fp32 against int8 and one thread against two, configurations
alternating within each round so a slow spell of the machine hits all of
them alike. Prints each round's figures, the medians and the ratios as a
Markdown table (docs/benchmarks.md, "Nodes per second in play").

    python3 scripts/bench-nps.py --rounds 5 --movetime 1000
    python3 scripts/bench-nps.py --lokizero target/release/lokizero --variants losers,viking

The figure is the `nps` of the last `info` line before `bestmove`
(`go movetime` may stop early when the best move cannot change; nps is
nodes over the time actually searched). Needs the shipped bundles under
models/ (run from the repository root) or `--bundle-dir`.
"""
import argparse
import re
import statistics
import subprocess
import sys

VARIANTS = "losers,viking,hnefatafl,loki,shakti,copenhagen"


def nps(lokizero, variant, precision, threads, movetime, bundle_dir):
    """One search from the start position; returns its nps."""
    cmd = [lokizero, "uci", "--threads", str(threads), "--precision", precision]
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    setup = f"uci\nsetoption name UCI_Variant value {variant}\n"
    if bundle_dir:
        setup += f"setoption name BundlePath value {bundle_dir}/{variant}\n"
    proc.stdin.write(setup + f"isready\nposition startpos\ngo movetime {movetime}\n")
    proc.stdin.flush()
    found, said = None, []
    for line in proc.stdout:
        said.append(line.strip())
        m = re.search(r" nps (\d+)", line)
        if m:
            found = int(m.group(1))
        if line.startswith("bestmove"):
            break
    proc.stdin.write("quit\n")
    proc.stdin.flush()
    proc.wait()
    if found is None:
        sys.exit(f"{variant} {precision}: no nps reported; the bot said: {' | '.join(said[-3:])}")
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--lokizero", default="target/release/lokizero", help="the binary (default: %(default)s)")
    ap.add_argument("--variants", default=VARIANTS, help="comma separated (default: %(default)s)")
    ap.add_argument("--rounds", type=int, default=5, help="alternating rounds (default: %(default)s)")
    ap.add_argument("--movetime", type=int, default=1000, help="milliseconds per search (default: %(default)s)")
    ap.add_argument("--bundle-dir", help="folder with one bundle per variant (default: the bot's search path)")
    ap.add_argument("--no-threads", action="store_true", help="skip the 2-thread int8 runs")
    args = ap.parse_args()
    configs = [("fp32", 1), ("int8", 1)] + ([] if args.no_threads else [("int8", 2)])
    variants = args.variants.split(",")
    got = {}
    for r in range(args.rounds):
        for v in variants:
            for p, t in configs:
                x = nps(args.lokizero, v, p, t, args.movetime, args.bundle_dir)
                got.setdefault((v, p, t), []).append(x)
                print(f"round {r + 1} {v} {p} threads {t}: {x} nps", file=sys.stderr, flush=True)
    med = {k: statistics.median(xs) for k, xs in got.items()}
    head = "| variant | fp32, 1 thread | int8, 1 thread | int8/fp32 (per round) |"
    sep = "|---|---:|---:|---|"
    if not args.no_threads:
        head += " int8, 2 threads | 2 threads/1 (per round) |"
        sep += "---:|---|"
    print(head)
    print(sep)
    for v in variants:
        f, i = got[(v, "fp32", 1)], got[(v, "int8", 1)]
        per = ", ".join(f"{a / b:.2f}" for a, b in zip(i, f))
        row = f"| {v} | {med[(v, 'fp32', 1)]:.0f} | {med[(v, 'int8', 1)]:.0f} | **{med[(v, 'int8', 1)] / med[(v, 'fp32', 1)]:.2f}** ({per}) |"
        if not args.no_threads:
            two = got[(v, "int8", 2)]
            per2 = ", ".join(f"{a / b:.2f}" for a, b in zip(two, i))
            row += f" {med[(v, 'int8', 2)]:.0f} | **{med[(v, 'int8', 2)] / med[(v, 'int8', 1)]:.2f}** ({per2}) |"
        print(row)


if __name__ == "__main__":
    main()
