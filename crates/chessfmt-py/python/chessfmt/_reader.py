"""The reader API python-chess gives Polyglot books, for books that store statistics (CTG,
Kvetka): entries found by board, filtered by weight and excluded moves, chosen at random the
way python-chess chooses."""

from __future__ import annotations

from typing import Any, Callable, Container, Generic, Iterator, List, Optional, Tuple, TypeVar

import chess

from ._common import BookQueries, NativeHandle

E = TypeVar("E")
P = TypeVar("P")


class BookPosition(Generic[E, P]):
    """A position of a book met by iterating it: ``board``, its ``entries`` and ``stats``."""

    __slots__ = ("board", "entries", "stats")

    def __init__(self, board: chess.Board, entries: List[E], stats: P) -> None:
        self.board = board
        self.entries = entries
        self.stats = stats

    def __repr__(self) -> str:
        return f"BookPosition({self.board.fen()!r}, {len(self.entries)} entries)"


class StatsReader(NativeHandle, BookQueries, Generic[E, P]):
    """What the CTG and Kvetka readers share; each says how a move row and a position row
    become its entry and statistics types."""

    _format = "book"

    def __init__(self, native: Any, make_entry: Callable[..., E], make_stats: Callable[..., P]) -> None:
        super().__init__(native)
        self._make_entry = make_entry
        self._make_stats = make_stats

    def _entry(self, row: List[Any]) -> E:
        code, from_square, to_square, promotion, *rest = row
        return self._make_entry(chess.Move(from_square, to_square, promotion or None), *rest, code)

    def _probe(self, board: chess.Board) -> Optional[Tuple[List[E], P]]:
        if not isinstance(board, chess.BaseBoard):
            raise TypeError(
                f"{self._format} books have no Zobrist keys: pass a chess.Board, not {type(board).__name__}"
            )
        probed = self._native().probe(board)
        if probed is None:
            return None
        moves, position = probed
        return [self._entry(m) for m in moves], self._make_stats(*position)

    def stats(self, board: chess.Board) -> Optional[P]:
        """The statistics the book keeps for ``board``'s position, or ``None`` when it is not
        in the book."""
        probed = self._probe(board)
        return None if probed is None else probed[1]

    def find_all(
        self,
        board: chess.Board,
        *,
        minimum_weight: int = 1,
        exclude_moves: Container[chess.Move] = (),
    ) -> Iterator[E]:
        """The book's entries for ``board`` in stored order, those of at least
        ``minimum_weight`` (by the reader's weight policy) and not in ``exclude_moves``."""
        probed = self._probe(board)
        if probed is None:
            return iter(())
        return iter(
            [
                e
                for e in probed[0]
                if e.weight >= minimum_weight  # type: ignore[attr-defined]
                and not (exclude_moves and e.move in exclude_moves)  # type: ignore[attr-defined]
            ]
        )

    def positions(self, *, max_ply: Optional[int] = None) -> Iterator[BookPosition[E, P]]:
        """Every position of the book reachable from the start position (breadth first, up
        to ``max_ply`` half-moves), with its entries and statistics. The walk runs in Rust on
        a thread of its own; memory does not grow with the book."""

        def make(fen: str, moves: List[List[Any]], position: List[Any]) -> BookPosition[E, P]:
            return BookPosition(chess.Board(fen), [self._entry(m) for m in moves], self._make_stats(*position))

        return iter(self._native().positions(make, max_ply))

    def __iter__(self) -> Iterator[BookPosition[E, P]]:
        return self.positions()
