"""Native session bindings of a CLI-backend harness, in its own plugin-state store.

A binding row maps `<agent id>:<session key>` to the CLI's native session id (plus the
host session id it belongs to and the working directory its transcript lives under).
Rows live in a SQLite file under the plugin's state dir and are owned through the SDK's
binding lifecycle (leases, deletion transactions).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from clawharness.harnesses.cli._sdk import (
    DictRecordCodec,
    NativeSessionBindingLifecycle,
    Store,
    create_native_session_binding_lifecycle,
    open_store,
)

__all__ = ["BindingRecord", "Bindings", "binding_key"]

#: a binding row's body: {"nativeSessionId", "hostSessionId", "cwd", "harness"}
BindingRecord = dict[str, Any]

STORE_FILE = "bindings.sqlite"


def binding_key(agent_id: str, session_key: str) -> str:
    """The binding row key of one host session."""
    return f"{agent_id}:{session_key}"


def _validate(body: dict[str, Any]) -> dict[str, Any]:
    sid = body.get("nativeSessionId")
    if sid is not None and not isinstance(sid, str):
        raise ValueError("nativeSessionId must be a string or null")
    return body


class Bindings:
    """Lazily opened binding store + lifecycle for one harness id."""

    def __init__(self, harness_id: str, state_dir: Path | None) -> None:
        self.harness_id = harness_id
        self.state_dir = state_dir
        self._store: Store | None = None
        self._lifecycle: NativeSessionBindingLifecycle[BindingRecord] | None = None
        self._lock: asyncio.Lock | None = None

    async def lifecycle(self, fallback_dir: Path | None = None) -> (
            NativeSessionBindingLifecycle[BindingRecord]):
        """The lifecycle, opening the store on first use (under `state_dir`, else
        `fallback_dir`)."""
        if self._lifecycle is not None:
            return self._lifecycle
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._lifecycle is None:
                root = self.state_dir or fallback_dir
                if root is None:
                    raise RuntimeError(f"{self.harness_id}: no state directory for bindings")
                self.state_dir = root
                root.mkdir(parents=True, exist_ok=True)
                store = open_store(root / STORE_FILE)
                await store.open()
                self._store = store
                self._lifecycle = create_native_session_binding_lifecycle(
                    store, f"{self.harness_id}.bindings",
                    codec=DictRecordCodec(version=1, validate=_validate),
                    exclusive_operation=f"a {self.harness_id} session operation")
            return self._lifecycle

    @property
    def opened(self) -> bool:
        return self._lifecycle is not None

    async def close(self) -> None:
        store, self._store, self._lifecycle = self._store, None, None
        if store is not None:
            await store.close()
