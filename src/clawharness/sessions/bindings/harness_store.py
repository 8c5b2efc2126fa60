"""A harness's binding lifecycle, opened lazily on the host's plugin-state store.

Inside a host, `PluginApi.store` is the host's own store, so binding rows sit beside the
session rows they belong to. A harness used on its own (tests, tools) has no host store;
it then keeps a SQLite file of its own under its state dir.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from clawharness.errors import HarnessError
from clawharness.sessions.bindings.hooks import HostRun, harness_session_hooks
from clawharness.sessions.bindings.lifecycle import (
    NativeSessionBindingLifecycle,
    create_native_session_binding_lifecycle,
)
from clawharness.sessions.bindings.namespace import RecordCodec
from clawharness.store.base import Store

if TYPE_CHECKING:
    from clawharness.sessions.lifecycle import SessionHookParams

__all__ = [
    "HarnessBindingStore",
    "NativeSessionRecord",
    "native_session_binding_store",
    "native_session_row_key",
]

T = TypeVar("T")

#: the file a harness without a host store keeps its bindings in
OWN_STORE_FILE = "bindings.sqlite"


class HarnessBindingStore(Generic[T]):
    """The lifecycle of one namespace of binding rows, opened on first use."""

    def __init__(self, namespace: str, *, codec: RecordCodec[T], store: Store | None = None,
                 state_dir: Path | None = None, exclusive_operation: str | None = None) -> None:
        self.namespace = namespace
        self.state_dir = state_dir
        self._codec = codec
        self._host_store = store
        self._own_store: Store | None = None
        self._exclusive = exclusive_operation or f"a {namespace} operation"
        self._lifecycle: NativeSessionBindingLifecycle[T] | None = None
        self._lock = asyncio.Lock()

    @property
    def opened(self) -> bool:
        return self._lifecycle is not None

    @property
    def has_location(self) -> bool:
        """Whether rows have somewhere to live without a fallback directory."""
        return self._host_store is not None or self.state_dir is not None

    async def lifecycle(self, fallback_dir: Path | None = None) -> NativeSessionBindingLifecycle[T]:
        """The lifecycle; the first call settles interrupted deletions (`recover()`)."""
        if self._lifecycle is not None:
            return self._lifecycle
        async with self._lock:
            if self._lifecycle is None:
                store = self._host_store or await self._open_own(fallback_dir)
                lifecycle: NativeSessionBindingLifecycle[T] = create_native_session_binding_lifecycle(
                    store, self.namespace, codec=self._codec,
                    exclusive_operation=self._exclusive)
                await lifecycle.recover()
                self._lifecycle = lifecycle
            return self._lifecycle

    async def _open_own(self, fallback_dir: Path | None) -> Store:
        from clawharness.store import open_store

        root = self.state_dir or fallback_dir
        if root is None:
            raise HarnessError(f"{self.namespace}: no host store and no state directory for "
                               "binding rows")
        self.state_dir = root
        root.mkdir(parents=True, exist_ok=True)
        store = open_store(root / OWN_STORE_FILE)
        await store.open()
        self._own_store = store
        return store

    # the host's session hooks, for a harness whose bindings live here ---------------------

    async def reset(self, params: SessionHookParams, *,
                    key_for: Callable[[SessionHookParams], str]) -> None:
        """In-place reset: forget the session's binding (nothing to do without a store)."""
        if self.opened or self.has_location:
            lifecycle = await self.lifecycle()
            await harness_session_hooks(lifecycle, key_for=key_for).reset(params)

    async def with_session_deletion(
        self, params: SessionHookParams, run: HostRun, *,
        key_for: Callable[[SessionHookParams], str],
        after_commit: Callable[[SessionHookParams, T], Awaitable[None]] | None = None,
    ) -> Any:
        """Remove the binding inside the host's session deletion transaction."""
        if not (self.opened or self.has_location):
            return await run(lambda: None, lambda: None)
        hooks = harness_session_hooks(await self.lifecycle(), key_for=key_for,
                                      after_commit=after_commit)
        return await hooks.with_session_deletion(params, run)

    async def with_session_context_reset(
        self, params: SessionHookParams, run: HostRun, *,
        key_for: Callable[[SessionHookParams], str],
        after_commit: Callable[[SessionHookParams, T], Awaitable[None]] | None = None,
    ) -> Any:
        """Invalidate the binding inside a same-key rewind or branch switch."""
        if not (self.opened or self.has_location):
            return await run(lambda: None, lambda: None)
        hooks = harness_session_hooks(await self.lifecycle(), key_for=key_for,
                                      after_commit=after_commit)
        return await hooks.with_session_context_reset(params, run)

    async def read(self, key: str) -> T | None:
        """The stored binding under `key` (None when there is none or no store)."""
        if not (self.opened or self.has_location):
            return None
        return await (await self.lifecycle()).read(key)

    async def close(self) -> None:
        """Forget the lifecycle; close the store only if this object opened it."""
        store, self._own_store, self._lifecycle = self._own_store, None, None
        if store is not None:
            await store.close()

    def __repr__(self) -> str:
        where: Any = "host store" if self._host_store is not None else self.state_dir
        return f"HarnessBindingStore({self.namespace!r}, {where})"


#: a native-session binding row: {"nativeSessionId", "hostSessionId", "cwd", "harness"}
NativeSessionRecord = dict[str, Any]


def native_session_row_key(agent_id: str, session_key: str) -> str:
    """The row key of one host session's binding (`<agent id>:<session key>`)."""
    return f"{agent_id}:{session_key}"


def _validate_native_session(body: dict[str, Any]) -> dict[str, Any]:
    sid = body.get("nativeSessionId")
    if sid is not None and not isinstance(sid, str):
        raise ValueError("nativeSessionId must be a string or null")
    return body


def native_session_binding_store(
    harness_id: str, *, store: Store | None = None, state_dir: Path | None = None,
) -> HarnessBindingStore[NativeSessionRecord]:
    """The binding store of a harness whose binding is a native session id (a CLI's
    `session_id`, an ACP `sessionId`), in namespace `<harness id>.bindings`."""
    from clawharness.sessions.bindings.namespace import DictRecordCodec

    return HarnessBindingStore(
        f"{harness_id}.bindings",
        codec=DictRecordCodec(version=1, validate=_validate_native_session),
        store=store, state_dir=state_dir,
        exclusive_operation=f"a {harness_id} session operation")
