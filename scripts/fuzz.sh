#!/usr/bin/env bash
# Run every libFuzzer target (fuzz/, cargo-fuzz) for SECONDS each, one at a
# time, at the lowest CPU priority; prints libFuzzer's final stats.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      (default 60 s, all targets)
#
# cargo-fuzz needs nightly flags (-Zsanitizer); on a stable toolchain
# RUSTC_BOOTSTRAP=1 allows them. Crashes land in fuzz/artifacts/TARGET/;
# the growing corpus in fuzz/corpus/TARGET/ (seeded from fuzz/seeds/).
# Logs: fuzz/logs/TARGET.log. Exit status 1 if any target found a crash.
# The targets are built once (`cargo fuzz build`; the burn-dependent ones
# need the `pipeline` feature, whose first build compiles burn with
# sanitizer flags: long) and then run directly, so a run never waits on a
# build lock. FUZZ_BUILD=0 skips the build step.
# FUZZ_SANITIZER (default `none`): cargo-fuzz's sanitizer. The code under
# test is safe Rust, where libFuzzer itself catches what matters (panics,
# aborts, out-of-memory, timeouts); `address` also instruments burn and
# took over 45 minutes to build on 2 cores, `none` 31 minutes.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
seconds="${1:-60}"
shift || true
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
    targets=(position_text action_text run_config bundle_meta replay_chunk uci_command)
fi
command -v cargo-fuzz >/dev/null || { echo "cargo-fuzz missing: cargo install cargo-fuzz" >&2; exit 2; }
export RUSTC_BOOTSTRAP=1
sanitizer="${FUZZ_SANITIZER:-none}"
triple="$(rustc -vV | sed -n 's/^host: //p')"
features=()
for t in "${targets[@]}"; do
    case "$t" in run_config|bundle_meta|replay_chunk|uci_command) ;; *) continue ;; esac
    features=(pipeline)
done
if [ "${FUZZ_BUILD:-1}" != 0 ]; then
    if [ ${#features[@]} -eq 0 ]; then
        nice -n 19 cargo fuzz build -s "$sanitizer" --no-default-features "${targets[@]}"
    else
        for t in "${targets[@]}"; do nice -n 19 cargo fuzz build -s "$sanitizer" "$t"; done
    fi
fi
mkdir -p logs
failed=0
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t" "artifacts/$t"
    echo "== $t: ${seconds}s"
    if nice -n 19 "target/$triple/release/$t" "corpus/$t" "seeds/$t" \
        -max_total_time="$seconds" -print_final_stats=1 -rss_limit_mb=4096 \
        -artifact_prefix="artifacts/$t/" > "logs/$t.log" 2>&1; then
        grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "logs/$t.log" || true
        grep -E '^#[0-9]+ +DONE' "logs/$t.log" | tail -1 || true
    else
        echo "!! $t failed; see fuzz/logs/$t.log and fuzz/artifacts/$t/"
        tail -20 "logs/$t.log"
        failed=1
    fi
done
exit $failed
