#!/usr/bin/env bash
# Peak-memory checks (issue 17), on this machine, in one run (GNU time, peak RSS):
#   - kvetka build of gnuchess book_1.02.pgn (145,716 games) with the default memory limit:
#     at most 500 MB, books identical to an unlimited build (--memory-limit 100000);
#   - kvetka add of the same PGN to a 1,000-game book: at most 500 MB;
#   - polyglot merge of a 64 MB book with book_1.02.bin: peak RSS at most the mapped inputs
#     (their pages count in RSS) plus 32 MB: the merge streams.
# Fails (exit 1) when a bound is passed. Needs ../shared/corpus (skipped when absent).
source "$(dirname "$0")/lib/common.sh"
books=$corpus/polyglot/books
sample=$corpus/polyglot/pgn/lichess-2017-09-sample1000.pgn
need "$gnuchess_pgn_xz" "$books/gnuchess-book_1.02.bin" "$sample"
build_release
gnuchess_pgn "$work/book.pgn"
peak() { /usr/bin/time -f "%M" -o "$work/rss" "$@" >/dev/null 2>&1; cat "$work/rss"; }
fail=0
check() { # name, KiB, limit KiB
    echo "$1: $2 KiB peak RSS (bound $3 KiB)"
    if [ "$2" -gt "$3" ]; then echo "  OVER THE BOUND"; fail=1; fi
}
machine_line

mkdir "$work/a" "$work/b"
check "kvetka build (default limit)" "$(peak "$bin" kvetka build "$work/book.pgn" -o "$work/a/gnu")" 512000
"$bin" kvetka build "$work/book.pgn" -o "$work/b/gnu" --memory-limit 100000 >/dev/null 2>&1
for f in "$work"/a/*; do cmp "$f" "$work/b/$(basename "$f")"; done && echo "  identical to the unlimited build"

mkdir "$work/c"
"$bin" kvetka build "$sample" -o "$work/c/small" >/dev/null 2>&1
check "kvetka add (default limit)" "$(peak "$bin" kvetka add "$work/c/small" "$work/book.pgn")" 512000

python3 - "$work/big.bin" <<'PY'
import struct, random, sys
random.seed(1)
keys = sorted(random.getrandbits(64) for _ in range(4_000_000))
with open(sys.argv[1], "wb") as f:
    f.write(b"".join(struct.pack(">QHHI", k, 0x031c, 1, 0) for k in keys))
PY
inputs=$(( ($(stat -c %s "$work/big.bin") + $(stat -c %s "$books/gnuchess-book_1.02.bin")) / 1024 ))
check "polyglot merge (streaming)" \
    "$(peak "$bin" polyglot merge "$work/big.bin" "$books/gnuchess-book_1.02.bin" -o "$work/m.bin")" \
    $(( inputs + 32768 ))
exit $fail
