"""chessfmt.polyglot against python-chess: the same answers, call for call."""

import random

import chess
import chess.polyglot
import chess.variant
import pytest

import chessfmt
import chessfmt.polyglot as cp
from conftest import corpus

BOOKS = [
    "polyglot/books/python-chess-performance.bin",
    "polyglot/books/gnuchess-book_1.02.bin",
    "polyglot/books/pychess-1.0.3-book.bin",
    "polyglot/books/python-chess-lasker-trap.bin",
]


def walked_boards(reader, games=120, plies=24, seed=1):
    """Positions met by following book moves at random from the start (and some off-book)."""
    rng = random.Random(seed)
    boards = []
    for _ in range(games):
        b = chess.Board()
        for _ in range(plies):
            boards.append(b.copy())
            entries = list(reader.find_all(b))
            if entries:
                b.push(rng.choice(entries).move)
            else:
                moves = list(b.legal_moves)
                if not moves:
                    break
                b.push(rng.choice(moves))
    return boards


@pytest.mark.parametrize("name", BOOKS)
def test_same_answers_as_python_chess(name):
    path = corpus(name)
    with chess.polyglot.open_reader(path) as ref, cp.open_reader(path) as ours:
        assert len(ours) == len(ref)
        assert ours[0] == ref[0] and ours[-1] == ref[-1]
        assert list(ours)[:500] == list(ref)[:500]
        boards = walked_boards(ref)
        assert len(boards) > 500
        found = 0
        for i, b in enumerate(boards):
            expected = list(ref.find_all(b))
            got = list(ours.find_all(b))
            assert got == expected, b.fen()
            assert all(type(e) is chess.polyglot.Entry and type(e.move) is chess.Move for e in got)
            found += bool(got)
            key = chess.polyglot.zobrist_hash(b)
            assert list(ours.find_all(key)) == list(ref.find_all(key))
            assert ours.bisect_key_left(key) == ref.bisect_key_left(key)
            assert list(ours.find_all(b, minimum_weight=0)) == list(ref.find_all(b, minimum_weight=0))
            assert list(ours.find_all(b, minimum_weight=5)) == list(ref.find_all(b, minimum_weight=5))
            assert ours.get(b) == ref.get(b)
            if expected:
                excluded = [expected[0].move]
                assert list(ours.find_all(b, exclude_moves=excluded)) == list(ref.find_all(b, exclude_moves=excluded))
                assert ours.find(b) == ref.find(b)
                assert ours.weighted_choice(b, random=random.Random(i)) == ref.weighted_choice(b, random=random.Random(i))
                assert ours.choice(b, random=random.Random(i)) == ref.choice(b, random=random.Random(i))
                assert (expected[0] in ours) == (expected[0] in ref)
            else:
                with pytest.raises(IndexError):
                    ours.find(b)
                with pytest.raises(IndexError):
                    ours.weighted_choice(b)
        assert found > (10 if "lasker" in name else 100)


def test_a_file_python_chess_refuses_is_refused():
    # Not a whole number of entries (python-chess: OSError; here the format's error).
    path = corpus("polyglot/books/gnuchess-6.2.7-smallbook.bin")
    with pytest.raises(OSError):
        chess.polyglot.open_reader(path)
    with pytest.raises(chessfmt.FormatError):
        cp.open_reader(path)


def test_variant_and_chess960_boards_as_python_chess():
    path = corpus("polyglot/books/gnuchess-book_1.02.bin")
    with chess.polyglot.open_reader(path) as ref, cp.open_reader(path) as ours:
        for board in [
            chess.variant.AtomicBoard(),
            chess.variant.CrazyhouseBoard(),
            chess.Board(chess960=True),
            chess.Board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1"),
            # An en-passant square python-chess keeps but no pawn can use.
            chess.Board("rnbqkbnr/ppp1pppp/8/3p4/8/8/PPPPPPPP/RNBQKBNR w KQkq d6 0 2"),
        ]:
            assert list(ours.find_all(board)) == list(ref.find_all(board)), board.fen()


def test_castling_entries_as_python_chess(tmp_path):
    # A book with castling stored king-takes-rook (the standard) and king-to-target.
    board = chess.Board("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1")
    key = chess.polyglot.zobrist_hash(board)
    e1, g1, h1, a1, c1 = chess.E1, chess.G1, chess.H1, chess.A1, chess.C1
    raws = [e1 << 6 | h1, e1 << 6 | a1, e1 << 6 | g1, e1 << 6 | c1, chess.A2 << 6 | chess.A4]
    out = tmp_path / "castle.bin"
    assert cp.write([(key, r, 10 + i, 0) for i, r in enumerate(raws)], out) == len(raws)
    with chess.polyglot.open_reader(out) as ref, cp.open_reader(out) as ours:
        for b in (board, chess.Board(board.fen(), chess960=True)):
            assert list(ours.find_all(b)) == list(ref.find_all(b))
            assert len(list(ours.find_all(b))) >= 3


@pytest.mark.parametrize(
    "golden,options",
    [
        ("first10000_default.bin", {}),
        ("first10000_ply16.bin", {"max_ply": 16}),
        ("first10000_ply16_min1.bin", {"max_ply": 16, "min_game": 1}),
        ("first10000_ply16_uniform.bin", {"max_ply": 16, "uniform": True}),
        ("first10000_ply16_white.bin", {"max_ply": 16, "only": "white"}),
        ("first10000_minscore60.bin", {"min_score": 60.0}),
        # Under a memory limit (plies spilled and merged): the same book.
        ("first10000_default.bin", {"memory_limit_mib": 1}),
        ("first10000_ply16.bin", {"max_ply": 16, "memory_limit_mib": 1}),
    ],
)
def test_build_is_byte_identical_to_the_reference(tmp_path, first10000, golden, options):
    out = tmp_path / "book.bin"
    stats = cp.build(first10000, out, **options)
    assert stats["games_read"] == 10000
    assert out.read_bytes() == corpus("polyglot/golden/" + golden).read_bytes()


def test_build_refuses_to_overwrite_and_to_replace_an_input(tmp_path, first10000):
    out = tmp_path / "book.bin"
    cp.build(first10000, out, max_ply=8)
    before = out.read_bytes()
    with pytest.raises(FileExistsError):
        cp.build(first10000, out, max_ply=8)
    cp.build(first10000, out, max_ply=16, overwrite=True)
    assert out.read_bytes() != before
    with pytest.raises(ValueError):
        cp.build(out, out, overwrite=True)
    with pytest.raises(ValueError):
        cp.build(first10000, out, only="red", overwrite=True)


def test_merge_and_write_round_trip(tmp_path):
    a = corpus("polyglot/golden/first10000_ply16_white.bin")
    b = corpus("polyglot/golden/first10000_ply16_black.bin")
    out = tmp_path / "merged.bin"
    read, written = cp.merge([a, b], out)
    assert written == read
    # White's and Black's halves merge into the whole book's entries (SOURCES.md; the order
    # of equal keys is the merge's: by weight).
    with chess.polyglot.open_reader(out) as merged, chess.polyglot.open_reader(
        corpus("polyglot/golden/first10000_ply16.bin")
    ) as whole:
        assert sorted(merged) == sorted(whole)
    with chess.polyglot.open_reader(out) as ref:
        entries = list(ref)
    in_order = tmp_path / "in-order.bin"
    again = tmp_path / "again.bin"
    assert cp.write(entries, in_order) == len(entries)
    random.Random(3).shuffle(entries)
    assert cp.write(entries, again) == len(entries)
    # The canonical order does not depend on the order given; python-chess reads it back.
    assert again.read_bytes() == in_order.read_bytes()
    with chess.polyglot.open_reader(again) as r:
        assert sorted(r) == sorted(entries)


def test_errors_are_typed(tmp_path):
    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"\x00" * 17)
    with pytest.raises(chessfmt.FormatError) as e:
        cp.open_reader(bad)
    assert isinstance(e.value, ValueError)
    assert e.value.path == str(bad) and e.value.offset == 16
    with pytest.raises(FileNotFoundError):
        cp.open_reader(tmp_path / "missing.bin")
    with pytest.raises(IsADirectoryError):
        cp.open_reader(tmp_path)
    reader = cp.open_reader(corpus(BOOKS[0]))
    reader.close()
    with pytest.raises(ValueError):
        list(reader.find_all(chess.Board()))
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    with cp.open_reader(empty) as r:
        assert len(r) == 0 and list(r.find_all(chess.Board())) == []
