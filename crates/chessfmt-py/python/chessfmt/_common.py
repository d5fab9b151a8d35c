"""What the format modules share."""

from __future__ import annotations

import os
import random as _random
from typing import Optional, TypeVar, Union

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
