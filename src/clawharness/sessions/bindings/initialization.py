"""The initialization owner: binding and upstream-link writes of one session creation.

While the host creates a session it hands a harness an exact creation handle. Binding and
upstream-link writes made during that creation are recorded against the handle, so if
the host rolls the creation back, the harness removes exactly what it wrote: only its
own upstream link (never one that changed since), then its backend cleanup. Rollback
requires the same binding store, the same identity, the same binding, and a handle that
still allows rollback.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, Protocol, TypeVar

from clawharness.errors import AgentHarnessSessionSupersededError
from clawharness.sessions.bindings.errors import InitializationChangedError
from clawharness.sessions.bindings.namespace import DictRecordCodec, PluginStateNamespace
from clawharness.store import PluginStateStore

__all__ = [
    "NativeSessionInitializationOwner",
    "PreparedInitialization",
    "SessionInitialization",
    "SessionInitializationHandle",
    "UpstreamLink",
    "UpstreamLinks",
    "create_native_session_initialization_owner",
]

S = TypeVar("S")
I = TypeVar("I")  # noqa: E741 - the identity type
B = TypeVar("B")

#: the plugin-state namespace of upstream links
UPSTREAM_LINK_NAMESPACE = "session-upstream-links"


class SessionInitialization(Protocol):
    """The host's exact creation handle of one session."""

    def assert_current(self) -> None:
        """Raise unless the creation is still in progress."""

    def assert_rollback_current(self) -> None:
        """Raise unless the creation may still be rolled back."""


class SessionInitializationHandle:
    """A simple creation handle: creating -> (rolling back) -> done."""

    def __init__(self, session_key: str) -> None:
        self.session_key = session_key
        self.phase: Literal["creating", "rolling-back", "done"] = "creating"

    def assert_current(self) -> None:
        """Raise unless the creation is still in progress."""
        if self.phase != "creating":
            raise AgentHarnessSessionSupersededError(
                f"session initialization of {self.session_key} is {self.phase}")

    def assert_rollback_current(self) -> None:
        """Raise once the creation is done."""
        if self.phase == "done":
            raise AgentHarnessSessionSupersededError(
                f"session initialization of {self.session_key} is already settled")

    def begin_rollback(self) -> None:
        """The host is undoing the creation."""
        self.phase = "rolling-back"

    def finish(self) -> None:
        """The creation settled (committed or rolled back): the handle grants nothing."""
        self.phase = "done"


@dataclass(frozen=True, slots=True)
class UpstreamLink:
    """A session's link to the native conversation it mirrors."""

    session_key: str
    agent_id: str
    upstream: dict[str, Any]
    created_at: float = field(default_factory=time.time)

    def to_json(self) -> dict[str, Any]:
        """The stored JSON body."""
        return {"sessionKey": self.session_key, "agentId": self.agent_id,
                "upstream": self.upstream, "createdAt": self.created_at}


class UpstreamLinks:
    """Upstream links kept in plugin state, one per (agent, session key)."""

    def __init__(self, store: PluginStateStore, namespace: str = UPSTREAM_LINK_NAMESPACE) -> None:
        self.rows: PluginStateNamespace[dict[str, Any]] = PluginStateNamespace(
            store, namespace, DictRecordCodec())

    @staticmethod
    def key(session_key: str, agent_id: str) -> str:
        """The row key of a session's link."""
        return f"{agent_id}:{session_key}"

    async def get(self, session_key: str, agent_id: str) -> dict[str, Any] | None:
        """The stored link body, or None."""
        row = await self.rows.get(self.key(session_key, agent_id))
        return row.record if row else None

    async def insert_if_absent(self, link: UpstreamLink) -> bool:
        """Store the link unless the session already has one."""
        key = self.key(link.session_key, link.agent_id)
        return await self.rows.register_if_absent(key, link.to_json()) is not None

    async def delete_exact(self, link: UpstreamLink) -> Literal["deleted", "absent", "changed"]:
        """Delete the link only if it is still exactly `link`."""
        key = self.key(link.session_key, link.agent_id)
        row = await self.rows.get(key)
        if row is None:
            return "absent"
        if row.record != link.to_json():
            return "changed"
        return "deleted" if await self.rows.delete_if(key, row.generation) else "changed"


@dataclass(slots=True)
class _Ownership(Generic[S, I, B]):
    store: S
    identity: I
    links: UpstreamLinks
    binding: B | None = None
    link: UpstreamLink | None = None
    assert_cleanup_allowed: Callable[[], None] | None = None
    cleanup: Callable[[Callable[[], None]], Awaitable[None]] | None = None


class PreparedInitialization(Generic[S, I, B]):
    """What a harness writes during one creation, recorded for an exact rollback."""

    def __init__(self, owner: NativeSessionInitializationOwner[S, I, B],
                 initialization: SessionInitialization, ownership: _Ownership[S, I, B]) -> None:
        self._owner = owner
        self._initialization = initialization
        self._ownership = ownership

    def assert_current(self) -> None:
        """Raise unless the creation is still in progress."""
        self._initialization.assert_current()

    async def bind(self, binding: B) -> None:
        """Write the binding for this creation (only if none exists)."""
        self._initialization.assert_current()
        ownership = self._ownership
        ownership.binding = self._owner.validate_binding(binding)
        stored = await self._owner.write_binding(ownership.store, ownership.identity,
                                                 ownership.binding,
                                                 self._initialization.assert_current)
        if not stored:
            ownership.binding = None
            raise InitializationChangedError("the session binding changed during initialization")
        self._initialization.assert_current()

    async def link(self, session_key: str, agent_id: str, upstream: dict[str, Any]) -> None:
        """Record the upstream link of this creation (only if none exists)."""
        self._initialization.assert_current()
        link = UpstreamLink(session_key, agent_id, dict(upstream))
        self._ownership.link = link
        if not await self._ownership.links.insert_if_absent(link):
            self._ownership.link = None
            raise InitializationChangedError("the upstream link could not be stored: "
                                             "the session already has one")
        self._initialization.assert_current()


class NativeSessionInitializationOwner(Generic[S, I, B]):
    """Ties binding and upstream-link writes to the exact host creation handle."""

    def __init__(self, *, validate_binding: Callable[[B], B],
                 write_binding: Callable[[S, I, B, Callable[[], None]], Awaitable[bool]],
                 links: UpstreamLinks) -> None:
        self.validate_binding = validate_binding
        self.write_binding = write_binding
        self.links = links
        self._owned: weakref.WeakKeyDictionary[Any, _Ownership[S, I, B]] = (
            weakref.WeakKeyDictionary())

    def prepare(
        self, initialization: SessionInitialization, binding_store: S, identity: I, *,
        prepare_cleanup: Callable[[], Callable[[Callable[[], None]], Awaitable[None]]] | None
        = None,
        assert_cleanup_allowed: Callable[[], None] | None = None,
    ) -> PreparedInitialization[S, I, B]:
        """Record cleanup ownership before any binding or link write can commit."""
        initialization.assert_current()
        ownership: _Ownership[S, I, B] = _Ownership(
            store=binding_store, identity=identity, links=self.links,
            assert_cleanup_allowed=assert_cleanup_allowed)
        self._owned[initialization] = ownership
        if prepare_cleanup is not None:
            ownership.cleanup = prepare_cleanup()
        return PreparedInitialization(self, initialization, ownership)

    def get_rollback(
        self, initialization: SessionInitialization | None, binding_store: S, identity: I,
        binding: B | None,
    ) -> Callable[[], Awaitable[None]] | None:
        """The exact rollback of this creation, None if nothing was written through it.

        InitializationChangedError when the store, identity or binding differ from what
        the creation recorded.
        """
        if initialization is None:
            return None
        initialization.assert_rollback_current()
        ownership = self._owned.get(initialization)
        if ownership is None and binding is None:
            return None
        if ownership is None or ownership.store is not binding_store \
                or ownership.identity != identity \
                or (binding is not None and ownership.binding != binding):
            raise InitializationChangedError(
                "the initialization's binding owner changed before rollback")
        # Refuse indeterminate native work before any local deletion commits.
        if ownership.assert_cleanup_allowed is not None:
            ownership.assert_cleanup_allowed()
        handle = initialization

        async def rollback() -> None:
            handle.assert_rollback_current()
            link = ownership.link
            if link is not None and await ownership.links.delete_exact(link) == "changed":
                raise InitializationChangedError("the upstream link changed before cleanup")
            handle.assert_rollback_current()
            if ownership.cleanup is not None:
                await ownership.cleanup(handle.assert_rollback_current)
            handle.assert_rollback_current()

        return rollback


def create_native_session_initialization_owner(
    *, validate_binding: Callable[[B], B],
    write_binding: Callable[[S, I, B, Callable[[], None]], Awaitable[bool]],
    links: UpstreamLinks,
) -> NativeSessionInitializationOwner[S, I, B]:
    """An initialization owner for one backend's binding writes and upstream links."""
    return NativeSessionInitializationOwner(validate_binding=validate_binding,
                                            write_binding=write_binding, links=links)
