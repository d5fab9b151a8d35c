"""ChessBase databases (``.cbh`` with its ``.cbg``, ``.cba``, … files, or ``.cbv``/``.cbz``
archives) as sequences of games::

    import chessfmt.chessbase

    with chessfmt.chessbase.open("twic.cbh") as db:
        print(len(db), db[0].white, db[0].black, db[0].result)
        for game in db:
            text = game.pgn()        # PGN text, as `chessfmt cbh export` writes it
            tree = game.game()       # a chess.pgn.Game with variations, comments and NAGs

Iteration decodes games in batches on Rust threads (the GIL released). A game that cannot be
read raises :class:`chessfmt.FormatError` from its ``pgn()``/``game()``; iteration goes on.
"""

from __future__ import annotations

import io
from typing import Dict, Iterator, List, Optional, Sequence, Union, overload

import chess.pgn

from . import FormatError, _native
from ._common import NativeHandle, Path, fspath, paths

__all__ = ["Database", "Game", "open", "export_pgn", "import_pgn"]

_BATCH = 256


def _tags(text: str) -> Dict[str, str]:
    """The tag pairs at the start of a PGN game (as the exporter writes them)."""
    tags: Dict[str, str] = {}
    for line in text.splitlines():
        if not line.startswith("["):
            break
        name, _, rest = line[1:].partition(' "')
        value = rest[:-2] if rest.endswith('"]') else rest.rstrip('"]')
        tags[name] = value.replace('\\"', '"').replace("\\\\", "\\")
    return tags


def _int(value: Optional[str]) -> Optional[int]:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


class Game:
    """A game of a database: its PGN text and header fields."""

    __slots__ = ("index", "number", "deleted", "_text", "_error", "_tags")

    def __init__(
        self, index: int, number: int, text: Optional[str], error: Optional[FormatError], deleted: bool = False
    ) -> None:
        self.index = index
        """Its position in the sequence (from 0)."""
        self.number = number
        """Its record number in the database (from 1)."""
        self.deleted = deleted
        """Whether the record is marked deleted (only with ``include_deleted=True``)."""
        self._text = text
        self._error = error
        self._tags: Optional[Dict[str, str]] = None

    def pgn(self) -> str:
        """The game as PGN (tags, moves with variations, comments and NAGs, result)."""
        if self._text is None:
            assert self._error is not None
            raise self._error
        return self._text

    def game(self) -> chess.pgn.Game:
        """The game as a :class:`chess.pgn.Game` (read by python-chess from :meth:`pgn`)."""
        game = chess.pgn.read_game(io.StringIO(self.pgn()))
        if game is None:  # pragma: no cover - the exporter always writes a game
            raise FormatError(f"game {self.number}: no game in its PGN")
        return game

    @property
    def headers(self) -> Dict[str, str]:
        """The PGN tag pairs (the seven-tag roster first, then what the header holds)."""
        if self._tags is None:
            self._tags = _tags(self.pgn())
        return self._tags

    def _tag(self, name: str) -> Optional[str]:
        return self.headers.get(name)

    event = property(lambda self: self._tag("Event"), doc="The Event tag.")
    site = property(lambda self: self._tag("Site"), doc="The Site tag.")
    date = property(lambda self: self._tag("Date"), doc="The Date tag (``YYYY.MM.DD``, ``?`` for unknown parts).")
    round = property(lambda self: self._tag("Round"), doc="The Round tag.")
    white = property(lambda self: self._tag("White"), doc="The White tag.")
    black = property(lambda self: self._tag("Black"), doc="The Black tag.")
    result = property(lambda self: self._tag("Result"), doc="The Result tag.")
    eco = property(lambda self: self._tag("ECO"), doc="The ECO code, when the header has one.")
    annotator = property(lambda self: self._tag("Annotator"), doc="The Annotator tag, when set.")
    white_elo = property(lambda self: _int(self._tag("WhiteElo")), doc="White's rating, when set.")
    black_elo = property(lambda self: _int(self._tag("BlackElo")), doc="Black's rating, when set.")

    def __repr__(self) -> str:
        if self._text is None:
            return f"<Game {self.number}: unreadable>"
        return f"<Game {self.number}: {self.white} - {self.black} {self.result}>"


class Database(NativeHandle, Sequence[Game]):
    """A ChessBase database's games, in record order."""

    def __init__(
        self,
        path: Path,
        *,
        password: Optional[str] = None,
        include_deleted: bool = False,
        annotations: bool = True,
        threads: Optional[int] = None,
    ) -> None:
        super().__init__(_native.ChessBaseDb(fspath(path), password, include_deleted, threads))
        self._annotations = annotations

    def __len__(self) -> int:
        return len(self._native())

    def _batch(self, start: int, stop: int) -> List[Game]:
        db = self._native()
        games = []
        for i, (text, message, offset, deleted) in enumerate(db.pgn_batch(start, stop, self._annotations), start):
            error = None
            if text is None:
                error = FormatError(message)
                error.path = None
                error.offset = offset
            games.append(Game(i, db.record(i), text, error, deleted))
        return games

    @overload
    def __getitem__(self, index: int) -> Game: ...

    @overload
    def __getitem__(self, index: slice) -> List[Game]: ...

    def __getitem__(self, index: Union[int, slice]) -> Union[Game, List[Game]]:
        n = len(self)
        if isinstance(index, slice):
            start, stop, step = index.indices(n)
            if step == 1:
                return self._batch(start, stop) if start < stop else []
            return [self[i] for i in range(start, stop, step)]
        i = index.__index__()
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("game index out of range")
        return self._batch(i, i + 1)[0]

    def __iter__(self) -> Iterator[Game]:
        n = len(self)
        for start in range(0, n, _BATCH):
            yield from self._batch(start, min(start + _BATCH, n))

    def export_pgn(self, out: Path, *, include_deleted: bool = False, overwrite: bool = False) -> dict:
        """Writes every game as PGN, as ``chessfmt cbh export`` does (byte for byte, written
        to a temporary file and renamed); returns the counts."""
        return self._native().export_pgn(
            fspath(out), annotations=self._annotations, include_deleted=include_deleted, overwrite=overwrite
        )


def open(
    path: Path,
    *,
    password: Optional[str] = None,
    include_deleted: bool = False,
    annotations: bool = True,
    threads: Optional[int] = None,
) -> Database:
    """Opens a database: a ``.cbh`` (its other files beside it) or a ``.cbv``/``.cbz``
    archive (``password`` for an encrypted ``.cbz``). Deleted games are left out unless
    ``include_deleted``; ``annotations=False`` leaves comments and NAGs out of the PGN."""
    return Database(path, password=password, include_deleted=include_deleted, annotations=annotations, threads=threads)


def export_pgn(
    path: Path,
    out: Path,
    *,
    password: Optional[str] = None,
    annotations: bool = True,
    include_deleted: bool = False,
    threads: Optional[int] = None,
    overwrite: bool = False,
) -> dict:
    """``chessfmt cbh export DB -o OUT``: the database as PGN, byte for byte the CLI's."""
    with Database(path, password=password, annotations=annotations, include_deleted=True, threads=threads) as db:
        return db.export_pgn(out, include_deleted=include_deleted, overwrite=overwrite)


def import_pgn(
    pgn_paths: Union[Path, Sequence[Path]],
    out: Path,
    *,
    encoding: Optional[str] = None,
    keep_tags: bool = False,
    threads: Optional[int] = None,
    overwrite: bool = False,
) -> dict:
    """``chessfmt cbh import``: a new database ``out`` (a ``.cbh``; its other files beside
    it) from PGN files (plain, ``.gz``, ``.zst``, ``.xz``), committed as a set.

    ``encoding`` names the code page of the database's texts (and of input texts that are
    not UTF-8), e.g. ``"windows-1251"``; ``keep_tags`` keeps the tags ChessBase has no field
    for in each game's text. A plain PGN file's games are read and encoded on ``threads``
    threads (all cores by default; the same database at every count). Games that cannot be imported are left out and listed
    (``skipped``); what the added games lost is counted by kind (``losses``).
    """
    return _native.chessbase_import(
        paths(pgn_paths), fspath(out), encoding=encoding, keep_tags=keep_tags, threads=threads, overwrite=overwrite
    )
