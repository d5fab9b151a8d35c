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

and any book or table becomes any other through it with :func:`convert`.
"""

from __future__ import annotations

import os
import tempfile
from typing import Optional, Sequence, Tuple, Union

from . import _native
from ._common import Path, fspath, paths

__all__ = ["tally", "merge", "to_pgn", "convert"]


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


#: What :func:`convert` reads and writes, by extension.
_KINDS = {
    ".bin": "polyglot",
    ".ctg": "ctg",
    ".cto": "ctg",
    ".ctb": "ctg",
    ".kob": "kvetka",
    ".kin": "kvetka",
    ".csv": "table",
    ".parquet": "table",
    ".pq": "table",
    ".pgn": "pgn",
}


def _kind(path: Path) -> str:
    ext = os.path.splitext(fspath(path))[1].lower()
    kind = _KINDS.get(ext)
    if kind is None:
        raise ValueError(
            f"{fspath(path)}: name the format by extension: .bin (Polyglot), .ctg (CTG), .kob "
            "(Kvetka), .csv or .parquet (table), .pgn (the tree, as output)"
        )
    return kind


def _members(path: Path, kind: str) -> list:
    """The files a book of `kind` at `path` is made of (as the writers name them)."""
    base = os.path.splitext(os.path.abspath(fspath(path)))[0]
    if kind == "ctg":
        return [base + ext for ext in (".ctg", ".cto", ".ctb")]
    if kind == "kvetka":
        return [base + ".kin", base + "_0.kob", base + ".ksf"]
    return [os.path.abspath(fspath(path))]


def convert(input: Path, out: Path, *, policy: Optional[str] = None, overwrite: bool = False) -> dict:
    """Any book or table to any other, chosen by extension, as ``chessfmt convert IN OUT``:
    Polyglot (``.bin``), CTG (``.ctg``), Kvetka (``.kob``), the statistics table (``.csv``,
    ``.parquet``), or ``.pgn`` for the tree as one game with variations (12 plies, as
    :func:`to_pgn`). A book goes through the table (its walk from the start, as its
    ``to_tally``); a Polyglot book is written with every move kept (``min_game=1``), weighed
    by ``policy`` (``"score"`` by default, ``"games"``, ``"uniform"``; only for a Polyglot
    output: the other formats keep the counts themselves). Returns
    ``{"read": …, "written": …}``: the counts of each step, what the output could not hold
    among them (rows left out, moves without a code, …)."""
    from . import ctg, kvetka, polyglot

    src, dst = _kind(input), _kind(out)
    if src == "pgn":
        raise ValueError(f"{fspath(input)}: PGN is written (the tree), not read: build a book from games")
    if policy is not None and dst != "polyglot":
        raise ValueError("policy= weighs the moves of a Polyglot book (.bin): the others keep the counts")
    # Never over the input (the book is written from a table beside it, so the writers
    # cannot see it), nor over an existing output without `overwrite`, before any work.
    ins = {os.path.realpath(m) for m in _members(input, src)}
    if any(os.path.realpath(m) in ins for m in _members(out, dst)):
        raise ValueError(f"{fspath(out)}: the output is one of the inputs")
    if not overwrite and os.path.exists(fspath(out)):
        raise FileExistsError(17, "the output exists (pass overwrite=True to replace it)", fspath(out))
    books = {"polyglot": polyglot, "ctg": ctg, "kvetka": kvetka}
    if src != "table" and dst == "table":
        return {"read": books[src].to_tally(input, out, overwrite=overwrite), "written": {}}
    # The table the book becomes, beside the output (removed after).
    folder = os.path.dirname(os.path.abspath(fspath(out)))
    with tempfile.TemporaryDirectory(prefix=".chessfmt-convert-", dir=folder) as scratch:
        if src == "table":
            table: Path = input
            read: dict = {}
        else:
            table = os.path.join(scratch, "table.parquet")
            read = books[src].to_tally(input, table)
        if dst == "table":
            rows_read, rows_written = merge([table], out, overwrite=overwrite)
            written = {"rows_read": rows_read, "rows": rows_written}
        elif dst == "pgn":
            written = to_pgn(table, out, overwrite=overwrite)
        elif dst == "polyglot":
            written = polyglot.from_tally(table, out, min_game=1, policy=policy or "score", overwrite=overwrite)
        elif src == dst == "kvetka":
            # The output is given the input's header (caption, Elo filters, ply limit).
            written = _native.kvetka_from_tally(
                [table], fspath(out), caption="", overwrite=overwrite, header_of=fspath(input)
            )
        else:
            written = books[dst].from_tally(table, out, overwrite=overwrite)
    return {"read": read, "written": written}
