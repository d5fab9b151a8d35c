"""What the format modules share."""

from __future__ import annotations

import os
import random as _random
from typing import Any, Container, Iterator, List, Optional, Sequence, TypeVar, Union

Path = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

T = TypeVar("T")


def fspath(path: Path) -> str:
    """A path argument as text (bytes paths decoded the way the file system does)."""
    p = os.fspath(path)
    return os.fsdecode(p) if isinstance(p, bytes) else p


def randint(rng: Optional[_random.Random], a: int, b: int) -> int:
    """python-chess's draw: the module's ``random`` unless a generator is given."""
    return _random.randint(a, b) if rng is None else rng.randint(a, b)


class NativeHandle:
    """A Python object over a native one (a book, a database): a context manager; after
    :meth:`close` its memory is freed and using it is a :exc:`ValueError`."""

    def __init__(self, native: Any) -> None:
        self._handle: Optional[Any] = native

    def __enter__(self: T) -> T:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def close(self) -> None:
        """Closes the object (its memory is freed)."""
        self._handle = None

    def _native(self) -> Any:
        if self._handle is None:
            raise ValueError("operation on a closed reader")
        return self._handle


class BookQueries:
    """python-chess's reader methods over ``find_all``: ``find``, ``get``, ``choice``,
    ``weighted_choice`` (the same draws for the same ``random``)."""

    def find_all(self, board: Any, *, minimum_weight: int = 1, exclude_moves: Container[Any] = ()) -> Iterator[Any]:
        raise NotImplementedError

    def find(self, board: Any, *, minimum_weight: int = 1, exclude_moves: Container[Any] = ()) -> Any:
        """The (first) entry with the highest weight; :exc:`IndexError` if there is none."""
        try:
            return max(
                self.find_all(board, minimum_weight=minimum_weight, exclude_moves=exclude_moves),
                key=lambda entry: entry.weight,
            )
        except ValueError:
            raise IndexError() from None

    def get(
        self,
        board: Any,
        default: Optional[Any] = None,
        *,
        minimum_weight: int = 1,
        exclude_moves: Container[Any] = (),
    ) -> Optional[Any]:
        """:meth:`find`, or ``default`` when there is no entry."""
        try:
            return self.find(board, minimum_weight=minimum_weight, exclude_moves=exclude_moves)
        except IndexError:
            return default

    def choice(
        self,
        board: Any,
        *,
        minimum_weight: int = 1,
        exclude_moves: Container[Any] = (),
        random: Optional[_random.Random] = None,
    ) -> Any:
        """A uniformly random entry: python-chess's reservoir draw, in its order."""
        chosen = None
        for i, entry in enumerate(self.find_all(board, minimum_weight=minimum_weight, exclude_moves=exclude_moves)):
            if chosen is None or randint(random, 0, i) == i:
                chosen = entry
        if chosen is None:
            raise IndexError()
        return chosen

    def weighted_choice(
        self,
        board: Any,
        *,
        exclude_moves: Container[Any] = (),
        random: Optional[_random.Random] = None,
    ) -> Any:
        """A random entry by weight: python-chess's one draw below the total weight, the
        first entry whose running sum passes it; :exc:`IndexError` when the weights sum
        to 0."""
        entries = list(self.find_all(board, exclude_moves=exclude_moves))
        total = sum(entry.weight for entry in entries)
        if not total:
            raise IndexError()
        choice = randint(random, 0, total - 1)
        current = 0
        for entry in entries:
            current += entry.weight
            if current > choice:
                return entry
        raise AssertionError("unreachable")


def paths(one_or_many: Union[Path, Sequence[Path]]) -> List[str]:
    """A path or a sequence of paths, as a list of texts."""
    if isinstance(one_or_many, (str, bytes, os.PathLike)):
        return [fspath(one_or_many)]
    return [fspath(p) for p in one_or_many]
