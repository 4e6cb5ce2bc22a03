#!/usr/bin/env bash
# Side-by-side training throughput: lokizero's training step (each backend
# in BACKENDS: the hand-written fast path and burn flex + autodiff) vs
# PyTorch CPU on the very same network and weights, batch BATCH, THREADS
# threads each, in alternating rounds in one run (as scripts/bench-onnx.sh
# does for inference). Prints samples/s and the CPU cores each kept busy
# (process CPU time / wall time of the timed loop).
# Usage: scripts/bench-train-torch.sh [VARIANT...]   (default: losers hnefatafl)
# Knobs: THREADS (2), BATCH (256), ROUNDS (3), SECONDS_PER (5), BACKENDS
# ("fast burn"), VENV (target/torch-venv).
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
  # PyPI's wheel (download.pytorch.org's CPU-only index may be
  # unreachable); it pulls CUDA libraries that this CPU benchmark never
  # loads beyond torch's start-up.
  "$VENV/bin/pip" install --quiet torch numpy safetensors
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
        tee -a /dev/stderr |
        sed -n 's/^training (\([a-z]*\)) batch *[0-9]*: *\([0-9.]*\) samples\/s, \([0-9.]*\) cores.*/\1 \2 \3/p' >>"$work/rates"
    done
    OMP_NUM_THREADS=$THREADS "$VENV/bin/python" scripts/torch_train_reference.py "$work/$v" "$work/$v.json" "$THREADS" "$SECONDS_PER" "$BATCH" |
      tee -a /dev/stderr |
      sed -n 's/^pytorch training batch *[0-9]*: *\([0-9.]*\) samples\/s, \([0-9.]*\) cores.*/pytorch \1 \2/p' >>"$work/rates"
  done
  # Per runtime: min / median / max samples/s over the rounds, median
  # cores used; the ratio of the medians against PyTorch.
  "$VENV/bin/python" - "$work/rates" <<'PY'
import statistics, sys
rates = {}
for line in open(sys.argv[1]):
    name, rate, cores = line.split()
    rates.setdefault(name, []).append((float(rate), float(cores)))
torch = statistics.median(r for r, _ in rates.get("pytorch", [(float("nan"), 0)]))
for name, runs in sorted(rates.items()):
    r = sorted(x for x, _ in runs)
    med = statistics.median(r)
    cores = statistics.median(c for _, c in runs)
    # Samples per CPU-second: the rate per busy core, which a loaded
    # machine disturbs less than the rate itself.
    per_cpu = statistics.median(x / c for x, c in runs if c > 0)
    ratio = "" if name == "pytorch" else f"  ratio to pytorch (medians) {med / torch:.2f}"
    print(f"{name:8} samples/s min {r[0]:7.0f}  median {med:7.0f}  max {r[-1]:7.0f}  cores used (median) {cores:.2f}  samples per CPU-second (median) {per_cpu:.0f}{ratio}")
PY
done
