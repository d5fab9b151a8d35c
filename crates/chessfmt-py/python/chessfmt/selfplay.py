"""Monty self-play training data (the policy format): games, and positions as numpy batches.

::

    import chessfmt.selfplay

    for game in chessfmt.selfplay.open("data.bin"):
        print(game.board().fen(), len(game.moves), game.result)

    for batch in chessfmt.selfplay.positions("data.bin", batch_size=65536, ply=(8, 200)):
        x = batch.planes()            # (n, 12, 64) uint8 bit planes
        y = batch.result              # float32, side to move's view

A batch holds columns (numpy arrays, made over the bytes Rust filled without another copy):

=================  ===========  ================================================================
``boards``         uint64 n×12  bitboards: White P N B R Q K, then Black's (bit i = square i, a1 = 0)
``turn``           uint8        1 when White is to move
``castling``       uint64       squares of the rooks that can castle (python-chess's ``castling_rights``)
``ep_square``      int8         the en-passant square when a capture is legal, else −1
``halfmove``       uint16       the half-move clock
``score``          float32      the engine's expected score for the side to move, 0…1
``result``         float32      the game's result for the side to move: 0, 0.5, 1
``best_move``      uint16       the move played: from | to << 6 | promotion << 12 | castling << 15 (python-chess piece types; castling king-takes-rook)
``game``, ``ply``  uint64, uint16  where the position comes from
``visit_offsets``  uint64 n+1   position i's visits are ``visit_moves[o[i]:o[i+1]]`` with ``visit_counts``
``visit_moves``    uint16       moves, packed as ``best_move``
``visit_counts``   uint8        visit shares as stored (0–255)
=================  ===========  ================================================================
"""

from __future__ import annotations

from typing import Any, Iterator, List, NamedTuple, Optional, Tuple

import chess
import numpy as np

from . import _native
from ._common import Path, fspath

__all__ = ["Game", "Move", "open", "positions", "Batch", "decode_moves", "COLUMNS"]

#: The columns of a :class:`Batch` and their numpy types.
COLUMNS: Tuple[Tuple[str, Any], ...] = (
    ("boards", np.uint64),
    ("turn", np.uint8),
    ("castling", np.uint64),
    ("ep_square", np.int8),
    ("halfmove", np.uint16),
    ("score", np.float32),
    ("result", np.float32),
    ("best_move", np.uint16),
    ("game", np.uint64),
    ("ply", np.uint16),
    ("visit_offsets", np.uint64),
    ("visit_moves", np.uint16),
    ("visit_counts", np.uint8),
)


class Move(NamedTuple):
    """A move of a game: the move played, the engine's score (0–65535 for 0…1, side to
    move's view) and the visit distribution (``(move, count)`` pairs) when stored."""

    move: chess.Move
    score: int
    visits: Optional[List[Tuple[chess.Move, int]]]


class Game(NamedTuple):
    """A self-play game: start position, moves, White's result (0 loss, 1 draw, 2 win)."""

    fen: str
    chess960: bool
    result: int
    moves: List[Move]

    def board(self) -> chess.Board:
        """The start position as a :class:`chess.Board`."""
        return chess.Board(self.fen, chess960=self.chess960)


def _game(raw: Tuple[str, bool, int, list]) -> Game:
    fen, chess960, result, moves = raw
    from_uci = chess.Move.from_uci
    return Game(
        fen,
        chess960,
        result,
        [
            Move(from_uci(m), score, None if visits is None else [(from_uci(v), n) for v, n in visits])
            for m, score, visits in moves
        ],
    )


def open(path: Path) -> Iterator[Game]:
    """The games of a file, in order. A damaged game raises :class:`chessfmt.FormatError`
    (with the file and byte offset) and ends the iteration."""
    return (_game(g) for g in _native.SelfplayGames(fspath(path)))


class Batch:
    """Columns of ``len(batch)`` positions (see the module's table)."""

    __slots__ = tuple(name for name, _ in COLUMNS) + ("skipped_games",)

    boards: np.ndarray
    turn: np.ndarray
    castling: np.ndarray
    ep_square: np.ndarray
    halfmove: np.ndarray
    score: np.ndarray
    result: np.ndarray
    best_move: np.ndarray
    game: np.ndarray
    ply: np.ndarray
    visit_offsets: np.ndarray
    visit_moves: np.ndarray
    visit_counts: np.ndarray
    skipped_games: int
    """Games of the file left out so far because they could not be read."""

    def __init__(self, columns: List[bytes], n: int, skipped: int) -> None:
        for (name, dtype), data in zip(COLUMNS, columns):
            setattr(self, name, np.frombuffer(data, dtype=dtype))
        self.boards = self.boards.reshape(n, 12)
        self.skipped_games = skipped

    def __len__(self) -> int:
        return len(self.turn)

    def planes(self) -> np.ndarray:
        """The boards as ``(n, 12, 64)`` uint8 bit planes (square index as python-chess's)."""
        n = len(self)
        bits = np.unpackbits(self.boards.astype("<u8").view(np.uint8), bitorder="little")
        return bits.reshape(n, 12, 64)

    def visits(self, i: int) -> Tuple[np.ndarray, np.ndarray]:
        """Position ``i``'s visit distribution: (packed moves, counts)."""
        a, b = int(self.visit_offsets[i]), int(self.visit_offsets[i + 1])
        return self.visit_moves[a:b], self.visit_counts[a:b]


def decode_moves(packed: Any, *, chess960: bool = False) -> List[chess.Move]:
    """:class:`chess.Move` objects of packed moves (``best_move``, ``visit_moves``), castling
    in the notation of a board with that ``chess960`` flag (king-takes-rook, or the king's
    two-square move)."""
    moves = []
    for value in np.asarray(packed).ravel():
        m = int(value)
        from_square, to_square = m & 63, (m >> 6) & 63
        if m >> 15 and not chess960:
            to_square = (from_square & ~7) | (6 if to_square > from_square else 2)
        moves.append(chess.Move(from_square, to_square, ((m >> 12) & 7) or None))
    return moves


def positions(
    path: Path,
    *,
    batch_size: int = 65536,
    visits: bool = True,
    ply: Optional[Tuple[int, int]] = None,
    score: Optional[Tuple[float, float]] = None,
    in_check: Optional[bool] = None,
    capture: Optional[bool] = None,
    pieces: Optional[Tuple[int, int]] = None,
    has_policy: Optional[bool] = None,
) -> Iterator[Batch]:
    """Every position of the file in :class:`Batch` es of ``batch_size`` (the last smaller),
    filtered as ``chessfmt selfplay`` filters (inclusive ranges of ply, score 0…1 and piece
    count; in check, capture played, visits stored). ``visits=False`` leaves the visit
    columns empty (faster). Decoding runs on a Rust thread, a batch ahead of the consumer;
    unreadable games are skipped and counted (``Batch.skipped_games``)."""
    it = _native.SelfplayPositions(
        fspath(path),
        batch_size,
        visits,
        ply=ply,
        score=score,
        in_check=in_check,
        capture=capture,
        pieces=pieces,
        has_policy=has_policy,
    )
    while True:
        got = it.next_batch()
        if got is None:
            return
        columns, n, skipped = got
        yield Batch(columns, n, skipped)
