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
    if target.startswith(("postgresql://", "postgres://")):
        from clawharness.store.postgres import PostgresStore

        return PostgresStore(target)
    if target.startswith("sqlite:"):
        if not target.startswith("sqlite:///") or target == "sqlite:///":
            raise StoreError(f"store url {target!r}: expected sqlite:///<path to a file>")
        target = target[len("sqlite:///"):]
        if target == ":memory:":
            raise StoreError("the SQLite store needs a file; :memory: is not supported")
    elif "://" in target:
        raise StoreError(f"store url {target!r}: expected sqlite:///path, a path or postgresql://")
    from clawharness.store.sqlite import SqliteStore

    return SqliteStore(target)
