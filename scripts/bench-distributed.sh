#!/usr/bin/env bash
# Self-play throughput of the distributed mode (docs/benchmarks.md,
# "Distributed self-play"): one worker against two worker processes on the
# same store, and one generation of the single-process `train` against a
# trainer with two workers. Needs an S3 server in the environment
# (scripts/s3-up.sh DIR; . DIR/env) and a release build.
#   scripts/bench-distributed.sh [CONFIG] [CHUNKS]
set -euo pipefail
cd "$(dirname "$0")/.."
config=${1:-configs/shakti.toml}
chunks=${2:-2}
bin=${LOKIZERO:-target/release/lokizero}
: "${AWS_ENDPOINT:?run scripts/s3-up.sh DIR and . DIR/env first}"
[[ -x $bin ]] || { echo "no $bin: cargo build --release (or set LOKIZERO)" >&2; exit 1; }
bucket=${AWS_BUCKET:-lokizero}
tmp=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT

# Positions in a store's replay/ (from the keys: ...-pN.bin).
positions() {
  "$bin" status --store "$1" --json | python3 -c 'import json,sys; print(sum(r[3] for r in json.load(sys.stdin)["replay"]))'
}

# N workers, each uploading $chunks chunks, against a trainer that only
# publishes generation 0 (the config's games_per_generation is not reached).
workers() {
  local n=$1 url="s3://$bucket/bench-$1w-$RANDOM$RANDOM"
  "$bin" train --store "$url" --config "$config" --trainer-only --quiet >"$tmp/t$n.log" 2>&1 &
  local trainer=$!
  until "$bin" status --store "$url" | grep -q "newest bundle"; do sleep 0.5; done
  local t0 pids=()
  t0=$(date +%s.%N)
  for i in $(seq "$n"); do
    "$bin" selfplay --store "$url" --worker "w$i" --max-chunks "$chunks" --quiet >/dev/null 2>"$tmp/w$n-$i.log" &
    pids+=($!)
  done
  wait "${pids[@]}"
  local t1 p
  t1=$(date +%s.%N)
  p=$(positions "$url")
  kill "$trainer"; wait "$trainer" 2>/dev/null || true
  python3 -c "print(f'$n worker(s): $p positions in {$t1 - $t0:.1f} s = {$p / ($t1 - $t0):.0f} positions/s')"
  "$bin" status --store "$url" | grep -E "^  w" || true
}

# One generation: the single-process train, then a trainer with 2 workers.
one_generation() {
  local t0 t1
  t0=$(date +%s.%N)
  "$bin" train --config "$config" --run-dir "$tmp/local" --generations 1 --quiet 2>/dev/null >/dev/null
  t1=$(date +%s.%N)
  python3 -c "print(f'train (one process, local run directory): 1 generation in {$t1 - $t0:.1f} s')"
  local url="s3://$bucket/bench-gen-$RANDOM$RANDOM"
  t0=$(date +%s.%N)
  "$bin" train --store "$url" --config "$config" --generations 1 --trainer-only --quiet >/dev/null 2>&1 &
  local trainer=$!
  "$bin" selfplay --store "$url" --worker a --quiet >/dev/null 2>&1 &
  "$bin" selfplay --store "$url" --worker b --quiet >/dev/null 2>&1 &
  wait
  t1=$(date +%s.%N)
  python3 -c "print(f'trainer + 2 workers (S3): 1 generation in {$t1 - $t0:.1f} s')"
}

nproc | sed 's/^/cores: /'
uptime
workers 1
workers 2
one_generation
