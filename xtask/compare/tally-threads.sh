#!/usr/bin/env bash
# Issue 34's two-thread target for the tally (1.85x from 1 to 2 threads on the 343 MB PGN,
# gnuchess book_1.02.pgn four times over), with the machine's own ceiling measured in the same
# rounds, since a shared VM drifts by more than the gap within minutes. Each round runs:
#   - `chessfmt tally` with one thread on core 0 alone;
#   - two such tallies at once, on cores 0 and 1 (what sharing the machine's caches, memory
#     and host costs: their two speeds summed are the ceiling of any 2-core speed-up);
#   - `chessfmt tally` with two threads on cores 0 and 1.
# and prints wall, CPU share ((user + system) / wall) and peak RSS of each, the round's
# ceiling and speed-up; the tables must be byte-identical at both thread counts.
# COMPARE_RUNS=N rounds (default 3); TALLY_COPIES=N copies of the PGN (default 4). Pass
# another chessfmt binary as $1 to run it too in every round. Needs ../shared/corpus.
set -euo pipefail
cd "$(dirname "$0")/../.."
pgn=../shared/corpus/polyglot/pgn/gnuchess-book_1.02.pgn.xz
[ -f "$pgn" ] || { echo "compare: ../shared/corpus absent, skipped"; exit 0; }
[ "$(nproc)" -ge 2 ] || { echo "compare: one core, no two-thread run: skipped"; exit 0; }
runs=${COMPARE_RUNS:-3}
copies=${TALLY_COPIES:-4}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo build --release --locked -q -p chessfmt
bins=("$PWD/target/release/chessfmt")
[ $# -ge 1 ] && bins+=("$(realpath "$1")")
xz -dc "$pgn" > "$work/one.pgn"
for _ in $(seq "$copies"); do cat "$work/one.pgn"; done > "$work/big.pgn"
rm "$work/one.pgn"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%F)"
echo "input: gnuchess book_1.02.pgn x $copies, $(stat -c %s "$work/big.pgn") bytes"
# tally LABEL BIN THREADS CORES OUT: runs one tally, leaves "wall user system peak" in
# $work/LABEL.
tally() {
    RAYON_NUM_THREADS=$3 /usr/bin/time -f "%e %U %S %M" -o "$work/$1" \
        taskset -c "$4" "$2" tally "$work/big.pgn" -o "$5" --threads "$3" --force >/dev/null 2>&1
}
show() { # label
    read -r wall user sys peak < "$work/$1"
    awk -v l="$1" -v w="$wall" -v u="$user" -v s="$sys" -v p="$peak" \
        'BEGIN { printf "  %-8s %7.2f s wall, CPU share %.2f, %5.0f MB peak\n", l, w, (u + s) / w, p / 1024 }'
}
wall() { cut -d' ' -f1 < "$work/$1"; }
for r in $(seq "$runs"); do
    for b in "${bins[@]}"; do
        echo "== round $r, $b"
        tally solo "$b" 1 0 "$work/one.parquet"
        tally pair-a "$b" 1 0 "$work/a.parquet" &
        tally pair-b "$b" 1 1 "$work/b.parquet"
        wait
        tally two "$b" 2 0-1 "$work/two.parquet"
        for l in solo pair-a pair-b two; do show "$l"; done
        awk -v s="$(wall solo)" -v a="$(wall pair-a)" -v b="$(wall pair-b)" -v t="$(wall two)" \
            'BEGIN { printf "  ceiling %.2fx (the pair'"'"'s speeds summed), 1 -> 2 threads %.2fx\n", s / a + s / b, s / t }'
        cmp -s "$work/one.parquet" "$work/two.parquet" \
            || { echo "the tables differ between 1 and 2 threads"; exit 1; }
    done
done
