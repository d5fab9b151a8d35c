"""The Python package against its peers, each pair in one run (issue 33's targets).

Run from the repository with the package installed (`cargo xtask python` makes such an
environment in target/py-package):

    target/py-package/bin/python crates/chessfmt-py/bench/bench.py [--pgn BIG.pgn] [--selfplay DATA.bin]

1. find_all per call, python-chess's MemoryMappedReader against chessfmt.polyglot, on the
   same positions (book moves walked from the start), best of 5 interleaved rounds.
2. Iterating a ChessBase database with .pgn() for every game against `chessfmt cbh export`
   (the whole command, the release binary), best of 3.
3. chessfmt.selfplay.positions into numpy: positions per CPU-second (all threads counted)
   and per wall second.
4. Building a Polyglot book from Python against `chessfmt polyglot build`, same PGN and
   threads, best of 3.
"""

import argparse
import os

# numpy's OpenBLAS starts worker threads that spin; nothing here uses BLAS, and on a small
# machine their spinning is charged to the CPU time measured below.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import pathlib
import random
import subprocess
import sys
import tempfile
import time

import chess
import chess.polyglot

import chessfmt.chessbase
import chessfmt.polyglot
import chessfmt.selfplay

REPO = pathlib.Path(__file__).resolve().parents[3]
CORPUS = REPO.parent / "shared" / "corpus"
CLI = REPO / "target" / "release" / "chessfmt"


def boards_of(book: pathlib.Path, games: int = 400, plies: int = 30):
    rng = random.Random(1)
    boards = []
    with chess.polyglot.open_reader(book) as r:
        for _ in range(games):
            b = chess.Board()
            for _ in range(plies):
                boards.append(b.copy())
                es = list(r.find_all(b))
                if not es:
                    break
                b.push(rng.choice(es).move)
    return boards


def per_call(reader, boards) -> float:
    t = time.perf_counter()
    for b in boards:
        list(reader.find_all(b))
    return (time.perf_counter() - t) / len(boards) * 1e6


def find_all():
    for name in ["gnuchess-book_1.02.bin", "python-chess-performance.bin"]:
        book = CORPUS / "polyglot" / "books" / name
        boards = boards_of(book)
        with chess.polyglot.open_reader(book) as ref, chessfmt.polyglot.open_reader(book) as ours:
            theirs, mine = [], []
            for _ in range(5):
                theirs.append(per_call(ref, boards))
                mine.append(per_call(ours, boards))
        t, m = min(theirs), min(mine)
        print(f"find_all {name} ({len(boards)} positions): python-chess {t:.1f} us, chessfmt {m:.1f} us: {t / m:.1f}x")


def best(f, n=3) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return min(times)


def chessbase(db_path: pathlib.Path, threads: int):
    out = tempfile.mktemp(suffix=".pgn")

    def cli():
        subprocess.run(
            [CLI, "cbh", "export", db_path, "-o", out, "--force", "--threads", str(threads)],
            check=True,
            capture_output=True,
        )

    def py():
        with chessfmt.chessbase.open(db_path, threads=threads) as db:
            for g in db:
                g.pgn()

    c, p = best(cli), best(py)
    os.unlink(out)
    print(f"chessbase {db_path.name}, {threads} threads: cbh export {c:.3f} s, Python iterate + pgn() {p:.3f} s: {p / c:.2f}x of the CLI")


def selfplay(data: pathlib.Path):
    for visits in (True, False):
        c0, t0 = time.process_time(), time.perf_counter()
        n = sum(len(b) for b in chessfmt.selfplay.positions(data, visits=visits))
        cpu, wall = time.process_time() - c0, time.perf_counter() - t0
        print(
            f"selfplay.positions {data.name} visits={visits}: {n} positions, "
            f"{n / cpu / 1e6:.2f} M per CPU-second, {n / wall / 1e6:.2f} M per wall second"
        )


def build(pgn: pathlib.Path, threads: int):
    d = tempfile.mkdtemp()
    a, b = os.path.join(d, "cli.bin"), os.path.join(d, "py.bin")

    def cli():
        subprocess.run(
            [CLI, "polyglot", "build", pgn, "-o", a, "--force", "--threads", str(threads)], check=True, capture_output=True
        )

    def py():
        chessfmt.polyglot.build(pgn, b, threads=threads, overwrite=True)

    c, p = best(cli), best(py)
    same = pathlib.Path(a).read_bytes() == pathlib.Path(b).read_bytes()
    print(f"polyglot build {pgn.name}, {threads} threads: CLI {c:.2f} s, Python {p:.2f} s: {p / c:.2f}x (same bytes: {same})")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--pgn", type=pathlib.Path, default=CORPUS / "polyglot/pgn/gnuchess-book_1.02-first10000.pgn")
    ap.add_argument("--selfplay", type=pathlib.Path)
    ap.add_argument("--db", type=pathlib.Path, default=CORPUS / "chessbase/uncbv-tests/twic1134/twic1134.cbh")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    args = ap.parse_args()
    print(f"python {sys.version.split()[0]}, chess {chess.__version__}, chessfmt {chessfmt.polyglot._native.__version__}")
    find_all()
    chessbase(args.db, args.threads)
    if args.selfplay:
        selfplay(args.selfplay)
    build(args.pgn, args.threads)


if __name__ == "__main__":
    main()
