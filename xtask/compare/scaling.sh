#!/usr/bin/env bash
# Issue 18's whole-command measurements, on this machine, in one run (the history of BENCHMARKS.md up to 10b845e, "Ahead
# of the peers per core"):
#   - ChessBase -> PGN: `chessfmt cbh export` against cbvault 0.1.6 (`--example
#     cbvault_export`) on 611,700 games (twic1134's records repeated 100 times, `--example
#     repeat_database`), on 1 thread and on all cores, the programs alternating; the
#     main-line walk of both (`--example cbvault_walk`);
#   - PGN-driven builds on 1 core and on all cores: `chessfmt ctg build` and `chessfmt
#     kvetka build` (taskset, and as many worker threads as cores), books compared across
#     core counts;
#   - what the machine itself allows: two independent one-core CTG builds at once, one on
#     each of the first two cores, against one alone (the slow-down of the pair is what
#     sharing the machine's caches and memory costs, a ceiling on any 2-core speed-up).
# Set COMPARE_RUNS=N for more alternating runs (default 2). Needs ../shared/corpus.
source "$(dirname "$0")/lib/common.sh"
twic=$corpus/chessbase/uncbv-tests/twic1134/twic1134.cbh
need "$twic" "$gnuchess_pgn_xz"
runs=${COMPARE_RUNS:-2}
cores=$(nproc)
build_release chessbase-db

machine_line
"$ex/repeat_database" "$twic" 100 "$work/db" >/dev/null
db=$(ls "$work"/db/*.cbh)
for r in $(seq "$runs"); do
    for t in 1 "$cores"; do
        echo "== run $r, $t thread(s): chessfmt cbh export, then cbvault export_parallel"
        timer "$bin" cbh export "$db" --threads "$t" >/dev/null
        timer "$ex/cbvault_export" "$db" "$t" >/dev/null
    done
    echo "== run $r: main-line walk, ours then cbvault's"
    timer "$ex/cbvault_walk" "$db" ours
    timer "$ex/cbvault_walk" "$db" cbvault
done

gnuchess_pgn "$work/book.pgn"
for r in $(seq "$runs"); do
    for t in 1 "$cores"; do
        echo "== run $r: ctg build, $t core(s)"
        RAYON_NUM_THREADS=$t timer taskset -c "0-$((t - 1))" "$bin" ctg build "$work/book.pgn" -o "$work/ctg$t.ctg" --force
        echo "== run $r: kvetka build, $t core(s)"
        timer taskset -c "0-$((t - 1))" "$bin" kvetka build "$work/book.pgn" -o "$work/kv$t.kob" --force
    done
done
if [ "$cores" -ge 2 ]; then
    for r in $(seq "$runs"); do
        echo "== run $r: one 1-core ctg build alone, then two at once (cores 0 and 1)"
        timer taskset -c 0 "$bin" ctg build "$work/book.pgn" -o "$work/solo.ctg" --force
        timer taskset -c 0 "$bin" ctg build "$work/book.pgn" -o "$work/pair0.ctg" --force &
        timer taskset -c 1 "$bin" ctg build "$work/book.pgn" -o "$work/pair1.ctg" --force
        wait
    done
fi
for e in ctg cto ctb; do cmp "$work/ctg1.$e" "$work/ctg$cores.$e"; done && echo "ctg books byte-identical across core counts"
for f in "$work"/kv1*; do cmp "$f" "${f/kv1/kv$cores}"; done && echo "kvetka books byte-identical across core counts"
