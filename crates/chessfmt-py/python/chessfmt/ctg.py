"""ChessBase CTG opening books (``.ctg`` with its ``.cto`` and ``.ctb``).

The reader has python-chess's Polyglot reader API (``find_all``, ``find``, ``get``,
``choice``, ``weighted_choice``, a context manager) over :class:`chess.Board` positions, and
entries that carry what CTG stores::

    import chess
    import chessfmt.ctg

    with chessfmt.ctg.open_reader("book.ctg") as book:
        for e in book.find_all(chess.Board()):
            print(e.move, e.games, e.wins, e.draws, e.losses, e.recommendation)

Colour-flipped and mirrored positions are found as CTG stores them (the moves come back on
the board asked). Weights follow a policy (``"score"`` by default: 2·wins + draws of the
mover, as ``chessfmt ctg to-polyglot``).
"""

from __future__ import annotations

from typing import NamedTuple, Optional, Sequence, Tuple, Union

import chess

from . import _native
from ._common import Path, fspath, paths
from ._reader import BookPosition, StatsReader

__all__ = ["Entry", "PositionStats", "BookPosition", "Reader", "open_reader", "build", "to_polyglot", "from_tally", "to_tally", "POLICIES"]

#: Weight policies (as ``chessfmt ctg to-polyglot --policy``).
POLICIES = ("score", "score-no-red", "score-green", "droidfish", "games", "uniform")


class Entry(NamedTuple):
    """A book move with the statistics of the position after it (the mover's view)."""

    move: chess.Move
    weight: int
    """By the reader's policy."""
    games: int
    wins: int
    draws: int
    losses: int
    nag: int
    """The move's annotation as a NAG (1 ``!``, 2 ``?``, 3 ``!!``, 4 ``??``, 5 ``!?``, 6 ``?!``, 8, 22), 0 for none."""
    annotation: int
    """The stored annotation byte."""
    recommendation: str
    """``"green"``, ``"red"`` or ``"none"``."""
    commentary: int
    """The position NAG of the position after the move (0 for none)."""
    rating1_games: int
    rating1_average: int
    rating2_games: int
    rating2_average: int
    raw_move: int
    """The stored move code."""


class PositionStats(NamedTuple):
    """What CTG stores about a position (results from the side to move's view)."""

    games: int
    wins: int
    draws: int
    losses: int
    rating1_games: int
    rating1_average: int
    rating2_games: int
    rating2_average: int
    recommendation: str
    commentary: int


class Reader(StatsReader[Entry, PositionStats]):
    """A CTG book read into memory."""

    _format = "CTG"

    def __init__(self, path: Path, *, policy: str = "score") -> None:
        super().__init__(_native.CtgBook(fspath(path), policy), Entry, PositionStats)

    def __len__(self) -> int:
        """The number of positions the header counts."""
        return self._native().header()[1]

    @property
    def games(self) -> int:
        """The number of games the header counts."""
        return self._native().header()[2]


def open_reader(path: Path, *, policy: str = "score") -> Reader:
    """Opens the CTG book at ``path`` (its ``.cto`` and ``.ctb`` beside it)."""
    return Reader(path, policy=policy)


def build(
    pgn_paths: Union[Path, Sequence[Path]],
    out: Path,
    *,
    max_ply: int = 1024,
    memory_limit_mib: Optional[int] = None,
    threads: Optional[int] = None,
    overwrite: bool = False,
) -> dict:
    """Builds a CTG book from PGN files, as ``chessfmt ctg build``; returns its counts.

    ``memory_limit_mib`` keeps the table of positions near that many MiB (sorted runs beside
    ``out``, merged as the book streams to its files): the same book."""
    return _native.ctg_build(
        paths(pgn_paths),
        fspath(out),
        max_ply=max_ply,
        memory_limit_mib=memory_limit_mib,
        threads=threads,
        overwrite=overwrite,
    )


def to_polyglot(book: Path, out: Path, *, policy: str = "score", overwrite: bool = False) -> Tuple[int, int]:
    """Converts the book to a Polyglot book (as ``chessfmt ctg to-polyglot``); returns
    (positions, entries)."""
    return _native.ctg_to_polyglot(fspath(book), fspath(out), policy_name=policy, overwrite=overwrite)


def from_tally(tables: Union[Path, Sequence[Path]], out: Path, *, overwrite: bool = False) -> dict:
    """A CTG book from a statistics table (:mod:`chessfmt.tally`), as ``chessfmt ctg
    from-tally``: a position's statistics from the rows reaching it, its moves from the rows
    leaving it; rows left out and moves CTG cannot code are counted.
    Several tables (a sequence of paths), each sorted, are merged as they are read: the rows
    :func:`chessfmt.tally.merge` would write, never written out."""
    return _native.ctg_from_tally(paths(tables), fspath(out), overwrite=overwrite)


def to_tally(book: Path, out: Path, *, overwrite: bool = False) -> dict:
    """The book walked from the start as a statistics table (each move with the statistics
    of the position after it), as ``chessfmt ctg to-tally``."""
    return _native.ctg_to_tally(fspath(book), fspath(out), overwrite=overwrite)
