"""Paths the tests read: the shared corpus beside the repository (never copied into it) and
the repository's generated fixtures. A test whose data is missing while the corpus is
present fails; without the corpus (a checkout alone) such tests are skipped, except under CI,
where they fail."""

import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[3]
CORPUS = (REPO.parent / "shared" / "corpus").resolve()
TESTDATA = REPO / "testdata"


def corpus(rel: str) -> pathlib.Path:
    """A corpus file, or a skip (a failure under CI or when the corpus is present)."""
    path = CORPUS / rel
    if not path.exists():
        if CORPUS.is_dir() or os.environ.get("CI"):
            pytest.fail(f"{path} is missing")
        pytest.skip(f"{CORPUS} is absent")
    return path


@pytest.fixture
def first10000() -> pathlib.Path:
    return corpus("polyglot/pgn/gnuchess-book_1.02-first10000.pgn")
