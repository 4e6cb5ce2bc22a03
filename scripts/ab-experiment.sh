#!/usr/bin/env bash
# A/B experiment at equal CPU time (docs/experiments.md): each arm's
# config (configs/experiments/ab-<arm>.toml) is trained with each seed
# (`--set seed=N`) until the run has used CPU_BUDGET CPU-seconds
# (`--cpu-budget`), then every final bundle meets every other in one
# ladder (same search for all: PUCT with LADDER_NODES simulations) and the
# EXTRA players (fixed anchors, e.g. "uct:400") in one ladder, and a
# per-arm summary is printed.
#
# Usage: scripts/ab-experiment.sh OUT
# Environment (defaults in brackets):
#   BIN [target/release/lokizero]  ARMS ["puct48 gumbel16 cap"]
#   SEEDS ["1 2 3"]  CPU_BUDGET [480]  LADDER_GAMES [10]  LADDER_NODES [32]
#   VARIANT [shakti] (the arms' variant)  EXTRA [""] (more ladder players)
# Re-running resumes: finished runs stop at once (their budget is spent).
set -eu
OUT=${1:?usage: $0 OUT}
BIN=${BIN:-target/release/lokizero}
ARMS=${ARMS:-puct48 gumbel16 cap}
SEEDS=${SEEDS:-1 2 3}
CPU_BUDGET=${CPU_BUDGET:-480}
LADDER_GAMES=${LADDER_GAMES:-10}
LADDER_NODES=${LADDER_NODES:-32}
VARIANT=${VARIANT:-shakti}
EXTRA=${EXTRA:-}
mkdir -p "$OUT"

bundles=()
for seed in $SEEDS; do
  for arm in $ARMS; do
    name="$arm-s$seed"
    echo "== $name: training until $CPU_BUDGET CPU-seconds"
    # The run directory's config.toml records the config with the seed.
    "$BIN" train --config "configs/experiments/ab-$arm.toml" --set "seed=$seed" \
      --run-dir "$OUT/runs/$name" --cpu-budget "$CPU_BUDGET" --quiet >"$OUT/$name.log" 2>&1
    last=$(ls -d "$OUT/runs/$name"/checkpoints/gen-* | sort | tail -1)
    bundles+=("bundle:$last")
    tail -1 "$OUT/$name.log"
  done
done

echo "== ladder: ${#bundles[@]} bundles $EXTRA, $LADDER_GAMES games per pair, $LADDER_NODES simulations"
# shellcheck disable=SC2086 # EXTRA is a list of player specs
"$BIN" ladder --variant "$VARIANT" --out "$OUT/ladder" --games "$LADDER_GAMES" \
  --nodes "$LADDER_NODES" "${bundles[@]}" $EXTRA >"$OUT/ladder.log" 2>&1
cat "$OUT/ladder/ladder.md"

# Per-arm summary: generations, games and CPU-seconds of each run, and the
# mean ladder rating of the arm's bundles.
python3 - "$OUT" <<'PY'
import json, sys, pathlib, collections
out = pathlib.Path(sys.argv[1])
ladder = json.loads((out / "ladder" / "ladder.json").read_text())
ratings = dict(zip(ladder["names"], ladder["ratings"]))
arms = collections.defaultdict(list)
print("\n| run | generations | games | CPU-s | rating [95% interval] |")
print("|---|---:|---:|---:|---|")
for run in sorted((out / "runs").iterdir()):
    lines = [json.loads(l) for l in (run / "metrics.jsonl").read_text().splitlines() if l.strip()]
    last = lines[-1]
    bundle = next(n for n in ratings if f"/runs/{run.name}/" in n)
    r = ratings[bundle]
    arms[run.name.rsplit("-s", 1)[0]].append(r["elo"])
    print(f"| {run.name} | {last['generation']} | {sum(l['games'] for l in lines)} | "
          f"{last['cpu_seconds_total']:.0f} | {r['elo']:+.0f} [{r['lower']:+.0f}, {r['upper']:+.0f}] |")
print("\n| arm | runs | mean rating | seed spread (min..max) |")
print("|---|---:|---:|---|")
for arm, elos in sorted(arms.items()):
    print(f"| {arm} | {len(elos)} | {sum(elos)/len(elos):+.0f} | {min(elos):+.0f}..{max(elos):+.0f} |")

# Arm against arm, pooled over every cross-arm pair of the ladder: W/D/L
# and the Elo of the score with a normal 95 % interval from the per-game
# variance (games are not independent of the seed, so this interval
# understates the seed-to-seed spread shown above).
import math, re
pooled = collections.defaultdict(lambda: [0, 0, 0])
arm_of = lambda name: re.search(r"/runs/(.+)-s\d+/", name).group(1)
for line in (out / "ladder" / "ladder.md").read_text().splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) != 7 or not all(c.startswith("`bundle:") for c in cells[:2]):
        continue
    a, b = arm_of(cells[0]), arm_of(cells[1])
    wa, d, wb = int(cells[2]), int(cells[3]), int(cells[4])
    if a == b:
        continue
    if a > b:
        a, b, wa, wb = b, a, wb, wa
    pooled[(a, b)][0] += wa; pooled[(a, b)][1] += d; pooled[(a, b)][2] += wb
elo = lambda p: -400 * math.log10(1 / p - 1) if 0 < p < 1 else math.copysign(math.inf, p - 0.5)
print("\n| A vs B (pooled) | +A =D +B | score A | Elo A-B [95 %] |")
print("|---|---|---:|---|")
for (a, b), (w, d, l) in sorted(pooled.items()):
    n = w + d + l
    sc = (w + 0.5 * d) / n
    se = math.sqrt((w * (1 - sc) ** 2 + d * (0.5 - sc) ** 2 + l * sc ** 2) / n / n)
    print(f"| {a} vs {b} | +{w} ={d} -{l} | {sc:.3f} | {elo(sc):+.0f} [{elo(sc - 1.96 * se):+.0f}, {elo(sc + 1.96 * se):+.0f}] |")
PY
