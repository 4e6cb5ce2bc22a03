#!/usr/bin/env bash
# Train several variants side by side on one many-core machine, each with a
# share of the cores and a wall-time budget, then play each final bundle
# against uniform random (both colours) and collect everything in OUT.
#
# The main job is resumable, so the training budget is enforced by killing
# it (`timeout`): only the generation in flight is lost, every completed
# generation stays. Evaluation runs in small batches of games so a budget
# cut still leaves the batches already played.
#
# Usage: scripts/parallel-train-eval.sh OUT [variant...]
# Environment (defaults in brackets):
#   BIN [target/release/lokizero]   THREADS per variant [8]
#   TRAIN_SECS [330]  GENERATIONS [20]  EVAL_SECS [150]
#   EVAL_GAMES [100]  EVAL_BATCH [20]   EVAL_SIMS [64]
#   RUNS [$OUT/runs]  where the run directories live; each is also packed
#                     into OUT/<variant>-run.tar.gz (one file to copy back)
#   SELFPLAY_SED  an extra sed script applied to each variant's config,
#                 e.g. 's/^simulations = .*/simulations = 48/'
set -u
OUT=${1:?usage: $0 OUT [variant...]}
shift
VARIANTS=${*:-hnefatafl loki}
BIN=${BIN:-target/release/lokizero}
THREADS=${THREADS:-8}
TRAIN_SECS=${TRAIN_SECS:-330}
GENERATIONS=${GENERATIONS:-20}
EVAL_SECS=${EVAL_SECS:-150}
EVAL_GAMES=${EVAL_GAMES:-100}
EVAL_BATCH=${EVAL_BATCH:-20}
EVAL_SIMS=${EVAL_SIMS:-64}
SELFPLAY_SED=${SELFPLAY_SED:-}
RUNS=${RUNS:-$OUT/runs}
mkdir -p "$OUT" "$RUNS"
"$BIN" --version >"$OUT/version.txt" 2>&1 || { echo "cannot run $BIN"; exit 1; }
nproc >"$OUT/nproc.txt"

one_variant() {
  local v=$1 dir="$OUT/$v" cfg="$OUT/$v/config.toml"
  mkdir -p "$dir"
  # The repository config, with this machine's thread share.
  sed -e "s/^threads = .*/threads = $THREADS/" \
      -e "s/^generations = .*/generations = $GENERATIONS/" \
      -e "s/^\[selfplay\]/[selfplay]\nworkers = $(( THREADS / 2 > 0 ? THREADS / 2 : 1 ))/" \
      ${SELFPLAY_SED:+-e "$SELFPLAY_SED"} \
      "configs/$v.toml" >"$cfg"
  local t0=$SECONDS
  RAYON_NUM_THREADS=$THREADS timeout -s KILL "$TRAIN_SECS" \
    "$BIN" train --config "$cfg" --run-dir "$RUNS/$v" --quiet >"$dir/train.log" 2>&1
  echo "train exit $? after $((SECONDS - t0)) s" >>"$dir/train.log"
  tar czf "$OUT/$v-run.tar.gz" -C "$RUNS" "$v"
  cp "$RUNS/$v/metrics.jsonl" "$dir/" 2>/dev/null
  local last
  last=$(ls -d "$RUNS/$v"/checkpoints/gen-* 2>/dev/null | sort | tail -1)
  [ -n "$last" ] || { echo "$v: no checkpoint" >>"$dir/train.log"; return; }
  echo "$last" >"$dir/evaluated.txt"
  local deadline=$((SECONDS + EVAL_SECS)) played=0 seed=1
  while [ $played -lt "$EVAL_GAMES" ] && [ $SECONDS -lt $deadline ]; do
    RAYON_NUM_THREADS=$THREADS timeout -s KILL $((deadline - SECONDS)) \
      "$BIN" play --model "$last" --vs random --games "$EVAL_BATCH" \
      --nodes "$EVAL_SIMS" --concurrency "$THREADS" --seed $seed --json \
      >>"$dir/eval.jsonl" 2>>"$dir/eval.log" || break
    played=$((played + EVAL_BATCH)); seed=$((seed + 1))
  done
}

for v in $VARIANTS; do one_variant "$v" & done
wait
for v in $VARIANTS; do
  echo "== $v"; tail -2 "$OUT/$v/train.log"; cat "$OUT/$v/evaluated.txt" 2>/dev/null
  cat "$OUT/$v/eval.jsonl" 2>/dev/null
done
