"""chessfmt.selfplay: games and numpy batches, checked against python-chess boards."""

import chess
import numpy as np
import pytest

import chessfmt
import chessfmt.selfplay as sp
from conftest import TESTDATA

SMALL = TESTDATA / "selfplay" / "small.bin"


def test_games_replay_in_python_chess():
    games = list(sp.open(SMALL))
    assert games
    for g in games:
        b = g.board()
        for m in g.moves:
            assert b.is_legal(m.move)
            if m.visits is not None:
                assert all(b.is_legal(v) for v, _ in m.visits)
            b.push(m.move)


def test_batches_match_the_games():
    games = list(sp.open(SMALL))
    batches = list(sp.positions(SMALL, batch_size=3))
    assert all(len(b) == 3 for b in batches[:-1])
    i = 0
    flat = [(g, b, m) for g in games for b, m in _replay(g)]
    rows = [(batch, j) for batch in batches for j in range(len(batch))]
    assert len(rows) == len(flat)
    for (g, board, m), (batch, j) in zip(flat, rows):
        planes = batch.planes()[j]
        for color in (chess.WHITE, chess.BLACK):
            for piece in range(1, 7):
                bb = int(board.pieces_mask(piece, color))
                assert int(batch.boards[j, (0 if color else 6) + piece - 1]) == bb
                assert planes[(0 if color else 6) + piece - 1].nonzero()[0].tolist() == list(chess.SquareSet(bb))
        assert bool(batch.turn[j]) == board.turn
        assert int(batch.castling[j]) == int(board.clean_castling_rights())
        assert sp.decode_moves([batch.best_move[j]], chess960=g.chess960)[0] == m.move
        assert abs(float(batch.score[j]) - m.score / 65535) < 1e-6
        moves, counts = batch.visits(j)
        if m.visits is not None:
            assert [int(c) for c in counts] == [n for _, n in m.visits]
            assert sp.decode_moves(moves, chess960=g.chess960) == [v for v, _ in m.visits]
        i += 1
    assert i > 0


def _replay(g):
    b = g.board()
    for m in g.moves:
        yield b.copy(), m
        b.push(m.move)


def test_filters_and_no_visits():
    all_rows = sum(len(b) for b in sp.positions(SMALL))
    early = sum(len(b) for b in sp.positions(SMALL, ply=(0, 3)))
    assert 0 < early < all_rows
    b = next(sp.positions(SMALL, visits=False))
    assert len(b.visit_moves) == 0 and b.visit_offsets.tolist() == [0] * (len(b) + 1)
    assert b.boards.dtype == np.uint64


def test_damaged_files(tmp_path):
    data = SMALL.read_bytes()
    bad = tmp_path / "bad.bin"
    bad.write_bytes(data[:-5])
    with pytest.raises(chessfmt.FormatError) as e:
        list(sp.open(bad))
    assert e.value.path == str(bad) and e.value.offset is not None
    # Bulk reading skips what it cannot read and counts it.
    batches = list(sp.positions(bad))
    assert batches[-1].skipped_games == 1
    assert list(sp.positions(SMALL))[-1].skipped_games == 0
    with pytest.raises(FileNotFoundError):
        list(sp.open(tmp_path / "none.bin"))
