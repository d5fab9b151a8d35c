"""Kvetka opening books (``.kob`` files with their ``.kin`` index and ``.ksf`` game list).

The reader has python-chess's Polyglot reader API over :class:`chess.Board` positions, and
entries with the results Kvetka stores::

    import chess
    import chessfmt.kvetka

    with chessfmt.kvetka.open_reader("book.kob") as book:
        for e in book.find_all(chess.Board()):
            print(e.move, e.wins, e.draws, e.losses)
        print(book.stats(chess.Board()).opening)

Weights follow a policy: ``"score"`` (2·wins + draws of the mover, the default), ``"games"``
or ``"uniform"``.
"""

from __future__ import annotations

from typing import NamedTuple, Optional, Sequence, Tuple, Union

import chess

from . import _native
from ._common import Path, fspath, paths
from ._reader import BookPosition, StatsReader

__all__ = ["Entry", "PositionStats", "BookPosition", "Reader", "open_reader", "build", "to_polyglot", "from_tally", "to_tally", "POLICIES"]

#: Weight policies.
POLICIES = ("score", "games", "uniform")


class Entry(NamedTuple):
    """A book move with the results of the position after it (the mover's view)."""

    move: chess.Move
    weight: int
    """By the reader's policy."""
    games: int
    wins: int
    draws: int
    losses: int
    in_book: bool
    """Whether the position after the move is in the book (the results are 0 when not)."""
    raw_move: int
    """The stored move code."""


class PositionStats(NamedTuple):
    """What Kvetka stores about a position (results from the side to move's view)."""

    games: int
    wins: int
    draws: int
    losses: int
    comment: Optional[str]
    eco: Optional[str]
    opening: Optional[str]
    variation: Optional[str]


def _entry(move: chess.Move, weight: int, games: int, wins: int, draws: int, losses: int, in_book: int, code: int) -> Entry:
    return Entry(move, weight, games, wins, draws, losses, bool(in_book), code)


class Reader(StatsReader[Entry, PositionStats]):
    """A Kvetka book read into memory (any of its files names it)."""

    _format = "Kvetka"

    def __init__(self, path: Path, *, policy: str = "score") -> None:
        super().__init__(_native.KvetkaBook(fspath(path), policy), _entry, PositionStats)

    @property
    def caption(self) -> str:
        """The book's caption (its header text)."""
        return self._native().header()[0]


def open_reader(path: Path, *, policy: str = "score") -> Reader:
    """Opens the Kvetka book that ``path`` (a ``.kob``, ``.kin`` or ``.ksf``) belongs to."""
    return Reader(path, policy=policy)


def build(
    pgn_paths: Union[Path, Sequence[Path]],
    out: Path,
    *,
    memory_limit_mib: int = 64,
    overwrite: bool = False,
) -> dict:
    """Builds a Kvetka book from PGN files, as ``chessfmt kvetka build``; returns its counts."""
    return _native.kvetka_build(paths(pgn_paths), fspath(out), memory_limit_mib=memory_limit_mib, overwrite=overwrite)


def to_polyglot(book: Path, out: Path, *, policy: str = "score", overwrite: bool = False) -> Tuple[int, int]:
    """Converts the book to a Polyglot book (as ``chessfmt kvetka to-polyglot``); returns
    (positions, entries)."""
    return _native.kvetka_to_polyglot(fspath(book), fspath(out), policy_name=policy, overwrite=overwrite)


def from_tally(tables: Union[Path, Sequence[Path]], out: Path, *, caption: str = "", overwrite: bool = False) -> dict:
    """A Kvetka book from a statistics table (:mod:`chessfmt.tally`), as ``chessfmt kvetka
    from-tally``: a position's statistics from the rows reaching it, its moves from the rows
    leaving it; rows left out and moves Kvetka cannot code are counted.
    Several tables (a sequence of paths), each sorted, are merged as they are read: the rows
    :func:`chessfmt.tally.merge` would write, never written out."""
    return _native.kvetka_from_tally(paths(tables), fspath(out), caption=caption, overwrite=overwrite)


def to_tally(book: Path, out: Path, *, overwrite: bool = False) -> dict:
    """The book walked from the start as a statistics table (each move with the statistics
    of the position after it), as ``chessfmt kvetka to-tally``."""
    return _native.kvetka_to_tally(fspath(book), fspath(out), overwrite=overwrite)
