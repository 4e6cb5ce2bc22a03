#!/usr/bin/env bash
# Side-by-side inference throughput: burn (lokizero's default backend) vs
# onnxruntime on the very same network and weights, same thread count, in
# one run. Usage: scripts/bench-onnx.sh [VARIANT...]   (default: all five)
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
variants=("$@"); [ ${#variants[@]} -gt 0 ] || variants=(losers viking hnefatafl loki shakti)
work=$(mktemp -d)
for v in "${variants[@]}"; do
  echo "== $v"
  ./target/release/lokizero bench --variant "$v" --what none --export-bundle "$work/$v" --reference-out "$work/$v.json" >/dev/null
  burn=$(RAYON_NUM_THREADS=$THREADS ./target/release/lokizero bench --variant "$v" --model "$work/$v" --what net --seconds "$SECONDS_PER" | tee /dev/stderr | grep 'batch')
  ort=$("$VENV/bin/python" scripts/onnx_reference.py "$work/$v" "$work/$v.json" "$THREADS" "$SECONDS_PER" 1 16 64 256 | tee /dev/stderr | grep 'batch')
  paste <(echo "$burn" | awk '{print $4, $5}' | tr -d ':') <(echo "$ort" | awk '{print $4}') |
    awk '{printf "ratio burn/onnxruntime batch %4s: %.2f\n", $1, $2/$3}'
done
rm -rf "$work"
