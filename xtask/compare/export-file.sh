#!/usr/bin/env bash
# ChessBase -> PGN written to a file, one pinned core, against cbvault 0.1.6 (`--example
# cbvault_export`, whose output goes through standard output into the same kind of file), on
# 183,510 games (twic1134's records repeated 30 times, `--example repeat_database`): issue
# 34's "1.5x cbvault per core, whole command". Prints per round both wall times, the ratio,
# and our time waiting on the disk after the last write (wall - user - sys: the fsync before
# the rename). Set COMPARE_RUNS=N for more alternating rounds (default 5); pass another
# chessfmt binary as $1 to alternate it too. Needs ../shared/corpus.
source "$(dirname "$0")/lib/common.sh"
twic=$corpus/chessbase/uncbv-tests/twic1134/twic1134.cbh
need "$twic"
runs=${COMPARE_RUNS:-5}
build_release chessbase-db
chessfmt_bins "$@"
"$ex/repeat_database" "$twic" 30 "$work/db" >/dev/null
db=$(ls "$work"/db/*.cbh)
machine_line
for r in $(seq "$runs"); do
    rm -f "$work/e.pgn"
    /usr/bin/time -f "%e" -o "$work/t" taskset -c 0 "$ex/cbvault_export" "$db" 1 >"$work/e.pgn" 2>/dev/null
    peer=$(cat "$work/t")
    line="round $r: cbvault $peer s"
    for b in "${bins[@]}"; do
        rm -f "$work/e.pgn"
        /usr/bin/time -f "%e %U %S" -o "$work/t" taskset -c 0 "$b" cbh export "$db" -o "$work/e.pgn" --threads 1 >/dev/null 2>&1
        read -r wall user sys <"$work/t"
        line+=$(python3 -c "print(f'; $(basename "$b") $wall s, {$peer/$wall:.2f}x, waiting {$wall-$user-$sys:.2f} s')")
    done
    echo "$line"
done
