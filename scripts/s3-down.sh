#!/usr/bin/env bash
# Stop the S3 server scripts/s3-up.sh DIR started and delete DIR (its data
# lived in memory). Safe to run twice.
set -uo pipefail
dir=${1:?usage: s3-down.sh DIR}
[[ -e $dir/pids ]] || { rm -rf "$dir"; exit 0; }
# Gateway first, the monitor last (reverse start order).
for pid in $(tac "$dir/pids"); do kill "$pid" 2>/dev/null; done
for pid in $(cat "$dir/pids"); do
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null
done
rm -rf "$dir"
