#!/usr/bin/env bash
# The statistics table against the direct build (issue 32), on this machine, in one run:
# `polyglot build`, `tally` to CSV and to Parquet, and `polyglot from-tally` of each, on
# gnuchess book_1.02.pgn (145,716 games), full games and --max-ply 20, and the whole path
# with the games in two parts (`tally` of each, `tally merge`, `polyglot from-tally`: the
# same book). Prints wall time,
# user time and peak RSS per job; checks that the table's two forms give the same book and
# says whether it is the build's (it differs where a position passes 16,384 plays of a move:
# a build halves in game order, the table its totals). Pass another chessfmt binary as $1 to
# alternate it with this tree's in every round. Needs ../shared/corpus (skipped when absent).
source "$(dirname "$0")/lib/common.sh"
need "$gnuchess_pgn_xz"
build_release
chessfmt_bins "$@"
gnuchess_pgn "$work/book.pgn"
# Two halves of the games, cut where a game begins (the path of map, reduce and book).
awk -v out="$work/h" '/^\[Event /{n++} {print > (out (n <= 72858 ? 0 : 1) ".pgn")}' "$work/book.pgn"
machine_line
job() { # label, command...
    /usr/bin/time -f "%e s %U u %M KB" -o "$work/t" "${@:2}" >/dev/null 2>&1
    echo "$1: $(cat "$work/t")"
}
for round in 1 2; do
    for b in "${bins[@]}"; do
        echo "round $round, $b"
        for depth in full 20; do
            ply=(); [ "$depth" = 20 ] && ply=(--max-ply 20)
            job "  build $depth" "$b" polyglot build "$work/book.pgn" -o "$work/b.bin" --force "${ply[@]}"
            job "  tally csv $depth" "$b" tally "$work/book.pgn" -o "$work/t.csv" --force "${ply[@]}"
            job "  tally parquet $depth" "$b" tally "$work/book.pgn" -o "$work/t.parquet" --force "${ply[@]}"
            job "  from-tally csv $depth" "$b" polyglot from-tally "$work/t.csv" -o "$work/c.bin" --force
            job "  from-tally parquet $depth" "$b" polyglot from-tally "$work/t.parquet" -o "$work/p.bin" --force
            cmp "$work/c.bin" "$work/p.bin"
            if cmp -s "$work/b.bin" "$work/p.bin"; then
                echo "  book through the table = build"
            else
                echo "  book through the table differs from the build (halving past 16,384 plays)"
            fi
            # The issue's whole path in two parts: map each half, reduce, write the book.
            job "  tally half 0 parquet $depth" "$b" tally "$work/h0.pgn" -o "$work/h0.parquet" --part 0 --force "${ply[@]}"
            job "  tally half 1 parquet $depth" "$b" tally "$work/h1.pgn" -o "$work/h1.parquet" --part 1 --force "${ply[@]}"
            job "  tally merge 2 parts $depth" "$b" tally merge "$work/h0.parquet" "$work/h1.parquet" -o "$work/m.parquet" --force
            job "  from-tally merged $depth" "$b" polyglot from-tally "$work/m.parquet" -o "$work/m.bin" --force
            cmp "$work/m.bin" "$work/p.bin"
        done
    done
done
