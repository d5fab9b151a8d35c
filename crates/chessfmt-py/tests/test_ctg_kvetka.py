"""chessfmt.ctg and chessfmt.kvetka: the reader API with each format's statistics."""

import random

import chess
import chess.polyglot
import chess.variant
import pytest

import chessfmt
import chessfmt.ctg as ctg
import chessfmt.kvetka as kvetka
import chessfmt.polyglot as cp
from conftest import corpus

PERFECT = "ctg/perfect2021/Perfect2021.ctg"


def test_ctg_start_position():
    with ctg.open_reader(corpus(PERFECT)) as book:
        assert len(book) == 104794 and book.games == 72827
        start = chess.Board()
        stats = book.stats(start)
        assert stats.games == 72827
        assert (stats.wins, stats.draws, stats.losses) == (12048, 54132, 5056)
        entries = list(book.find_all(start))
        e4 = next(e for e in entries if e.move == chess.Move.from_uci("e2e4"))
        assert (e4.games, e4.wins, e4.draws, e4.losses) == (32765, 5679, 24152, 2207)
        assert e4.nag == 3 and e4.recommendation == "green"
        assert e4.weight == 2 * e4.wins + e4.draws
        assert book.find(start) == max(entries, key=lambda e: e.weight)
        assert book.weighted_choice(start, random=random.Random(1)) in entries
        assert list(book.find_all(start, exclude_moves=[e4.move])) == [e for e in entries if e != e4]
        assert list(book.find_all(start, minimum_weight=10**9)) == []
        assert book.get(chess.Board("8/8/8/8/8/8/k7/K7 w - - 0 1")) is None
        with pytest.raises(TypeError):
            list(book.find_all(chess.polyglot.zobrist_hash(start)))
        with pytest.raises(ValueError):
            list(book.find_all(chess.variant.AtomicBoard()))


def test_ctg_agrees_with_its_polyglot_twin():
    # The archive's Polyglot book (Perfect2021.bin) is the same book: every move it has at a
    # position is a move of the CTG book there.
    with ctg.open_reader(corpus(PERFECT)) as book, chess.polyglot.open_reader(
        corpus("ctg/perfect2021/Perfect2021.bin")
    ) as twin:
        rng = random.Random(7)
        checked = 0
        for _ in range(60):
            b = chess.Board()
            for _ in range(12):
                theirs = {e.move for e in twin.find_all(b)}
                ours = {e.move for e in book.find_all(b, minimum_weight=0)}
                assert theirs <= ours, b.fen()
                checked += bool(theirs)
                if not theirs:
                    break
                b.push(rng.choice(sorted(theirs, key=lambda m: m.uci())))
        assert checked > 100


def test_ctg_positions_walk():
    with ctg.open_reader(corpus(PERFECT)) as book:
        it = book.positions(max_ply=2)
        first = next(it)
        assert first.board == chess.Board() and first.stats.games == 72827
        rest = list(it)
        assert all(p.board.ply() == 0 for p in rest[:0])
        assert len(rest) > 20
        for p in rest[:50]:
            assert [e.move for e in book.find_all(p.board, minimum_weight=0)] == [e.move for e in p.entries]


def test_ctg_build_and_convert(tmp_path, first10000):
    out = tmp_path / "b.ctg"
    stats = ctg.build(first10000, out, max_ply=16)
    assert stats["games"] == 10000 and stats["positions"] == 42233
    with ctg.open_reader(out) as book:
        start = book.stats(chess.Board())
        assert start.games == 10000
        assert sum(e.games for e in book.find_all(chess.Board(), minimum_weight=0)) <= 10000
    pg = tmp_path / "b.bin"
    positions, entries = ctg.to_polyglot(out, pg)
    assert positions > 0 and entries > 0
    with chess.polyglot.open_reader(pg) as r, ctg.open_reader(out) as book:
        assert {e.move for e in r.find_all(chess.Board())} == {e.move for e in book.find_all(chess.Board())}
    with pytest.raises(FileExistsError):
        ctg.build(first10000, out)
    with pytest.raises(ValueError):
        ctg.open_reader(out, policy="nonsense")


def test_ctg_build_under_a_memory_limit(tmp_path, first10000):
    whole = ctg.build(first10000, tmp_path / "a.ctg", max_ply=16)
    runs = tmp_path / "limited"
    runs.mkdir()
    limited = ctg.build(first10000, runs / "b.ctg", max_ply=16, memory_limit_mib=1)
    assert limited == whole and whole["positions"] == 42233
    assert "truncated_positions" in whole
    for ext in ("ctg", "cto", "ctb"):
        assert (tmp_path / f"a.{ext}").read_bytes() == (runs / f"b.{ext}").read_bytes()
    # The book's files and the set's lock only: no run or spool left behind.
    assert sorted(p.name for p in runs.iterdir() if not p.name.endswith(".chessfmt-lock")) == [
        "b.ctb",
        "b.ctg",
        "b.cto",
    ]


def test_kvetka_build_read_convert(tmp_path, first10000):
    out = tmp_path / "k.kob"
    stats = kvetka.build(first10000, out)
    assert stats["games_read"] == 10000 and stats["positions"] > 100000
    with kvetka.open_reader(out) as book:
        start = book.stats(chess.Board())
        assert start.games == stats["games_added"]
        entries = list(book.find_all(chess.Board()))
        assert entries and all(e.in_book for e in entries)
        assert sum(e.games for e in entries) == start.games
        e = entries[0]
        assert e.weight == 2 * e.wins + e.draws
        b = chess.Board()
        b.push(e.move)
        after = book.stats(b)
        # The move's results are the mover's view of the position after it.
        assert (after.wins, after.draws, after.losses) == (e.losses, e.draws, e.wins)
        walked = list(book.positions(max_ply=1))
        assert walked[0].board == chess.Board() and len(walked) == 1 + len(entries)
    pg = tmp_path / "k.bin"
    kvetka.to_polyglot(out, pg)
    with chess.polyglot.open_reader(pg) as r:
        assert {x.move for x in r.find_all(chess.Board())} == {x.move for x in entries}
    with kvetka.open_reader(out, policy="uniform") as book:
        assert {x.weight for x in book.find_all(chess.Board())} == {1}


def test_damaged_books_are_format_errors(tmp_path):
    data = corpus(PERFECT).read_bytes()
    for name, payload in [("short", data[:1000]), ("noise", bytes(random.Random(1).randrange(256) for _ in range(8192)))]:
        d = tmp_path / name
        d.mkdir()
        (d / "x.ctg").write_bytes(payload)
        (d / "x.cto").write_bytes(corpus(PERFECT.replace(".ctg", ".cto")).read_bytes()[:64])
        (d / "x.ctb").write_bytes(corpus(PERFECT.replace(".ctg", ".ctb")).read_bytes())
        with pytest.raises((chessfmt.FormatError, OSError)):
            with ctg.open_reader(d / "x.ctg") as book:
                list(book.find_all(chess.Board()))
    (tmp_path / "y.kob").write_bytes(b"\x07" * 300)
    with pytest.raises(chessfmt.FormatError):
        with kvetka.open_reader(tmp_path / "y.kob") as book:
            list(book.find_all(chess.Board()))
