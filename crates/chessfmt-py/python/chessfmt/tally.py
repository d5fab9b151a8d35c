"""The statistics table: (position, move) rows with results, counted from PGN and summed
like Spark's ``groupBy`` (the ``chessfmt tally`` commands; see ``chessfmt-tally``).

A table is Parquet when its name ends in ``.parquet`` (or ``.pq``), CSV with a header
(``key,epd,move,white,draws,black,games,…``) otherwise; tables are read in either form
whatever their name. pandas, DuckDB, Polars and pyarrow read both as they are. Books come
from a table with :func:`chessfmt.polyglot.from_tally` (byte for byte what a build gives)::

    import chessfmt.tally, chessfmt.polyglot

    chessfmt.tally.tally("jan.pgn.zst", "jan.parquet", part=1)
    chessfmt.tally.tally("feb.pgn.zst", "feb.parquet", part=2)
    chessfmt.tally.merge(["jan.parquet", "feb.parquet"], "all.parquet")
    chessfmt.polyglot.from_tally("all.parquet", "book.bin")
"""

from __future__ import annotations

from typing import Optional, Sequence, Tuple, Union

from . import _native
from ._common import Path, fspath, paths

__all__ = ["tally", "merge", "to_pgn"]


def tally(
    pgn_paths: Union[Path, Sequence[Path]],
    out: Path,
    *,
    max_ply: int = 1024,
    part: int = 0,
    threads: Optional[int] = None,
    memory_limit_mib: Optional[int] = None,
    compression: Optional[str] = None,
    overwrite: bool = False,
) -> dict:
    """Counts every (position, move) of the games of PGN files (plain, ``.gz``, ``.zst``,
    ``.xz``) into the table ``out``, as ``chessfmt tally``. ``part`` numbers this part of a
    collection counted apart (so merged parts order equal-weight moves as one tally would);
    ``memory_limit_mib`` keeps memory near that many MiB (sorted runs beside ``out``, the
    same table); ``compression`` is a Parquet table's codec, ``"snappy"`` (the default),
    ``"zstd"`` or ``"none"`` (a ``ValueError`` for a CSV table). Returns the counts."""
    return _native.tally_map(
        paths(pgn_paths),
        fspath(out),
        max_ply=max_ply,
        part=part,
        threads=threads,
        memory_limit_mib=memory_limit_mib,
        compression=compression,
        overwrite=overwrite,
    )


def merge(
    parts: Sequence[Path], out: Path, *, compression: Optional[str] = None, overwrite: bool = False
) -> Tuple[int, int]:
    """Sums tables into one (a k-way merge in bounded memory), as ``chessfmt tally merge``.
    ``compression`` is a Parquet output's codec, as for :func:`tally` (``None``: Snappy).
    Returns (rows read, rows written)."""
    return _native.tally_merge([fspath(p) for p in parts], fspath(out), compression=compression, overwrite=overwrite)


def to_pgn(table: Path, out: Path, *, max_ply: int = 12, min_games: int = 1, overwrite: bool = False) -> dict:
    """The table as one PGN game, the opening tree: the most played move the main line, the
    others variations, each move with ``{N games, +W =D -B}`` (White's view), to ``max_ply``
    plies, moves of fewer than ``min_games`` games left out; as ``chessfmt tally to-pgn``.
    ``chess.pgn.read_game`` reads it as a game with variations."""
    return _native.tally_to_pgn(fspath(table), fspath(out), max_ply=max_ply, min_games=min_games, overwrite=overwrite)
