"""Persistent state: sessions, transcript entries and plugin state.

`open_store(url_or_path)` picks the implementation; call `await store.open()` next.
"""

from __future__ import annotations

from pathlib import Path

from clawharness.errors import StoreError
from clawharness.store.base import (
    AppendOutcome,
    NewEntry,
    PluginStateRecord,
    SearchHit,
    SessionRecord,
    Store,
    SyncPluginStateView,
    TranscriptEntry,
)
from clawharness.store.urls import display_store_url, store_url_error

__all__ = [
    "AppendOutcome",
    "NewEntry",
    "PluginStateRecord",
    "SearchHit",
    "SessionRecord",
    "Store",
    "SyncPluginStateView",
    "TranscriptEntry",
    "open_store",
]


def open_store(url_or_path: str | Path) -> Store:
    """A store (not yet opened) for `sqlite:///relative.db`, `sqlite:////abs/path.db`,
    a bare file path, or `postgresql://...` / `postgres://...`."""
    target = str(url_or_path)
    problem = store_url_error(target)
    if problem is not None:
        raise StoreError(f"store url {display_store_url(target)!r}: {problem}")
    if target.startswith(("postgresql://", "postgres://")):
        from clawharness.store.postgres import PostgresStore

        return PostgresStore(target)
    target = target.removeprefix("sqlite:///")
    from clawharness.store.sqlite import SqliteStore

    return SqliteStore(target)
