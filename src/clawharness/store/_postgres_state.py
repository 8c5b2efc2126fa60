"""The PostgreSQL store's plugin-state methods, async and blocking (see
`clawharness.store.postgres`): conditional writes are single statements guarded by
`WHERE generation = %s`; the blocking forms use a connection of their own."""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import psycopg

from clawharness.errors import StoreError
from clawharness.store import _postgres_sql as q
from clawharness.store.records import PluginStateRecord, dump_json

__all__ = ["PluginStateMethods"]


def _state(row: Sequence[Any] | None) -> PluginStateRecord | None:
    return None if row is None else PluginStateRecord(*row)


class PluginStateMethods:
    """The `Store` protocol's plugin-state methods, for `PostgresStore`."""

    if TYPE_CHECKING:
        _where: str
        _sync: psycopg.Connection[Any] | None
        _sync_lock: threading.Lock

        def _error(self, exc: BaseException, what: str) -> BaseException: ...
        async def _one(self, what: str, query: str, args: Sequence[Any]) -> Any: ...
        async def _all(self, what: str, query: str,
                       args: Sequence[Any] | Mapping[str, Any]) -> list[Any]: ...

    # plugin state -------------------------------------------------------------------------
    async def state_get(self, namespace: str, key: str) -> PluginStateRecord | None:
        """One plugin-state row, or None."""
        return _state(await self._one("state_get", q.STATE_GET, (namespace, key)))

    async def state_list(self, namespace: str, *, prefix: str = "") -> list[PluginStateRecord]:
        """Rows of `namespace` whose key starts with `prefix`, in key order."""
        rows = await self._all("state_list", q.STATE_LIST, (namespace, prefix))
        return [PluginStateRecord(*r) for r in rows]

    async def state_insert_if_absent(
        self, namespace: str, key: str, value: Any, *,
        lease_token: str | None = None, lease_expires_at: float | None = None,
    ) -> PluginStateRecord | None:
        """Insert at generation 1; None when the key already exists."""
        raw = dump_json(value, f"plugin state {namespace}/{key}")
        return _state(await self._one("state_insert_if_absent", q.STATE_INSERT,
                                      (namespace, key, raw, lease_token, lease_expires_at)))

    async def state_update_if(
        self, namespace: str, key: str, expected_generation: int, value: Any, *,
        lease_token: str | None = None, lease_expires_at: float | None = None,
    ) -> PluginStateRecord | None:
        """Write when the stored generation equals `expected_generation`; None otherwise."""
        raw = dump_json(value, f"plugin state {namespace}/{key}")
        return _state(await self._one("state_update_if", q.STATE_UPDATE, (
            raw, lease_token, lease_expires_at, namespace, key, expected_generation)))

    async def state_delete_if(self, namespace: str, key: str, expected_generation: int) -> bool:
        """Delete when the stored generation equals `expected_generation`."""
        row = await self._one("state_delete_if", q.STATE_DELETE,
                              (namespace, key, expected_generation))
        return row is not None

    # the same rows, synchronously -----------------------------------------------------------
    def _sync_one(self, what: str, query: str, args: Sequence[Any]) -> Any:
        with self._sync_lock:
            if self._sync is None:
                raise StoreError(f"{self._where}: the store is not open")
            try:
                return self._sync.execute(query, args).fetchone()
            except psycopg.Error as exc:
                raise self._error(exc, what) from exc

    def state_get_sync(self, namespace: str, key: str) -> PluginStateRecord | None:
        """`state_get`, blocking."""
        return _state(self._sync_one("state_get_sync", q.STATE_GET, (namespace, key)))

    def state_insert_if_absent_sync(
        self, namespace: str, key: str, value: Any, *,
        lease_token: str | None = None, lease_expires_at: float | None = None,
    ) -> PluginStateRecord | None:
        """`state_insert_if_absent`, blocking."""
        raw = dump_json(value, f"plugin state {namespace}/{key}")
        return _state(self._sync_one("state_insert_if_absent_sync", q.STATE_INSERT,
                                     (namespace, key, raw, lease_token, lease_expires_at)))

    def state_update_if_sync(
        self, namespace: str, key: str, expected_generation: int, value: Any, *,
        lease_token: str | None = None, lease_expires_at: float | None = None,
    ) -> PluginStateRecord | None:
        """`state_update_if`, blocking."""
        raw = dump_json(value, f"plugin state {namespace}/{key}")
        return _state(self._sync_one("state_update_if_sync", q.STATE_UPDATE, (
            raw, lease_token, lease_expires_at, namespace, key, expected_generation)))

    def state_delete_if_sync(self, namespace: str, key: str, expected_generation: int) -> bool:
        """`state_delete_if`, blocking."""
        return self._sync_one("state_delete_if_sync", q.STATE_DELETE,
                              (namespace, key, expected_generation)) is not None
