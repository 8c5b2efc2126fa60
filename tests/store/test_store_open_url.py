"""`open_store` picks the implementation from a URL or a path."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawharness.errors import StoreError
from clawharness.store import open_store
from clawharness.store.postgres import PostgresStore
from clawharness.store.sqlite import SqliteStore


def test_a_bare_path_and_sqlite_urls_open_the_sqlite_store(tmp_path: Path) -> None:
    bare = open_store(tmp_path / "a.db")
    assert isinstance(bare, SqliteStore) and bare.path == tmp_path / "a.db"
    absolute = open_store(f"sqlite:///{tmp_path}/b.db")
    assert isinstance(absolute, SqliteStore) and absolute.path == tmp_path / "b.db"
    relative = open_store("sqlite:///rel/c.db")
    assert isinstance(relative, SqliteStore) and relative.path == Path.cwd() / "rel" / "c.db"
    assert absolute.url == f"sqlite:///{tmp_path}/b.db"
    assert open_store(absolute.url).path == absolute.path  # type: ignore[attr-defined]


def test_postgres_urls_open_the_postgres_store() -> None:
    for url in ("postgresql://u@h:5432/db", "postgres://u@h/db"):
        store = open_store(url)
        assert isinstance(store, PostgresStore) and store.url == url


@pytest.mark.parametrize("url", ["mysql://h/db", "sqlite://", "sqlite:///", "sqlite:///:memory:",
                                 "sqlite:relative.db"])
def test_other_urls_are_refused(url: str) -> None:
    with pytest.raises(StoreError):
        open_store(url)
