"""chessfmt: chess file formats from Python, read and written by the chessfmt Rust crates.

Modules: :mod:`chessfmt.polyglot` (python-chess's reader API, plus build/merge/write),
:mod:`chessfmt.ctg` and :mod:`chessfmt.kvetka` (the same reader API with each format's
statistics), :mod:`chessfmt.chessbase` (``.cbh``/``.cbv``/``.cbz`` databases as sequences of
games), :mod:`chessfmt.selfplay` (Monty self-play data as games or numpy batches) and
:mod:`chessfmt.tally` (the (position, move) statistics table between games and books).

Errors: :class:`FormatError` (a :class:`ValueError` with ``path`` and ``offset``) when a
file's bytes are not valid, :class:`OSError` when the operating system fails.
"""

from ._native import FormatError, __version__

__all__ = ["FormatError", "__version__"]
