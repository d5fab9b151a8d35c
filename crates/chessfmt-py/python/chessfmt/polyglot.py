"""Polyglot opening books (``.bin``) with python-chess's reader API.

A script written for :mod:`chess.polyglot` works by changing its import::

    import chess
    import chessfmt.polyglot

    with chessfmt.polyglot.open_reader("book.bin") as reader:
        for entry in reader.find_all(chess.Board()):
            print(entry.move, entry.weight, entry.learn)

The entries are python-chess's own :class:`chess.polyglot.Entry` tuples with
:class:`chess.Move` moves, found in the same order and filtered the same way; the search,
the key and the legality checks run in Rust. Beyond python-chess: :func:`build` (a book from
PGN files, as ``chessfmt polyglot build``), :func:`merge` and :func:`write`.

The book is read into memory when it is opened (python-chess maps it instead): a book that
another process truncates while it is open cannot crash the interpreter.
"""

from __future__ import annotations

import math
from typing import Any, Container, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import chess
from chess.polyglot import POLYGLOT_RANDOM_ARRAY, Entry, ZobristHasher, zobrist_hash

from . import _native
from ._common import BookQueries, NativeHandle, Path, fspath, paths

__all__ = [
    "Entry",
    "Reader",
    "MemoryMappedReader",
    "open_reader",
    "zobrist_hash",
    "ZobristHasher",
    "POLYGLOT_RANDOM_ARRAY",
    "build",
    "merge",
    "write",
    "from_tally",
    "to_tally",
]

_Move = chess.Move


def _raw_move(raw_move: int) -> chess.Move:
    """The move of a raw field, as python-chess decodes it without a board."""
    to_square = raw_move & 0x3F
    from_square = (raw_move >> 6) & 0x3F
    promotion_part = (raw_move >> 12) & 0x7
    promotion = promotion_part + 1 if promotion_part else None
    if from_square == to_square:
        return _Move(from_square, to_square, None, promotion)
    return _Move(from_square, to_square, promotion, None)


def _minimum(minimum_weight: Any) -> int:
    """python-chess compares ``weight < minimum_weight``: the smallest integer weight kept."""
    if type(minimum_weight) is int and 0 <= minimum_weight <= 1 << 17:
        return minimum_weight
    m = math.ceil(minimum_weight)
    return min(max(m, 0), 1 << 17)


class Reader(NativeHandle, BookQueries):
    """A Polyglot book (python-chess's ``MemoryMappedReader`` API; ``find``, ``get``,
    ``choice`` and ``weighted_choice`` from :class:`BookQueries`)."""

    def __init__(self, filename: Path) -> None:
        super().__init__(_native.PolyglotBook(fspath(filename)))

    def __len__(self) -> int:
        return len(self._native())

    def __getitem__(self, index: int) -> Entry:
        book = self._native()
        if index < 0:
            index = len(book) + index
        if index < 0 or index >= len(book):
            raise IndexError()
        ((key, raw_move, weight, learn),) = book.entries(index, index + 1)
        return Entry(key, raw_move, weight, learn, _raw_move(raw_move))

    def __iter__(self) -> Iterator[Entry]:
        book = self._native()
        n = len(book)
        for start in range(0, n, 4096):
            for key, raw_move, weight, learn in book.entries(start, start + 4096):
                yield Entry(key, raw_move, weight, learn, _raw_move(raw_move))

    def bisect_key_left(self, key: int) -> int:
        return self._native().key_range(key)[0]

    def __contains__(self, entry: Entry) -> bool:
        return any(current == entry for current in self.find_all(entry.key, minimum_weight=entry.weight))

    def find_all(
        self,
        board: Union[chess.Board, int],
        *,
        minimum_weight: int = 1,
        exclude_moves: Container[chess.Move] = (),
    ) -> Iterator[Entry]:
        """Seeks a specific position and yields corresponding entries."""
        book = self._native()
        minimum = _minimum(minimum_weight)
        if not isinstance(board, chess.BaseBoard):
            # A key (anything int() takes), as python-chess tries first.
            try:
                key = int(board)  # type: ignore[arg-type]
            except (TypeError, ValueError):
                pass
            else:
                return self._find_all_key(key, minimum, exclude_moves)
        found = book.find_all(board, minimum)
        if found is None:
            return self._find_all_python(board, minimum, exclude_moves)
        if exclude_moves:
            return iter([entry for entry in found if entry.move not in exclude_moves])
        return iter(found)

    def _find_all_key(self, key: int, minimum: int, exclude_moves: Container[chess.Move]) -> Iterator[Entry]:
        """The entries of a key, their moves decoded without a board (as python-chess does)."""
        if not 0 <= key < 1 << 64:
            return
        for raw_move, weight, learn in self._native().find_key(key, minimum):
            move = _raw_move(raw_move)
            if exclude_moves and move in exclude_moves:
                continue
            yield Entry(key, raw_move, weight, learn, move)

    def _find_all_python(
        self, board: chess.Board, minimum: int, exclude_moves: Container[chess.Move]
    ) -> Iterator[Entry]:
        """python-chess's own steps, for boards Rust leaves to it (variants, odd positions)."""
        key = zobrist_hash(board)
        for raw_move, weight, learn in self._native().find_key(key, minimum):
            raw = _raw_move(raw_move)
            move = board._from_chess960(board.chess960, raw.from_square, raw.to_square, raw.promotion, raw.drop)
            if exclude_moves and move in exclude_moves:
                continue
            if not board.is_legal(move):
                continue
            yield Entry(key, raw_move, weight, learn, move)


#: python-chess's name for the reader, for scripts that name the class.
MemoryMappedReader = Reader


def open_reader(path: Path) -> Reader:
    """Opens the Polyglot book at ``path`` (:class:`chessfmt.FormatError` if it is not one)."""
    return Reader(path)


def build(
    pgn_paths: Union[Path, Sequence[Path]],
    out: Path,
    *,
    max_ply: int = 1024,
    min_game: int = 3,
    min_score: float = 0.0,
    only: Optional[str] = None,
    uniform: bool = False,
    policy: str = "score",
    memory_limit_mib: Optional[int] = None,
    threads: Optional[int] = None,
    overwrite: bool = False,
) -> dict:
    """Builds a book from PGN files (plain, ``.gz``, ``.zst``, ``.xz``) as
    ``chessfmt polyglot build`` does, byte for byte (``polyglot make-book``'s book).

    ``only`` is ``None``, ``"white"`` or ``"black"``; ``threads`` defaults to all cores. The
    book is written to a temporary file and renamed: an existing ``out`` is refused unless
    ``overwrite``. Returns the counts (``games_read``, ``games_skipped``, ``entries``,
    ``pairs``). Games that cannot be read are skipped and counted. ``memory_limit_mib``
    keeps memory near that many MiB (plies of rarer positions spilled beside ``out`` and
    merged at the end, as ``chessfmt polyglot build --memory-limit``): the same book.
    ``policy`` weighs the kept moves: ``"score"`` (2·wins + draws of the mover, make-book's),
    ``"games"`` (games played) or ``"uniform"`` (as ``uniform=True``).
    """
    return _native.polyglot_build(
        paths(pgn_paths),
        fspath(out),
        max_ply=max_ply,
        min_game=min_game,
        min_score=min_score,
        only=only,
        uniform=uniform,
        policy=policy,
        memory_limit_mib=memory_limit_mib,
        threads=threads,
        overwrite=overwrite,
    )


def merge(books: Sequence[Path], out: Path, *, strategy: str = "sum", overwrite: bool = False) -> Tuple[int, int]:
    """Merges books (in priority order) into ``out``: weights summed (saturating), the
    largest kept (``"max"``) or the first book's (``"first"``). Returns (entries read,
    entries written)."""
    return _native.polyglot_merge([fspath(b) for b in books], fspath(out), strategy=strategy, overwrite=overwrite)


def write(entries: Iterable[Union[Entry, Tuple[int, int, int, int]]], out: Path, *, overwrite: bool = False) -> int:
    """Writes entries (python-chess ``Entry`` tuples, or ``(key, raw_move, weight, learn)``)
    as a book, sorted the canonical way. Returns the number written."""
    rows: List[Tuple[int, int, int, int]] = []
    for e in entries:
        rows.append((int(e[0]), int(e[1]), int(e[2]), int(e[3])))
    return _native.polyglot_write(rows, fspath(out), overwrite=overwrite)


def from_tally(
    tables: Union[Path, Sequence[Path]],
    out: Path,
    *,
    min_game: int = 3,
    min_score: float = 0.0,
    only: Optional[str] = None,
    uniform: bool = False,
    policy: str = "score",
    overwrite: bool = False,
) -> dict:
    """A book from a statistics table (:mod:`chessfmt.tally`) with :func:`build`'s options,
    as ``chessfmt polyglot from-tally``: the bytes a build from the same games gives while no
    move reaches 16,384 plays (then the totals are halved, counted in ``halved``).
    Several tables (a sequence of paths), each sorted, are merged as they are read: the rows
    :func:`chessfmt.tally.merge` would write, never written out."""
    return _native.polyglot_from_tally(
        paths(tables),
        fspath(out),
        min_game=min_game,
        min_score=min_score,
        only=only,
        uniform=uniform,
        policy=policy,
        overwrite=overwrite,
    )


def to_tally(book: Path, out: Path, *, overwrite: bool = False) -> dict:
    """The book's moves as a table (each weight as that many drawn games, so the weights come
    back through :func:`from_tally`), as ``chessfmt polyglot to-tally``."""
    return _native.polyglot_to_tally(fspath(book), fspath(out), overwrite=overwrite)
