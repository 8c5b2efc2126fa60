"""A host wired the way `Host` wires it: SessionLifecycle over a store and one harness."""

from __future__ import annotations

from typing import Any

from clawharness.errors import StoreError
from clawharness.sessions.bindings import (
    HarnessSessionHooks,
    NativeSessionBindingLifecycle,
    harness_session_hooks,
)
from clawharness.sessions.lifecycle import SessionHookParams, SessionLifecycle
from clawharness.sessions.writers import SessionWriters
from clawharness.store import SessionRecord, Store


def binding_key(params: SessionHookParams) -> str:
    return f"session:{params.agent_id}:{params.session_key}"


class NativeHarness:
    """A harness that owns bindings through the shared lifecycle."""

    id = "native"

    def __init__(self, lifecycle: NativeSessionBindingLifecycle[Any]) -> None:
        self.hooks: HarnessSessionHooks[Any] = harness_session_hooks(
            lifecycle, key_for=binding_key)
        self.hooks.install(self)


class Plugins:
    """The part of PluginRuntime that SessionLifecycle uses."""

    def __init__(self, *harnesses: Any) -> None:
        self._harnesses = harnesses

    def harnesses_with(self, name: str) -> list[Any]:
        return [h for h in self._harnesses if hasattr(h, name)]


class FailingDeletes:
    """A store whose session deletion fails: the host transaction then rolls back."""

    def __init__(self, inner: Store) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    async def delete_session(self, key: str) -> bool:
        raise StoreError("disk full while deleting the session row")

    async def truncate_entries(self, session_id: str, *, after_seq: int) -> int:
        raise StoreError("disk full while cutting the transcript")


def host(store: Any, lifecycle: NativeSessionBindingLifecycle[Any]) -> SessionLifecycle:
    return SessionLifecycle(store, Plugins(NativeHarness(lifecycle)),  # type: ignore[arg-type]
                            SessionWriters())


async def new_session(store: Store, key: str = "agent:main:chat",
                      session_id: str = "s-1") -> SessionRecord:
    return await store.create_session(SessionRecord(key=key, session_id=session_id,
                                                    agent_id="main"))
