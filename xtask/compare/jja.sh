#!/usr/bin/env bash
# Issue 34's jja column: every job jja 0.9 (a benchmark peer only: `cargo install jja
# --no-default-features`, which needs Debian's libclang-dev and builds RocksDB) also does,
# jja and chessfmt alternating in each round, wall seconds and peak RSS (GNU time):
#   - a Polyglot book from gnuchess book_1.02.pgn (145,716 games): one thread, two threads,
#     and `--max-ply 20` on one thread (`jja make -T N [-M 20]`);
#   - the merge of gnuchess book_1.02.bin and the pychess book (`jja merge -1 A -2 B`);
#   - CTG to Polyglot, Perfect2021 (`jja edit BOOK.ctg -o OUT.bin`);
#   - every entry of a Polyglot book printed (`jja dump`, JSON lines, against
#     `chessfmt polyglot entries --json`), gnuchess book_1.02.bin.
# Prints a line per job and round, then the books' sizes: ours byte-identical at one and two
# threads, jja's compared between its thread counts. COMPARE_RUNS=N rounds (default 2).
# Skipped (exit 0, a line saying so) without jja or ../shared/corpus.
source "$(dirname "$0")/lib/common.sh"
books=$corpus/polyglot/books
ctg=$corpus/ctg/perfect2021/Perfect2021.ctg
need "$gnuchess_pgn_xz" "$books/gnuchess-book_1.02.bin" "$books/pychess-1.0.3-book.bin" "$ctg"
jja=$(command -v jja || true)
if [ -z "$jja" ]; then
    echo "compare: jja absent (cargo install jja --no-default-features), skipped"
    exit 0
fi
ctg=$(realpath "$ctg") # the jobs run in $work
runs=${COMPARE_RUNS:-2}
build_release
gnuchess_pgn "$work/book.pgn"
cp "$books/gnuchess-book_1.02.bin" "$work/a.bin"
cp "$books/pychess-1.0.3-book.bin" "$work/b.bin"
machine_line
echo "peer: $("$jja" --version 2>/dev/null | head -1)"
for r in $(seq "$runs"); do
    echo "== round $r"
    for t in 1 2; do
        rm -f "$work/jja-$t.bin"
        measure peer "$jja" make -T "$t" -o "jja-$t.bin" book.pgn
        measure ours "$bin" polyglot build book.pgn -o "ours-$t.bin" --threads "$t" --force
        peer_job "build, $t thread(s)" jja
    done
    rm -f "$work/jja-m20.bin"
    measure peer "$jja" make -T 1 -M 20 -o jja-m20.bin book.pgn
    measure ours "$bin" polyglot build book.pgn -o ours-m20.bin --max-ply 20 --threads 1 --force
    peer_job "build --max-ply 20, 1 thread" jja
    rm -f "$work/jja-merge.bin"
    measure peer "$jja" merge -1 a.bin -2 b.bin -o jja-merge.bin
    measure ours "$bin" polyglot merge a.bin b.bin -o ours-merge.bin --force
    peer_job "merge of two books" jja
    rm -f "$work/jja-ctg.bin"
    measure peer "$jja" edit "$ctg" -o jja-ctg.bin
    measure ours "$bin" ctg to-polyglot "$ctg" -o ours-ctg.bin --force
    peer_job "CTG to Polyglot, Perfect2021" jja
    measure peer "$jja" dump a.bin
    measure ours "$bin" polyglot entries a.bin --json
    peer_job "every entry, JSON lines" jja
done
size() { stat -c %s "$work/$1"; }
echo "books (bytes): jja build $(size jja-1.bin) at 1 thread, $(size jja-2.bin) at 2;" \
    "chessfmt $(size ours-1.bin) at 1, $(size ours-2.bin) at 2"
cmp -s "$work/ours-1.bin" "$work/ours-2.bin" && echo "chessfmt's books byte-identical at 1 and 2 threads"
cmp -s "$work/jja-1.bin" "$work/jja-2.bin" || echo "jja's books differ between 1 and 2 threads"
echo "merge: jja $(size jja-merge.bin), chessfmt $(size ours-merge.bin); CTG to Polyglot: jja" \
    "$(size jja-ctg.bin), chessfmt $(size ours-ctg.bin)"
echo "entries printed: jja $("$jja" dump "$work/a.bin" | wc -l), chessfmt" \
    "$("$bin" polyglot entries "$work/a.bin" --json | wc -l)"
