"""chessfmt.chessbase: databases as sequences of games."""

import chess.pgn
import pytest

import chessfmt
import chessfmt.chessbase as cb
from conftest import corpus

TWIC = "chessbase/uncbv-tests/twic1134/twic1134.cbh"


def test_twic_games_and_export(tmp_path):
    with cb.open(corpus(TWIC)) as db:
        assert len(db) == 6117
        first = db[0]
        assert (first.white, first.black, first.result) == ("Vachier Lagrave, M", "Svidler, P", "1-0")
        assert first.white_elo == 2798 and first.eco == "C89" and first.number == 1
        assert not any(g.deleted for g in db[:50])
        texts = [g.pgn() for g in db]
        assert len(texts) == 6117
        assert [g.pgn() for g in db[10:20]] == texts[10:20]
        out = tmp_path / "twic.pgn"
        summary = db.export_pgn(out)
        assert summary["exported"] == 6117
        # Iterating gives exactly what the export writes.
        assert out.read_text(encoding="utf-8") == "".join(texts)
        game = first.game()
        assert isinstance(game, chess.pgn.Game)
        assert game.headers["White"] == "Vachier Lagrave, M"
        assert len(list(game.mainline_moves())) == 93
        with pytest.raises(FileExistsError):
            db.export_pgn(out)
        with pytest.raises(IndexError):
            db[6117]


def test_module_export_matches_the_reader(tmp_path):
    out = tmp_path / "a.pgn"
    cb.export_pgn(corpus(TWIC), out, annotations=False)
    with cb.open(corpus(TWIC), annotations=False) as db:
        assert out.read_text(encoding="utf-8") == "".join(g.pgn() for g in db)


def test_archives():
    with cb.open(corpus("chessbase/uncbv-tests/twic1134.cbv")) as db, cb.open(corpus(TWIC)) as plain:
        assert len(db) == len(plain)
        assert db[100].pgn() == plain[100].pgn()
    with pytest.raises(chessfmt.FormatError):
        cb.open(corpus("chessbase/uncbv-tests/small2.cbz"), password="wrong")
    with cb.open(corpus("chessbase/uncbv-tests/small2.cbz"), password="pass") as db:
        assert len(db) >= 0


def test_variations_reach_python_chess():
    with cb.open(corpus("chessbase/libcbh-gtest/WithVariations/WithVariations.cbh")) as db:
        game = db[0].game()
        assert any(len(node.variations) > 1 for node in game.mainline())


def test_damaged_database(tmp_path):
    data = corpus(TWIC).read_bytes()
    for f in ("cbh",):
        (tmp_path / f"t.{f}").write_bytes(data[: len(data) // 3 + 7])
    with pytest.raises((chessfmt.FormatError, OSError)):
        with cb.open(tmp_path / "t.cbh") as db:
            [g.pgn() for g in db]


def test_import_round_trip(tmp_path):
    pgn = tmp_path / "twic.pgn"
    cb.export_pgn(corpus(TWIC), pgn)
    out = tmp_path / "new.cbh"
    summary = cb.import_pgn(pgn, out)
    assert summary["games_read"] == 6117 and summary["games_added"] == 6117
    # The same database at every thread count.
    one = tmp_path / "one.cbh"
    cb.import_pgn(pgn, one, threads=1)
    for ext in ("cbh", "cbg", "cba", "cbp", "cbt", "cbc", "cbs", "cbe"):
        a, b = out.with_suffix("." + ext), one.with_suffix("." + ext)
        assert a.exists() == b.exists()
        if a.exists():
            assert a.read_bytes() == b.read_bytes(), ext
    assert summary["games_skipped"] == 0 and summary["skipped"] == []
    again = tmp_path / "again.pgn"
    cb.export_pgn(out, again)
    # Exported, imported and exported again: the same PGN (as the CLI's round-trip test).
    assert again.read_bytes() == pgn.read_bytes()
    with pytest.raises(FileExistsError):
        cb.import_pgn(pgn, out)
    with pytest.raises(ValueError):
        cb.import_pgn(pgn, tmp_path / "new.pgn")
    bad = tmp_path / "bad.pgn"
    bad.write_text('[White "a"]\n\n1. e4 e5 2. Ke3 *\n\n[White "b"]\n\n1. d4 *\n')
    summary = cb.import_pgn(bad, tmp_path / "b.cbh")
    assert summary["games_added"] == 1 and summary["games_skipped"] == 1
    assert "left out" in summary["skipped"][0] and str(bad) in summary["skipped"][0]
