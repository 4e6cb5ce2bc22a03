#!/usr/bin/env bash
# Side-by-side inference throughput: lokizero's CPU inference (the fused
# path, model::FusedNet, and plain burn flex) vs onnxruntime on the very
# same network and weights, same thread count, in one run. Usage: scripts/bench-onnx.sh [VARIANT...]   (default: all five)
# onnxruntime is installed into a private virtualenv for this script only.
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-2}
SECONDS_PER=${SECONDS_PER:-3}
VENV=${VENV:-target/onnx-venv}
if [ ! -x "$VENV/bin/python" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet onnx onnxruntime numpy safetensors
fi
cargo build --release --quiet
variants=("$@"); [ ${#variants[@]} -gt 0 ] || variants=(losers viking hnefatafl loki shakti copenhagen)
work=$(mktemp -d)
# Best of ROUNDS alternating runs per runtime and batch: the machine is
# shared, and the best figure is the least disturbed one.
ROUNDS=${ROUNDS:-2}
best() { awk '{k=$1" "$2; if (!(k in m) || $3 > m[k]) m[k]=$3} END {for (k in m) print k, m[k]}' | sort -k2n; }
for v in "${variants[@]}"; do
  echo "== $v"
  ./target/release/lokizero bench --variant "$v" --what none --export-bundle "$work/$v" --reference-out "$work/$v.json" >/dev/null
  : >"$work/rates"
  for _ in $(seq "$ROUNDS"); do
    RAYON_NUM_THREADS=$THREADS ./target/release/lokizero bench --variant "$v" --model "$work/$v" --what net --seconds "$SECONDS_PER" |
      tee /dev/stderr | sed -n 's/^net inference (\([a-z]*\)) batch *\([0-9]*\): *\([0-9.]*\).*/\1 \2 \3/p' >>"$work/rates"
    "$VENV/bin/python" scripts/onnx_reference.py "$work/$v" "$work/$v.json" "$THREADS" "$SECONDS_PER" 1 16 64 256 |
      tee /dev/stderr | sed -n 's/^onnxruntime batch *\([0-9]*\): *\([0-9.]*\).*/onnxruntime \1 \2/p' >>"$work/rates"
  done
  best <"$work/rates" >"$work/best"
  for path in fused burn; do
    join -j 1 <(awk -v p=$path '$1 == p {print $2, $3}' "$work/best" | sort) \
      <(awk '$1 == "onnxruntime" {print $2, $3}' "$work/best" | sort) | sort -n |
      awk -v p=$path '{printf "best of '"$ROUNDS"': batch %4s  %-5s %8.0f  onnxruntime %8.0f positions/s  ratio %s/onnxruntime %.2f\n", $1, p, $2, $3, p, $2/$3}'
  done
done
rm -rf "$work"
