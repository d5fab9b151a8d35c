#!/usr/bin/env bash
# Whole-command comparisons for Polyglot, on this machine, in one run:
#   - build: `polyglot make-book` (Debian package polyglot) vs `chessfmt polyglot build`
#     on gnuchess book_1.02.pgn (145,716 games), wall time and peak RSS (GNU time);
#   - probe: python-chess `find_all` on the same book positions as the criterion bench;
#   - dump/info: `polyglot dump-book` / `info-book` vs `chessfmt polyglot dump` / `info`
#     on gnuchess-book_1.02.bin (texts compared);
#   - memory-limited build: a ~1 GB PGN (12 copies of book_1.02.pgn interleaved with the
#     lichess sample) with and without `--memory-limit 256` (books compared). Set
#     COMPARE_BIG=0 to skip this one (it needs ~3 GB of disk and a minute).
# Needs ../shared/corpus; optional tools are skipped with a message when absent.
source "$(dirname "$0")/lib/common.sh"
book=$corpus/polyglot/books/gnuchess-book_1.02.bin
sample=$corpus/polyglot/pgn/lichess-2017-09-sample1000.pgn
need "$gnuchess_pgn_xz" "$book" "$sample"
build_release
gnuchess_pgn "$work/book.pgn"

machine_line
if [ -x /usr/games/polyglot ]; then
    echo "== polyglot make-book (reference)"
    (cd "$work" && timer /usr/games/polyglot make-book -pgn book.pgn -bin ref.bin >/dev/null)
fi
for t in 1 0; do
    echo "== chessfmt polyglot build --threads $t (0 = all cores)"
    timer "$bin" polyglot build "$work/book.pgn" -o "$work/ours-$t.bin" --threads "$t" --force >/dev/null
done
if [ -f "$work/ref.bin" ]; then
    cmp "$work/ref.bin" "$work/ours-0.bin" && echo "outputs byte-identical"
fi
cmp "$book" "$work/ours-1.bin" && echo "output identical to the Debian book.bin"

if [ -x /usr/games/polyglot ]; then
    for c in white black; do
        echo "== dump --color $c: polyglot dump-book, then chessfmt polyglot dump"
        timer /usr/games/polyglot dump-book -bin "$book" -color $c -out "$work/ref-$c.txt" >/dev/null
        timer "$bin" polyglot dump "$book" --color $c -o "$work/ours-$c.txt" --force
        cmp "$work/ref-$c.txt" "$work/ours-$c.txt" && echo "dump texts byte-identical"
    done
    echo "== info: polyglot info-book, then chessfmt polyglot info"
    timer /usr/games/polyglot info-book -bin "$book" > "$work/ref-info.txt"
    timer "$bin" polyglot info "$book" > "$work/ours-info.txt"
    cmp "$work/ref-info.txt" "$work/ours-info.txt" && echo "info texts byte-identical"
fi

if [ "${COMPARE_BIG:-1}" != 0 ]; then
    echo "== memory-limited build of a ~1 GB PGN"
    python3 - "$work/book.pgn" "$sample" "$work/big.pgn" <<'PY'
import sys
parts = [open(p, "rb").read() for p in sys.argv[1:3]]
with open(sys.argv[3], "wb") as f:
    n = 0
    while f.tell() < 1_000_000_000:
        f.write(parts[n % 2].rstrip(b"\n") + b"\n\n")
        n += 1
    print(f"{f.tell():,} bytes, {n} parts")
PY
    timer "$bin" polyglot build "$work/big.pgn" -o "$work/big-unlimited.bin" --force
    timer "$bin" polyglot build "$work/big.pgn" -o "$work/big-256.bin" --memory-limit 256 --force --json
    cmp "$work/big-unlimited.bin" "$work/big-256.bin" && echo "memory-limited book byte-identical"
    rm -f "$work/big.pgn"
fi

if python3 -c "import chess.polyglot" 2>/dev/null; then
    echo "== python-chess find_all on book positions (BFS from the start, 10,000 positions)"
    python3 - "$book" <<'PY'
import sys, time, chess, chess.polyglot
with chess.polyglot.open_reader(sys.argv[1]) as r:
    out = [chess.Board()]
    i = 0
    while i < len(out) and len(out) < 10000:
        b = out[i]
        for e in r.find_all(b, minimum_weight=0):
            if len(out) >= 10000:
                break
            c = b.copy(stack=False); c.push(e.move); out.append(c)
        i += 1
    t = time.perf_counter(); n = 0; rounds = 3
    for _ in range(rounds):
        for b in out:
            n += len(list(r.find_all(b, minimum_weight=0)))
    dt = time.perf_counter() - t
    print(f"python-chess {chess.__version__}: {rounds*len(out)/dt:,.0f} probes/s ({len(out)} positions x {rounds})")
PY
else
    echo "python-chess not installed (pip install chess): probe comparison skipped"
fi
echo "criterion: cargo bench -p polyglot-book --bench probe (probes/s = elements/s)"
