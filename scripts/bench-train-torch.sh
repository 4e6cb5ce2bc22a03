#!/usr/bin/env bash
# Side-by-side training throughput: lokizero's training step (each backend
# in BACKENDS: the hand-written fast path and burn flex + autodiff) vs
# PyTorch CPU on the very same network and weights, batch BATCH, THREADS
# threads each, in alternating rounds in one run (as scripts/bench-onnx.sh
# does for inference). Prints samples/s and the CPU cores each kept busy
# (process CPU time / wall time of the timed loop).
# Usage: scripts/bench-train-torch.sh [VARIANT...]   (default: losers hnefatafl)
# PyTorch (CPU) is installed into a private virtualenv for this script only;
# not part of CI.
set -euo pipefail
cd "$(dirname "$0")/.."
THREADS=${THREADS:-2}
SECONDS_PER=${SECONDS_PER:-5}
ROUNDS=${ROUNDS:-3}
BATCH=${BATCH:-256}
BACKENDS=${BACKENDS:-fast burn}
TARGET=${CARGO_TARGET_DIR:-target}
VENV=${VENV:-$TARGET/torch-venv}
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import torch' 2>/dev/null; then
  python3 -m venv "$VENV"
  # The PyPI wheel without its CUDA libraries (--no-deps): the CPU is all
  # this benchmark uses, and it saves gigabytes.
  "$VENV/bin/pip" install --quiet --no-deps torch
  "$VENV/bin/pip" install --quiet numpy safetensors filelock typing-extensions sympy networkx jinja2 fsspec
fi
cargo build --release --quiet -p lokizero
bin=$TARGET/release/lokizero
variants=("$@"); [ ${#variants[@]} -gt 0 ] || variants=(losers hnefatafl)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for v in "${variants[@]}"; do
  echo "== $v (batch $BATCH, $THREADS threads, $ROUNDS alternating rounds of ${SECONDS_PER}s)"
  # The shipped bundle when there is one (the network training starts from),
  # else a fresh network of the config's size.
  model=(); [ -f "models/$v/model.safetensors" ] && model=(--model "models/$v")
  "$bin" bench --variant "$v" "${model[@]}" --what none --export-bundle "$work/$v" --reference-out "$work/$v.json" >/dev/null
  : >"$work/rates"
  for _ in $(seq "$ROUNDS"); do
    for backend in $BACKENDS; do
      RAYON_NUM_THREADS=$THREADS "$bin" bench --variant "$v" --model "$work/$v" --what train \
          --train-backend "$backend" --train-batch "$BATCH" --seconds "$SECONDS_PER" |
        tee /dev/stderr |
        sed -n 's/^training (\([a-z]*\)) batch *[0-9]*: *\([0-9.]*\) samples\/s, \([0-9.]*\) cores.*/\1 \2 \3/p' >>"$work/rates"
    done
    OMP_NUM_THREADS=$THREADS "$VENV/bin/python" scripts/torch_train_reference.py "$work/$v" "$work/$v.json" "$THREADS" "$SECONDS_PER" "$BATCH" |
      tee /dev/stderr |
      sed -n 's/^pytorch training batch *[0-9]*: *\([0-9.]*\) samples\/s, \([0-9.]*\) cores.*/pytorch \1 \2/p' >>"$work/rates"
  done
  # Per runtime: min / median / max samples/s over the rounds, median cores;
  # the ratio of medians against PyTorch.
  sort -k1,1 -k2n "$work/rates" | awk '
    { r[$1, ++n[$1]] = $2; c[$1, n[$1]] = $3 }
    END {
      for (k in n) { m = n[k]; med[k] = r[k, int((m + 1) / 2)] }
      for (k in n) {
        m = n[k]; split("", cs); for (i = 1; i <= m; i++) cs[i] = c[k, i]
        asort(cs); printf "%-8s samples/s min %7.0f  median %7.0f  max %7.0f  cores used (median) %.2f", k, r[k, 1], med[k], r[k, m], cs[int((m + 1) / 2)]
        if (k != "pytorch" && ("pytorch" in med)) printf "  ratio to pytorch (medians) %.2f", med[k] / med["pytorch"]
        printf "\n"
      }
    }' | sort
done
