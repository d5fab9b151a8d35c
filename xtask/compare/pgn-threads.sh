#!/usr/bin/env bash
# Issue 34's two-thread target for the PGN builds (1.85x from 1 to 2 threads on the 343 MB
# PGN, gnuchess book_1.02.pgn four times over: Polyglot, CTG, Kvetka and the tally), with the
# machine's own ceiling measured in the same rounds, since a shared VM drifts by more than the
# gap within minutes. Each round runs, for each build:
#   - the build with one thread on core 0 alone;
#   - two such builds at once, on cores 0 and 1 (what sharing the machine's caches, memory
#     and host costs: their two speeds summed are the ceiling of any 2-core speed-up);
#   - the build with two threads on cores 0 and 1.
# and prints wall, CPU share ((user + system) / wall) and peak RSS of each, the round's
# ceiling and speed-up; the outputs must be byte-identical at both thread counts.
# COMPARE_RUNS=N rounds (default 3); PGN_COPIES=N copies of the PGN (default 4);
# BUILDS="polyglot ctg kvetka tally" (the default) or a part of it. Pass another chessfmt
# binary as $1 to run it too in every round. Needs ../shared/corpus.
source "$(dirname "$0")/lib/common.sh"
need "$gnuchess_pgn_xz"
[ "$(nproc)" -ge 2 ] || { echo "compare: one core, no two-thread run: skipped"; exit 0; }
runs=${COMPARE_RUNS:-3}
copies=${PGN_COPIES:-4}
build_release
chessfmt_bins "$@"
gnuchess_pgn "$work/one.pgn"
for _ in $(seq "$copies"); do cat "$work/one.pgn"; done > "$work/big.pgn"
rm "$work/one.pgn"
machine_line
echo "input: gnuchess book_1.02.pgn x $copies, $(stat -c %s "$work/big.pgn") bytes"
# build LABEL BIN THREADS CORES BUILD: runs one build into $work/LABEL/, leaves "wall user
# system peak" in $work/LABEL.time.
build() {
    local out verb
    rm -rf "${work:?}/$1" && mkdir "$work/$1"
    case $5 in
        polyglot) verb=(polyglot build); out=book.bin ;;
        ctg) verb=(ctg build); out=book.ctg ;;
        kvetka) verb=(kvetka build); out=book.kob ;;
        tally) verb=(tally); out=table.parquet ;;
        *) echo "unknown build $5"; exit 2 ;;
    esac
    RAYON_NUM_THREADS=$3 /usr/bin/time -f "%e %U %S %M" -o "$work/$1.time" \
        taskset -c "$4" "$2" "${verb[@]}" "$work/big.pgn" -o "$work/$1/$out" >/dev/null 2>&1
}
show() { # label
    read -r wall user sys peak < "$work/$1.time"
    awk -v l="$1" -v w="$wall" -v u="$user" -v s="$sys" -v p="$peak" \
        'BEGIN { printf "  %-8s %7.2f s wall, CPU share %.2f, %5.0f MB peak\n", l, w, (u + s) / w, p / 1024 }'
}
wall() { cut -d' ' -f1 < "$work/$1.time"; }
for r in $(seq "$runs"); do
    for b in "${bins[@]}"; do
        for job in ${BUILDS:-polyglot ctg kvetka tally}; do
            echo "== round $r, $job, $b"
            build solo "$b" 1 0 "$job"
            build pair-a "$b" 1 0 "$job" &
            build pair-b "$b" 1 1 "$job"
            wait
            build two "$b" 2 0-1 "$job"
            for l in solo pair-a pair-b two; do show "$l"; done
            awk -v s="$(wall solo)" -v a="$(wall pair-a)" -v b="$(wall pair-b)" -v t="$(wall two)" \
                'BEGIN { printf "  ceiling %.2fx (the pair'"'"'s speeds summed), 1 -> 2 threads %.2fx\n", s / a + s / b, s / t }'
            diff -r "$work/solo" "$work/two" >/dev/null \
                || { echo "the outputs differ between 1 and 2 threads"; exit 1; }
        done
    done
done
