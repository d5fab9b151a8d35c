"""What the format modules share."""

from __future__ import annotations

import os
import random as _random
from typing import Any, Iterable, Optional, Sequence, TypeVar, Union

Path = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]

T = TypeVar("T")


def fspath(path: Path) -> str:
    """A path argument as text (bytes paths decoded the way the file system does)."""
    p = os.fspath(path)
    return os.fsdecode(p) if isinstance(p, bytes) else p


def check_open(native: Optional[T]) -> T:
    """The native object of an open reader; ``ValueError`` after ``close()``."""
    if native is None:
        raise ValueError("operation on a closed reader")
    return native


def randint(rng: Optional[_random.Random], a: int, b: int) -> int:
    """python-chess's draw: the module's ``random`` unless a generator is given."""
    return _random.randint(a, b) if rng is None else rng.randint(a, b)


def choose_uniform(entries: Iterable[T], rng: Optional[_random.Random]) -> T:
    """python-chess's ``choice``: reservoir sampling over the entries, its draws in its order;
    :exc:`IndexError` when there is none."""
    chosen: Optional[T] = None
    for i, entry in enumerate(entries):
        if chosen is None or randint(rng, 0, i) == i:
            chosen = entry
    if chosen is None:
        raise IndexError()
    return chosen


def choose_weighted(entries: Sequence[Any], rng: Optional[_random.Random]) -> Any:
    """python-chess's ``weighted_choice``: one draw below the total weight, the first entry
    whose running sum passes it; :exc:`IndexError` when the weights sum to 0."""
    total = sum(entry.weight for entry in entries)
    if not total:
        raise IndexError()
    choice = randint(rng, 0, total - 1)
    current = 0
    for entry in entries:
        current += entry.weight
        if current > choice:
            return entry
    raise AssertionError("unreachable")
