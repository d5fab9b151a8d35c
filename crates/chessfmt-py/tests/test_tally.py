"""chessfmt.tally and the Polyglot book through the table."""

import csv
import hashlib

import chess
import chess.polyglot
import pytest

import chessfmt.ctg as ctg
import chessfmt.kvetka as kvetka
import chessfmt.polyglot as cp
import chessfmt.tally as tally
from conftest import corpus


def test_a_book_through_the_table_is_the_build(tmp_path, first10000):
    table = tmp_path / "t.csv"
    stats = tally.tally(first10000, table, max_ply=16)
    assert stats["games_read"] == 10000 and stats["rows"] > 0
    with table.open() as f:
        header = next(csv.reader(f))
    assert header[:4] == ["key", "epd", "move", "white"]
    book = tmp_path / "b.bin"
    made = cp.from_tally(table, book)
    assert made["halved"] == 0 and made["bad_rows"] == 0
    assert book.read_bytes() == corpus("polyglot/golden/first10000_ply16.bin").read_bytes()


def test_parts_merged_are_one_table(tmp_path, first10000):
    text = first10000.read_text(encoding="utf-8", errors="replace")
    cut = text.index("[Event", len(text) // 2)
    a, b = tmp_path / "a.pgn", tmp_path / "b.pgn"
    a.write_text(text[:cut], encoding="utf-8")
    b.write_text(text[cut:], encoding="utf-8")
    tally.tally(a, tmp_path / "a.csv", max_ply=16, part=1)
    tally.tally(b, tmp_path / "b.csv", max_ply=16, part=2)
    read, written = tally.merge([tmp_path / "a.csv", tmp_path / "b.csv"], tmp_path / "all.csv")
    assert read > written > 0
    cp.from_tally(tmp_path / "all.csv", tmp_path / "b.bin")
    assert (tmp_path / "b.bin").read_bytes() == corpus("polyglot/golden/first10000_ply16.bin").read_bytes()
    # The parts straight to a book, merged as they are read: the same books.
    parts = [tmp_path / "a.csv", tmp_path / "b.csv"]
    made = cp.from_tally(parts, tmp_path / "p.bin")
    assert made["rows"] == written
    assert (tmp_path / "p.bin").read_bytes() == (tmp_path / "b.bin").read_bytes()
    for module, ext, members in [(ctg, "ctg", ["ctg", "cto", "ctb"]), (kvetka, "kob", ["kin", "_0.kob"])]:
        module.from_tally(tmp_path / "all.csv", tmp_path / f"m.{ext}")
        module.from_tally(parts, tmp_path / f"p.{ext}")
        for m in members:
            name = (lambda stem: f"{stem}{m}") if m.startswith("_") else (lambda stem: f"{stem}.{m}")
            assert (tmp_path / name("m")).read_bytes() == (tmp_path / name("p")).read_bytes(), m
    with pytest.raises(FileExistsError):
        cp.from_tally(parts, tmp_path / "p.bin")
    with pytest.raises(FileExistsError):
        tally.merge([tmp_path / "a.csv"], tmp_path / "all.csv")


def test_weight_policies(tmp_path, first10000):
    """policy= weighs the kept moves as ``--policy`` does: "games" gives each move its games,
    from the games or from the table alike; "uniform" is uniform=True; another name is a
    ValueError."""
    table = tmp_path / "t.csv"
    tally.tally(first10000, table, max_ply=16)
    cp.build(first10000, tmp_path / "g.bin", max_ply=16, policy="games")
    cp.from_tally(table, tmp_path / "g2.bin", policy="games")
    assert (tmp_path / "g.bin").read_bytes() == (tmp_path / "g2.bin").read_bytes()
    with table.open() as f:
        rows = list(csv.DictReader(f))
    start = chess.polyglot.zobrist_hash(chess.Board())
    games = {r["move"]: int(r["games"]) for r in rows if int(r["key"], 16) == start}
    with chess.polyglot.open_reader(tmp_path / "g.bin") as book:
        weights = {e.move.uci(): e.weight for e in book.find_all(chess.Board())}
    assert weights and all(weights[m] == games[m] for m in weights)
    cp.from_tally(table, tmp_path / "u.bin", policy="uniform")
    cp.from_tally(table, tmp_path / "u2.bin", uniform=True)
    assert (tmp_path / "u.bin").read_bytes() == (tmp_path / "u2.bin").read_bytes()
    with pytest.raises(ValueError):
        cp.from_tally(table, tmp_path / "x.bin", policy="droidfish")
    assert not (tmp_path / "x.bin").exists()


def test_parquet_tables(tmp_path, first10000):
    """A .parquet name writes the table as Parquet (the same rows as CSV), read back by
    content; merge and from_tally take it."""
    tally.tally(first10000, tmp_path / "t.parquet", max_ply=16)
    tally.tally(first10000, tmp_path / "t.csv", max_ply=16)
    assert (tmp_path / "t.parquet").read_bytes()[:4] == b"PAR1"
    tally.merge([tmp_path / "t.parquet"], tmp_path / "back.csv")
    assert (tmp_path / "back.csv").read_bytes() == (tmp_path / "t.csv").read_bytes()
    tally.merge([tmp_path / "t.csv"], tmp_path / "m.parquet")
    cp.from_tally(tmp_path / "m.parquet", tmp_path / "b.bin")
    assert (tmp_path / "b.bin").read_bytes() == corpus("polyglot/golden/first10000_ply16.bin").read_bytes()


def test_parquet_compression(tmp_path, first10000):
    """compression= picks a Parquet table's codec (the same rows; zstd smaller than Snappy);
    a CSV table or an unknown codec is a ValueError, before anything is written."""
    sizes = {}
    for codec in ["zstd", "snappy", "none"]:
        out = tmp_path / f"{codec}.parquet"
        tally.tally(first10000, out, max_ply=16, compression=codec)
        sizes[codec] = out.stat().st_size
        tally.merge([out], tmp_path / f"{codec}.csv")
    rows = {(tmp_path / f"{codec}.csv").read_bytes() for codec in sizes}
    assert len(rows) == 1
    assert sizes["zstd"] < sizes["snappy"] < sizes["none"]
    with pytest.raises(ValueError, match="CSV"):
        tally.tally(first10000, tmp_path / "t.csv", compression="zstd")
    with pytest.raises(ValueError, match="brotli"):
        tally.tally(first10000, tmp_path / "t.parquet", compression="brotli")
    assert not (tmp_path / "t.csv").exists() and not (tmp_path / "t.parquet").exists()
    # merge takes the same codecs for a Parquet output (the same rows; zstd smaller).
    tally.merge([tmp_path / "snappy.parquet"], tmp_path / "m.parquet", compression="zstd")
    assert (tmp_path / "m.parquet").stat().st_size < sizes["snappy"]
    tally.merge([tmp_path / "m.parquet"], tmp_path / "m.csv")
    assert (tmp_path / "m.csv").read_bytes() == (tmp_path / "zstd.csv").read_bytes()
    with pytest.raises(ValueError, match="CSV"):
        tally.merge([tmp_path / "m.parquet"], tmp_path / "x.csv", compression="zstd")
    assert not (tmp_path / "x.csv").exists()


def test_polyglot_to_tally_and_back(tmp_path):
    src = corpus("polyglot/golden/first10000_ply16.bin")
    table = tmp_path / "t.csv"
    stats = cp.to_tally(src, table)
    assert stats["rows"] > 0
    back = tmp_path / "back.bin"
    cp.from_tally(table, back, min_game=1)
    with chess.polyglot.open_reader(src) as a, chess.polyglot.open_reader(back) as b:
        before = {(e.key, e.raw_move, e.weight) for e in a}
        after = {(e.key, e.raw_move, e.weight) for e in b}
    # Every entry reachable from the start comes back with its weight; the others (positions
    # no line of the book leads to) are counted, not carried.
    assert after <= before
    assert len(before - after) == stats["unreachable_entries"] + stats["illegal_entries"]


def test_bad_table(tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("not,a,table\n1,2,3\n")
    with pytest.raises(chessfmt_format_error()):
        cp.from_tally(bad, tmp_path / "x.bin")


def test_table_errors_name_the_table(tmp_path):
    import chessfmt

    bad = tmp_path / "bad.csv"
    bad.write_text("not,a,table\n1,2,3\n")
    for call in (
        lambda: tally.merge([bad], tmp_path / "m.csv"),
        lambda: tally.to_pgn(bad, tmp_path / "t.pgn"),
    ):
        with pytest.raises(chessfmt.FormatError) as e:
            call()
        assert str(bad) in str(e.value)
    # Nothing is left behind by a write that failed.
    assert not (tmp_path / "m.csv").exists() and not (tmp_path / "t.pgn").exists()


def chessfmt_format_error():
    import chessfmt

    return chessfmt.FormatError


def test_ctg_and_kvetka_through_the_table(tmp_path, first10000):
    table = tmp_path / "t.csv"
    tally.tally(first10000, table, max_ply=16)
    made = ctg.from_tally(table, tmp_path / "t.ctg")
    assert made["bad_rows"] == 0 and made["positions"] > 40000
    ctg.build(first10000, tmp_path / "b.ctg", max_ply=16)
    start = chess.Board()
    with ctg.open_reader(tmp_path / "t.ctg") as a, ctg.open_reader(tmp_path / "b.ctg") as b:
        assert a.games == b.games == 10000
        assert a.stats(start) == b.stats(start)
        assert list(a.find_all(start)) == list(b.find_all(start))
    back = ctg.to_tally(tmp_path / "t.ctg", tmp_path / "back.csv")
    assert back["rows"] > 0
    assert (back["start_not_kept"], back["unreached_records"], back["records_changed"]) == (0, 0, 0)
    # The book through its own table is the same book, file for file.
    ctg.from_tally(tmp_path / "back.csv", tmp_path / "again.ctg")
    for ext in ("ctg", "cto", "ctb"):
        digest = [hashlib.sha256((tmp_path / f"{n}.{ext}").read_bytes()).hexdigest() for n in ("again", "t")]
        assert digest[0] == digest[1], ext
    made = kvetka.from_tally(table, tmp_path / "t.kob", caption="from the table")
    assert made["bad_rows"] == 0 and made["positions"] > 40000
    with kvetka.open_reader(tmp_path / "t.kob") as k:
        assert k.caption == "from the table"
        assert k.stats(start).games > 9900
    assert kvetka.to_tally(tmp_path / "t.kob", tmp_path / "k.csv")["rows"] > 0
    # A Kvetka book converted to Kvetka keeps its elements and its header (its caption):
    # the same files (compared by digest: a failure stays short).
    tally.convert(tmp_path / "t.kob", tmp_path / "kc.kob")
    for a, b in (("t_0.kob", "kc_0.kob"), ("t.kin", "kc.kin")):
        digest = [hashlib.sha256((tmp_path / f).read_bytes()).hexdigest() for f in (a, b)]
        assert digest[0] == digest[1], a
    with pytest.raises(FileExistsError):
        kvetka.from_tally(table, tmp_path / "t.kob")


def test_table_as_a_pgn_tree(tmp_path, first10000):
    import chess.pgn

    table = tmp_path / "t.csv"
    tally.tally(first10000, table, max_ply=8)
    out = tmp_path / "tree.pgn"
    stats = tally.to_pgn(table, out, max_ply=4, min_games=30)
    with out.open() as f:
        game = chess.pgn.read_game(f)
    assert game.errors == []
    moves = 0
    stack = [game]
    while stack:
        node = stack.pop()
        for child in node.variations:
            moves += 1
            assert " games, +" in child.comment
            stack.append(child)
    assert moves == stats["moves"] > 20
    assert game.variations[0].move == chess.Move.from_uci("e2e4")


def test_convert_any_book_or_table_to_any_other(tmp_path):
    """tally.convert chooses by extension, as ``chessfmt convert``: a Polyglot book's weights
    come back from CTG and Kvetka; a table's book is from_tally's with every move kept; the
    table forms and the PGN tree are the direct functions'; the input is never overwritten,
    an existing output only with overwrite=True, and no scratch file is left."""
    src = corpus("polyglot/golden/first10000_ply16.bin")
    board = chess.Board()
    with chess.polyglot.open_reader(src) as book:
        want = {e.move.uci(): e.weight for e in book.find_all(board)}
    for ext in ["ctg", "kob"]:
        made = tally.convert(src, tmp_path / f"b.{ext}")
        assert made["read"]["rows"] > 0 and made["written"]["rows"] == made["read"]["rows"]
        tally.convert(tmp_path / f"b.{ext}", tmp_path / f"back-{ext}.bin")
        with chess.polyglot.open_reader(tmp_path / f"back-{ext}.bin") as book:
            assert {e.move.uci(): e.weight for e in book.find_all(board)} == want, ext
    cp.to_tally(src, tmp_path / "ref.csv")
    tally.convert(src, tmp_path / "t.parquet")
    tally.convert(tmp_path / "t.parquet", tmp_path / "t.csv")
    assert (tmp_path / "t.csv").read_bytes() == (tmp_path / "ref.csv").read_bytes()
    tally.convert(tmp_path / "t.csv", tmp_path / "c.bin")
    cp.from_tally(tmp_path / "ref.csv", tmp_path / "f.bin", min_game=1)
    assert (tmp_path / "c.bin").read_bytes() == (tmp_path / "f.bin").read_bytes()
    tally.convert(tmp_path / "t.csv", tmp_path / "u.bin", policy="uniform")
    cp.from_tally(tmp_path / "ref.csv", tmp_path / "fu.bin", min_game=1, policy="uniform")
    assert (tmp_path / "u.bin").read_bytes() == (tmp_path / "fu.bin").read_bytes()
    with pytest.raises(ValueError, match="policy"):
        tally.convert(src, tmp_path / "p.ctg", policy="games")
    tally.convert(src, tmp_path / "tree.pgn")
    tally.to_pgn(tmp_path / "ref.csv", tmp_path / "ref.pgn")
    assert (tmp_path / "tree.pgn").read_bytes() == (tmp_path / "ref.pgn").read_bytes()
    with pytest.raises(ValueError, match="one of the inputs"):
        tally.convert(tmp_path / "c.bin", tmp_path / "c.bin", overwrite=True)
    with pytest.raises(ValueError, match="one of the inputs"):
        tally.convert(tmp_path / "b.cto", tmp_path / "b.ctg", overwrite=True)
    with pytest.raises(FileExistsError):
        tally.convert(src, tmp_path / "c.bin")
    tally.convert(src, tmp_path / "c.bin", overwrite=True)
    with pytest.raises(ValueError, match="extension"):
        tally.convert(src, tmp_path / "x.epd")
    with pytest.raises(ValueError, match="not read"):
        tally.convert(tmp_path / "tree.pgn", tmp_path / "x.bin")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".chessfmt-convert-")]
