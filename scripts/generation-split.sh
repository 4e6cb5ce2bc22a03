#!/usr/bin/env bash
# A generation's wall time split (self-play / training / the rest:
# evaluation when [eval] is on, loading the replay window, export) with
# each training backend: one generation of each variant's shipped config,
# started from its shipped bundle (`lokizero train --init-from models/V
# --generations 1`), the config's `[training] backend` set to each of
# BACKENDS in turn (`--set training.backend=...`), alternating, in a fresh
# run directory each time.
# Usage: scripts/generation-split.sh [VARIANT...]   (default: all five)
# Knobs: BACKENDS ("burn fast"), ROUNDS (1).
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-target}
BACKENDS=${BACKENDS:-burn fast}
ROUNDS=${ROUNDS:-1}
cargo build --release --quiet -p lokizero
bin=$TARGET/release/lokizero
variants=("$@"); [ ${#variants[@]} -gt 0 ] || variants=(losers viking hnefatafl loki shakti copenhagen)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '%-10s %-5s %9s %10s %10s %9s %6s %10s\n' variant train wall_s selfplay_s training_s other_s steps samples/s
for _ in $(seq "$ROUNDS"); do
  for v in "${variants[@]}"; do
    for b in $BACKENDS; do
      rm -rf "$work/run"
      t0=$(date +%s.%N)
      "$bin" train --config "configs/$v.toml" --set "training.backend=\"$b\"" --run-dir "$work/run" --init-from "models/$v" --generations 1 --quiet >"$work/log" 2>&1 ||
        { cat "$work/log" >&2; exit 1; }
      t1=$(date +%s.%N)
      tail -n 1 "$work/run/metrics.jsonl" | python3 -c '
import json, sys
m = json.loads(sys.stdin.read())
v, b, wall = sys.argv[1], sys.argv[2], float(sys.argv[3])
sp, tr = m["selfplay_seconds"], m["train_seconds"]
steps, rate = m["train_steps"], m["samples_per_second"]
print(f"{v:<10} {b:<5} {wall:9.1f} {sp:10.1f} {tr:10.1f} {wall - sp - tr:9.1f} {steps:6d} {rate:10.0f}")
' "$v" "$b" "$(echo "$t1 - $t0" | bc)"
    done
  done
done
