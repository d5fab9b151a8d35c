#!/usr/bin/env bash
# Issue 18's per-thread scaling tables (1, 2, 4, 8, 16 threads, those the machine has cores
# for) from prebuilt binaries, so that it runs where there is no Rust toolchain: the lent
# 16-core device machine. Every job runs pinned to its first N cores (`taskset`) with N
# worker threads, the peers alternating with ours:
#   - `chessfmt cbh export` against cbvault 0.1.6 on 611,700 games (twic1134 x100), and the
#     main-line walk of both (one thread);
#   - `chessfmt polyglot build`, `ctg build`, `kvetka build` and `tally` on gnuchess
#     `book_1.02.pgn` (and on it repeated 12 times, 1 GB, with BIG=1), books and tables
#     compared across thread counts; then the reduce: `tally merge` of that table with
#     itself, and `polyglot from-tally` of the two merged as they are read (job `merge`); with OLD, the same jobs by an older
#     chessfmt too, alternating, and its books compared with ours (not its tables: the
#     rows are the same, but two versions may cut the Parquet pages differently);
#   - `chessfmt selfplay validate` on a file montyformat wrote (`monty_generate`), and
#     montyformat's own read of it (`monty_read`, one thread).
#
# usage: scaling-threads.sh KIT [THREADS...]
#   KIT: a folder made by `xtask/compare/device/device-kit.sh` (stripped binaries and the inputs);
#   THREADS: default 1 2 4 8 16 (those above the number of cores are left out).
# env: BIG=1 (the 1 GB builds too), MONTY_GAMES (default 100000), WORK (scratch folder,
#   default a temporary one; needs about 2 GB with BIG=1), BUILDS_ONLY=1 (no export, no
#   self-play), OLD (the name of an older chessfmt binary in KIT to alternate with), JOBS
#   (the PGN jobs to run, of "polyglot ctg kvetka tally merge"; default all; merge needs
#   tally).
set -euo pipefail
kit=$(cd "${1:?usage: scaling-threads.sh KIT [THREADS...]}" && pwd)
shift
cores=$(nproc)
threads=()
for t in "${@:-1 2 4 8 16}"; do
    for n in $t; do
        [ "$n" -le "$cores" ] && threads+=("$n")
    done
done
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"
[ -n "${WORK:-}" ] || trap 'rm -rf "$work"' EXIT
bin=$kit/chessfmt
TIMEFORMAT='%R s wall, %U s user, %S s sys'
# `timed LABEL COMMAND...`: the command's own output goes to the log; the time is printed.
timed() {
    local label=$1
    shift
    local t
    t=$({ time "$@" >>"$work/log" 2>&1; } 2>&1)
    echo "$label: $t"
}
pin() { taskset -c "0-$(($1 - 1))" "${@:2}"; }

echo "machine: $cores cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(date -u +%F)"
echo "threads: ${threads[*]}"
builds_only=${BUILDS_ONLY:-0}
old=${OLD:+$kit/$OLD}
if [ "$builds_only" != 1 ]; then
    "$kit/repeat_database" "$kit/twic1134/twic1134.cbh" 100 "$work/db" >>"$work/log"
    db=$(ls "$work"/db/*.cbh)
fi
if command -v xz >/dev/null; then
    xz -dc "$kit/book.pgn.xz" >"$work/book.pgn"
else
    python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' \
        "$kit/book.pgn.xz" "$work/book.pgn"
fi
inputs=(book)
if [ "${BIG:-0}" = 1 ]; then
    for _ in $(seq 12); do cat "$work/book.pgn"; done >"$work/big.pgn"
    inputs+=(big)
fi
[ "$builds_only" = 1 ] || "$kit/monty_generate" "$work/monty.bin" "${MONTY_GAMES:-100000}" >>"$work/log"

jobs=" ${JOBS:-polyglot ctg kvetka tally merge} "
want() { [[ $jobs == *" $1 "* ]]; }

# `builds SUFFIX BINARY THREADS INPUT`: the PGN builds of one binary (SUFFIX: "" for ours,
# "-old" for OLD's, in the labels and the books' names).
builds() {
    local who=$1 b=$2 t=$3 input=$4
    local pgn=$work/$input.pgn
    if want polyglot; then
        timed "polyglot build $input$who" pin "$t" "$b" polyglot build "$pgn" -o "$work/pg-$input-$t$who.bin" --threads "$t" --force
    fi
    if want ctg; then
        timed "ctg build $input$who" env RAYON_NUM_THREADS="$t" taskset -c "0-$((t - 1))" "$b" ctg build "$pgn" -o "$work/ctg-$input-$t$who.ctg" --force
    fi
    if want kvetka; then
        timed "kvetka build $input$who" env RAYON_NUM_THREADS="$t" taskset -c "0-$((t - 1))" "$b" kvetka build "$pgn" -o "$work/kv-$input-$t$who.kob" --force
    fi
    if want tally; then
        timed "tally $input$who" pin "$t" "$b" tally "$pgn" -o "$work/t-$input-$t$who.parquet" --threads "$t" --force
    fi
    local table=$work/t-$input-$t$who.parquet
    if want merge && [ -e "$table" ]; then
        timed "tally merge $input$who" env RAYON_NUM_THREADS="$t" taskset -c "0-$((t - 1))" "$b" tally merge "$table" "$table" -o "$work/m-$input-$t$who.parquet" --force
        timed "polyglot from-tally x2 $input$who" env RAYON_NUM_THREADS="$t" taskset -c "0-$((t - 1))" "$b" polyglot from-tally "$table" "$table" -o "$work/f-$input-$t$who.bin" --force
    fi
}

for t in "${threads[@]}"; do
    echo "== $t thread(s)"
    if [ "$builds_only" != 1 ]; then
        timed "cbh export, chessfmt" pin "$t" "$bin" cbh export "$db" --threads "$t" -o /dev/null
        timed "cbh export, cbvault" pin "$t" "$kit/cbvault_export" "$db" "$t"
        if [ "$t" = 1 ]; then
            timed "main-line walk, chessfmt" pin 1 "$kit/cbvault_walk" "$db" ours
            timed "main-line walk, cbvault" pin 1 "$kit/cbvault_walk" "$db" cbvault
            timed "selfplay read, montyformat" pin 1 "$kit/monty_read" "$work/monty.bin"
        fi
        timed "selfplay validate, chessfmt" pin "$t" "$bin" selfplay validate "$work/monty.bin" --threads "$t"
    fi
    for input in "${inputs[@]}"; do
        [ -z "$old" ] || builds -old "$old" "$t" "$input"
        builds "" "$bin" "$t" "$input"
    done
done

first=${threads[0]}
same=yes
for t in "${threads[@]}"; do
    for input in "${inputs[@]}"; do
        pairs=("pg-$input-$first.bin pg-$input-$t.bin" "t-$input-$first.parquet t-$input-$t.parquet"
            "m-$input-$first.parquet m-$input-$t.parquet" "f-$input-$first.bin f-$input-$t.bin")
        for e in ctg cto ctb; do pairs+=("ctg-$input-$first.$e ctg-$input-$t.$e"); done
        for f in "$work"/kv-"$input"-"$first"[._]*; do
            f=${f##*/}
            pairs+=("$f ${f/kv-$input-$first/kv-$input-$t}")
        done
        if [ -n "$old" ]; then
            pairs+=("pg-$input-$t.bin pg-$input-$t-old.bin" "f-$input-$t.bin f-$input-$t-old.bin")
            for e in ctg cto ctb; do pairs+=("ctg-$input-$t.$e ctg-$input-$t-old.$e"); done
            for f in "$work"/kv-"$input"-"$t"[._]*; do
                f=${f##*/}
                pairs+=("$f ${f/kv-$input-$t/kv-$input-$t-old}")
            done
        fi
        for p in "${pairs[@]}"; do
            a=${p%% *} b=${p#* }
            # A job left out (JOBS) made neither.
            [ -e "$work/$a" ] || [ -e "$work/$b" ] || continue
            cmp -s "$work/$a" "$work/$b" || { echo "DIFFER: $a $b"; same=no; }
        done
    done
done
echo "books and tables byte-identical across thread counts${old:+ and binaries}: $same"
