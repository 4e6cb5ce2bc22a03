#!/usr/bin/env bash
# Perft speed of the lokizero chess move generator against Fairy-Stockfish.
#
#   scripts/bench-perft.sh            # all positions
#   QUICK=1 scripts/bench-perft.sh    # start positions only
#
# Losers: same position and depth in both engines (FSF's built-in `losers`).
# Viking: our viking perft vs FSF's *chess* start position `go perft 6`
# (Debian's FSF 11.1 miscounts viking, see configs/fairy-stockfish/README.md).
# FSF time is wall time around one `go perft` (process start included; the
# depths are chosen so that this is small). Results are noisy on a shared
# machine: run twice and compare.
set -euo pipefail
cd "$(dirname "$0")/.."

FSF=/usr/games/fairy-stockfish
if [ ! -x "$FSF" ]; then
    apt-get install -y fairy-stockfish >/dev/null
fi

export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}"
cargo build --release -q -p rules --example perft
OURS="$CARGO_TARGET_DIR/release/examples/perft"

# fsf VARIANT POSITION DEPTH -> "nodes seconds"
fsf() {
    local start end out
    start=$(date +%s.%N)
    # `go perft` runs synchronously in FSF's UCI loop; end of input then quits.
    out=$(printf 'uci\nsetoption name UCI_Variant value %s\n%s\ngo perft %s\n' "$1" "$2" "$3" \
          | "$FSF" 2>/dev/null | grep -m1 'Nodes searched' | awk '{print $3}')
    end=$(date +%s.%N)
    echo "$out $(echo "$end - $start" | bc -l)"
}

# ours VARIANT FEN DEPTH -> "nodes seconds"
ours() {
    local out
    if [ -z "$2" ]; then
        out=$("$OURS" --variant "$1" --depth "$3")
    else
        out=$("$OURS" --variant "$1" --fen "$2" --depth "$3")
    fi
    echo "$(echo "$out" | awk '/^nodes/{print $2}') $(echo "$out" | awk '/^seconds/{print $2}')"
}

row() { # label ours_nodes ours_s fsf_nodes fsf_s
    local onps fnps
    onps=$(echo "$2 / $3" | bc -l)
    fnps=$(echo "$4 / $5" | bc -l)
    printf "%-34s ours %11d nodes %7.3fs %7.1f Mn/s | fsf %11d nodes %7.3fs %6.2f Mn/s | ratio %6.1fx\n" \
        "$1" "$2" "$3" "$(echo "$onps/1000000" | bc -l)" "$4" "$5" "$(echo "$fnps/1000000" | bc -l)" \
        "$(echo "$onps / $fnps" | bc -l)"
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "== losers (same position and depth) =="
losers_positions=(
    "startpos|rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1|6"
)
if [ -z "${QUICK:-}" ]; then
    losers_positions+=(
        "ep_available|r1bq1bnr/4p1p1/1p1pk3/p5Pp/2P5/1PN4P/P1P2KP1/R1BQ1B1R w - h6 0 14|8"
        "castling_available|r3k1n1/4p3/b4n2/p1p5/8/PPN5/1BP2K2/1R6 b q - 1 20|6"
        "in_check|8/8/8/1k5p/7P/2N3P1/3K4/8 b - - 1 48|8"
        "promotion_available|8/7P/8/3p4/k7/1p6/5K2/8 w - - 1 85|7"
        "forced_capture|rnb1kbnr/2qp1ppp/1p2p3/p7/P1P5/1P6/3PPPPP/R1BQKBNR b KQkq - 0 6|7"
        "near_bare_king|6k1/8/8/2R5/5p2/3K1B2/3N3P/6NR b - - 14 29|7"
        "near_promotion|7N/8/8/8/8/1k1K4/2p5/8 b - - 1 59|7"
        "low_material|5N2/8/8/8/4P3/p7/1k6/4K3 b - - 5 43|7"
    )
fi
for entry in "${losers_positions[@]}"; do
    IFS='|' read -r name fen depth <<<"$entry"
    read -r on os <<<"$(ours losers "$fen" "$depth")"
    read -r fn fs <<<"$(fsf losers "position fen $fen" "$depth")"
    if [ "$on" != "$fn" ]; then echo "MISMATCH $name: ours $on fsf $fn"; fi
    row "losers $name d$depth" "$on" "$os" "$fn" "$fs"
done

echo "== viking (ours) vs FSF chess start position perft 6 =="
read -r cn cs <<<"$(fsf chess "position startpos" 6)"
viking_positions=("startpos||6")
if [ -z "${QUICK:-}" ]; then
    viking_positions+=(
        "in_check|12/12/R11/1P1P8/1P2P1kpppp1/B1N1K5p1/5b1R2b1 w - - 1 21|6"
        "many_captures|10r1/12/7R4/1rP1Pp1p1p2/1P1PPQP1p3/1P3n1pnqp1/1BK1BP1b1kb1 b - - 2 24|5"
        "late_game|3Nq1B3B1/10n1/5P1P1p2/2K5k3/1P5p4/1P8p1/1R9n w - - 11 92|5"
    )
fi
for entry in "${viking_positions[@]}"; do
    IFS='|' read -r name fen depth <<<"$entry"
    read -r on os <<<"$(ours viking "$fen" "$depth")"
    row "viking $name d$depth vs chess d6" "$on" "$os" "$cn" "$cs"
done
