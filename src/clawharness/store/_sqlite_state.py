"""The SQLite store's plugin-state methods, async and blocking (see
`clawharness.store.sqlite`): one-row reads inline on the event loop, conditional writes
through the writer; the blocking forms on a connection of their own, one autocommit
statement each."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from clawharness.errors import StoreError
from clawharness.store import _sqlite_sql as q
from clawharness.store._sqlite_transcript import INLINE_LAST
from clawharness.store._sqlite_writer import translate
from clawharness.store.records import PluginStateRecord, dump_json

__all__ = ["PluginStateMethods"]

_T = TypeVar("_T")


def _state(row: Sequence[Any] | None) -> PluginStateRecord | None:
    if row is None:
        return None
    return PluginStateRecord(row[0], row[1], json.loads(row[2]), row[3], row[4], row[5])


def _prefix_bounds(prefix: str) -> tuple[str, str | None]:
    if not prefix or ord(prefix[-1]) >= 0x10FFFF:
        return prefix, None
    return prefix, prefix[:-1] + chr(ord(prefix[-1]) + 1)


class PluginStateMethods:
    """The `Store` protocol's plugin-state methods, for `SqliteStore`."""

    if TYPE_CHECKING:
        path: Path
        _sync: sqlite3.Connection | None
        _sync_lock: threading.Lock
        _quiet_inbox: int | None

        def _commit_deferred(self) -> None: ...
        def _quiet_namespace(self, namespace: str) -> int | None: ...
        def _note_quiet(self, namespace: str, version: int) -> None: ...

        def _write(self, fn: Callable[[sqlite3.Connection], _T]) -> asyncio.Future[_T]: ...
        async def _read(self, fn: Callable[[sqlite3.Connection], _T], *,
                        inline: bool = False) -> _T: ...

    # plugin state ---------------------------------------------------------------------
    async def state_get(self, namespace: str, key: str) -> PluginStateRecord | None:
        """One plugin-state row, or None."""
        return await self._read(lambda c: _state(q.state_get(c, namespace, key)), inline=True)

    async def state_list(self, namespace: str, *, prefix: str = "") -> list[PluginStateRecord]:
        """Rows of `namespace` whose key starts with `prefix`, in key order. (The
        steering inbox's namespace, read at every tool boundary, seen with no rows at
        all at the loop connection's `data_version` still current: nobody committed
        anything since, so it has none still, and no read is made. `_quiet_namespace`.)"""
        version = self._quiet_namespace(namespace)
        if version is None:
            return []
        low, high = _prefix_bounds(prefix)

        def first(conn: sqlite3.Connection) -> list[Any]:
            return q.state_list(conn, namespace, low, high, INLINE_LAST + 1)

        def every(conn: sqlite3.Connection) -> list[Any]:
            return q.state_list(conn, namespace, low, high)

        # a few rows (a session's steering offers, mostly none): an index seek on the
        # event loop; more: all of them read in a thread
        rows: list[Any] = await self._read(first, inline=True)
        if len(rows) > INLINE_LAST:
            rows = await self._read(every)
        if not rows:
            if version >= 0:
                self._note_quiet(namespace, version)
            return []
        return [r for r in map(_state, rows) if r is not None and r.key.startswith(prefix)]

    async def state_insert_if_absent(
        self, namespace: str, key: str, value: Any, *,
        lease_token: str | None = None, lease_expires_at: float | None = None,
    ) -> PluginStateRecord | None:
        """Insert at generation 1; None when the key already exists."""
        raw = dump_json(value, f"plugin state {namespace}/{key}")
        self._quiet_inbox = None  # (its commit changes the loop's `data_version` anyway)
        return await self._write(lambda c: _state(
            q.state_insert(c, namespace, key, raw, lease_token, lease_expires_at)))

    async def state_update_if(
        self, namespace: str, key: str, expected_generation: int, value: Any, *,
        lease_token: str | None = None, lease_expires_at: float | None = None,
    ) -> PluginStateRecord | None:
        """Write when the stored generation equals `expected_generation`; None otherwise."""
        raw = dump_json(value, f"plugin state {namespace}/{key}")
        return await self._write(lambda c: _state(q.state_update(
            c, namespace, key, expected_generation, raw, lease_token, lease_expires_at)))

    async def state_delete_if(self, namespace: str, key: str, expected_generation: int) -> bool:
        """Delete when the stored generation equals `expected_generation`."""
        return await self._write(lambda c: q.state_delete(c, namespace, key, expected_generation))

    # the same rows, synchronously --------------------------------------------------------
    def _sync_call(self, fn: Callable[[sqlite3.Connection], _T]) -> _T:
        self._commit_deferred()  # on the loop, a write left open would block this one
        with self._sync_lock:
            if self._sync is None:
                raise StoreError(f"{self.path}: the store is not open")
            try:
                return fn(self._sync)
            except sqlite3.Error as exc:
                raise translate(exc, self.path, "plugin-state access") from exc

    def state_get_sync(self, namespace: str, key: str) -> PluginStateRecord | None:
        """`state_get`, blocking."""
        return self._sync_call(lambda c: _state(q.state_get(c, namespace, key)))

    def state_insert_if_absent_sync(
        self, namespace: str, key: str, value: Any, *,
        lease_token: str | None = None, lease_expires_at: float | None = None,
    ) -> PluginStateRecord | None:
        """`state_insert_if_absent`, blocking (one autocommit statement)."""
        raw = dump_json(value, f"plugin state {namespace}/{key}")
        self._quiet_inbox = None
        return self._sync_call(lambda c: _state(
            q.state_insert(c, namespace, key, raw, lease_token, lease_expires_at)))

    def state_update_if_sync(
        self, namespace: str, key: str, expected_generation: int, value: Any, *,
        lease_token: str | None = None, lease_expires_at: float | None = None,
    ) -> PluginStateRecord | None:
        """`state_update_if`, blocking (one autocommit statement)."""
        raw = dump_json(value, f"plugin state {namespace}/{key}")
        return self._sync_call(lambda c: _state(q.state_update(
            c, namespace, key, expected_generation, raw, lease_token, lease_expires_at)))

    def state_delete_if_sync(self, namespace: str, key: str, expected_generation: int) -> bool:
        """`state_delete_if`, blocking (one autocommit statement)."""
        return self._sync_call(lambda c: q.state_delete(c, namespace, key, expected_generation))
