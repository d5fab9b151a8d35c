"""Mutated files of every format: a Python exception (FormatError or OSError), never a crash."""

import random

import chess
import pytest

import chessfmt
import chessfmt.chessbase as cb
import chessfmt.ctg as ctg
import chessfmt.polyglot as cp
import chessfmt.selfplay as sp
from conftest import TESTDATA, corpus


def mutations(data: bytes, n: int, seed: int):
    rng = random.Random(seed)
    for _ in range(n):
        b = bytearray(data)
        for _ in range(rng.randrange(1, 8)):
            if b:
                b[rng.randrange(len(b))] = rng.randrange(256)
        if rng.random() < 0.3:
            del b[rng.randrange(len(b) + 1):]
        yield bytes(b)


def test_polyglot_mutations(tmp_path):
    data = corpus("polyglot/books/python-chess-lasker-trap.bin").read_bytes()
    p = tmp_path / "m.bin"
    for m in mutations(data, 150, 1):
        p.write_bytes(m)
        try:
            with cp.open_reader(p) as r:
                list(r.find_all(chess.Board()))
                list(r)
        except chessfmt.FormatError:
            pass


def test_selfplay_mutations(tmp_path):
    data = (TESTDATA / "selfplay" / "small.bin").read_bytes()
    p = tmp_path / "m.bin"
    for m in mutations(data, 150, 2):
        p.write_bytes(m)
        try:
            list(sp.open(p))
        except chessfmt.FormatError:
            pass
        for b in sp.positions(p, batch_size=7):
            b.planes()


def test_ctg_mutations(tmp_path):
    base = corpus("ctg/simple/simple.ctg")
    data = base.read_bytes()
    (tmp_path / "m.cto").write_bytes(base.with_suffix(".cto").read_bytes())
    (tmp_path / "m.ctb").write_bytes(base.with_suffix(".ctb").read_bytes())
    for m in mutations(data, 100, 3):
        (tmp_path / "m.ctg").write_bytes(m)
        try:
            with ctg.open_reader(tmp_path / "m.ctg") as book:
                list(book.find_all(chess.Board()))
                list(book.positions(max_ply=3))
        except (chessfmt.FormatError, OSError):
            pass


def test_chessbase_mutations(tmp_path):
    src = corpus("chessbase/libcbh-gtest/WithVariations/WithVariations.cbh").parent
    files = {f.suffix: f.read_bytes() for f in src.iterdir() if f.is_file()}
    rng = random.Random(4)
    for i in range(60):
        target = rng.choice(sorted(files))
        for suffix, data in files.items():
            payload = next(mutations(data, 1, i)) if suffix == target else data
            (tmp_path / ("m" + suffix)).write_bytes(payload)
        try:
            with cb.open(tmp_path / "m.cbh") as db:
                for g in db:
                    try:
                        g.game()
                    except chessfmt.FormatError:
                        pass
        except (chessfmt.FormatError, OSError):
            pass
