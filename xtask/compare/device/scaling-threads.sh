#!/usr/bin/env bash
# Issue 18's per-thread scaling tables (1, 2, 4, 8, 16 threads, those the machine has cores
# for) from prebuilt binaries, so that it runs where there is no Rust toolchain: the lent
# 16-core device machine. Every job runs pinned to its first N cores (`taskset`) with N
# worker threads, the peers alternating with ours:
#   - `chessfmt cbh export` against cbvault 0.1.6 on 611,700 games (twic1134 x100), and the
#     main-line walk of both (one thread);
#   - `chessfmt polyglot build`, `ctg build`, `kvetka build` on gnuchess `book_1.02.pgn`
#     (and on it repeated 12 times, 1 GB, with BIG=1), books compared across thread counts;
#   - `chessfmt selfplay validate` on a file montyformat wrote (`monty_generate`), and
#     montyformat's own read of it (`monty_read`, one thread).
#
# usage: scaling-threads.sh KIT [THREADS...]
#   KIT: a folder made by `xtask/compare/device/device-kit.sh` (stripped binaries and the inputs);
#   THREADS: default 1 2 4 8 16 (those above the number of cores are left out).
# env: BIG=1 (the 1 GB builds too), MONTY_GAMES (default 100000), WORK (scratch folder,
#   default a temporary one; needs about 2 GB with BIG=1).
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
"$kit/repeat_database" "$kit/twic1134/twic1134.cbh" 100 "$work/db" >>"$work/log"
db=$(ls "$work"/db/*.cbh)
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
"$kit/monty_generate" "$work/monty.bin" "${MONTY_GAMES:-100000}" >>"$work/log"

for t in "${threads[@]}"; do
    echo "== $t thread(s)"
    timed "cbh export, chessfmt" pin "$t" "$bin" cbh export "$db" --threads "$t" -o /dev/null
    timed "cbh export, cbvault" pin "$t" "$kit/cbvault_export" "$db" "$t"
    if [ "$t" = 1 ]; then
        timed "main-line walk, chessfmt" pin 1 "$kit/cbvault_walk" "$db" ours
        timed "main-line walk, cbvault" pin 1 "$kit/cbvault_walk" "$db" cbvault
        timed "selfplay read, montyformat" pin 1 "$kit/monty_read" "$work/monty.bin"
    fi
    timed "selfplay validate, chessfmt" pin "$t" "$bin" selfplay validate "$work/monty.bin" --threads "$t"
    for input in "${inputs[@]}"; do
        pgn=$work/$input.pgn
        timed "polyglot build $input" pin "$t" "$bin" polyglot build "$pgn" -o "$work/pg-$input-$t.bin" --threads "$t" --force
        timed "ctg build $input" env RAYON_NUM_THREADS="$t" taskset -c "0-$((t - 1))" "$bin" ctg build "$pgn" -o "$work/ctg-$input-$t.ctg" --force
        timed "kvetka build $input" env RAYON_NUM_THREADS="$t" taskset -c "0-$((t - 1))" "$bin" kvetka build "$pgn" -o "$work/kv-$input-$t.kob" --force
    done
done

first=${threads[0]}
for t in "${threads[@]:1}"; do
    for input in "${inputs[@]}"; do
        cmp "$work/pg-$input-$first.bin" "$work/pg-$input-$t.bin"
        for e in ctg cto ctb; do cmp "$work/ctg-$input-$first.$e" "$work/ctg-$input-$t.$e"; done
        for f in "$work"/kv-"$input"-"$first"[._]*; do cmp "$f" "${f/kv-$input-$first/kv-$input-$t}"; done
    done
done
echo "books byte-identical across thread counts"
