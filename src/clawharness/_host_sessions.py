"""The host's sessions: list, read, open, search, reset, delete, rewind and compact
them, and lock a session's model selection. `Host` has these methods
(`HostSessionsMixin`); what they read of the host is `_HostParts`."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

from clawharness._host_parts import HostCore
from clawharness._ids import new_id
from clawharness._json import JsonValue
from clawharness.errors import SessionNotFoundError
from clawharness.records import SessionMeta
from clawharness.sessions.agents import require_known_agent
from clawharness.sessions.keys import parse_session_key
from clawharness.store import SearchHit, SessionRecord, TranscriptEntry

# the session lifecycle and compaction are imported when first used (a host that only
# lists its sessions imports neither)
if TYPE_CHECKING:
    from clawharness.attempt.agent_setup import AgentSetup
    from clawharness.records import CompactionResult
    from clawharness.sessions.lifecycle import SessionLifecycle
    from clawharness.sessions.writers import SessionWriters
    from clawharness.store import Store
    from clawharness.tools.agent_tools import AgentTools

__all__ = ["HostSessionsMixin"]


class _HostParts(HostCore, Protocol):
    """What the session methods read of their host."""

    _store: Store | None
    _lifecycle: SessionLifecycle | None

    @property
    def writers(self) -> SessionWriters: ...
    @property
    def agent_setup(self) -> AgentSetup: ...
    @property
    def agent_tools(self) -> AgentTools: ...
    def session_key(self, key: str | None) -> str: ...
    async def start(self) -> _HostParts: ...
    async def get_session(self, key: str) -> SessionRecord: ...
    async def _sessions(self) -> SessionLifecycle: ...


class HostSessionsMixin:
    """The session methods of `Host`."""

    #: the session lifecycle (`_sessions`), made at its first use (None until then)
    _lifecycle: SessionLifecycle | None

    async def list_sessions(self: _HostParts, *, agent_id: str | None = None,
                            limit: int | None = None) -> list[SessionRecord]:
        return await self.store.list_sessions(agent_id=agent_id, limit=limit)

    async def get_session(self: _HostParts, key: str) -> SessionRecord:
        full = self.session_key(key)
        record = await self.store.get_session(full)
        if record is None:
            raise SessionNotFoundError(f"no session {full}")
        return record

    async def ensure_session(self: _HostParts, key: str, *,
                             meta: Mapping[str, JsonValue] | None = None) -> SessionRecord:
        """The session under `key`, made now when there is none (with no turn and no
        transcript yet: a front opening a conversation, as an ACP `session/new` does);
        `meta` is merged into its meta (a front's facts about it). Refuses a key of an
        agent the config does not know."""
        full = self.session_key(key)
        agent_id = parse_session_key(full).agent_id
        require_known_agent(self.config, agent_id, session_key=full)
        if self._store is None:
            await self.start()
        store = self.store
        async with self.writers.hold(full, purpose="open session") as slot:
            fence = {} if slot.fence is None else {"fence": slot.fence}
            record = await store.get_session(full)
            if record is None:
                now = time.time()
                return await store.create_session(SessionRecord(
                    key=full, session_id=new_id(), agent_id=agent_id, created_at=now,
                    updated_at=now, meta=SessionMeta.from_stored(dict(meta or {}))))
            if meta and not record.meta.holds(meta):
                return await store.update_session(full, meta=record.meta.merged(meta),
                                                  **fence)
            return record

    async def history(self: _HostParts, key: str, *, last: int | None = None) -> list[TranscriptEntry]:
        record = await self.get_session(key)
        return await self.store.read_entries(record.session_id, last=last)

    async def reset_session(self: _HostParts, key: str, *, reason: str = "reset") -> SessionRecord:
        """`/new` or `/reset`: a fresh physical session under the same key."""
        return await (await self._sessions()).reset(self.session_key(key), reason=reason)

    async def delete_session(self: _HostParts, key: str) -> bool:
        return await (await self._sessions()).delete(self.session_key(key))

    async def rewind_session(self: _HostParts, key: str, *, to_seq: int) -> int:
        """Drop transcript entries after `to_seq`; native bindings are invalidated."""
        return await (await self._sessions()).rewind(self.session_key(key), to_seq=to_seq)

    async def compact_session(self: _HostParts, key: str, *, focus: str | None = None) -> CompactionResult:
        """`/compact [focus]`: summarise the session's oldest history now, through the
        model's isolated completion; the summary is a transcript entry of its own kind
        and the originals stay (docs/compaction.md). A session a plugin harness runs is
        compacted by its runtime (`harness.compact`), or refused when it cannot."""
        record = await self.get_session(key)
        await self.start()
        from clawharness.attempt.compaction_session import (
            compact_native_session,
            compact_session,
        )

        plugins = self.plugins
        native = plugins.registry.get(record.agent_harness_id)
        if native is not None:  # a plugin harness runs it: its runtime owns the context
            return await compact_native_session(record, native.harness, focus=focus)
        return await compact_session(
            record, store=self.store, writers=self.writers, config=self.config, env=self.env,
            builtin=plugins.builtin, providers=plugins.selector.providers,
            system_prompt=self.agent_setup.system_prompt(record.agent_id),
            tools=self.agent_tools.tool_specs(record.agent_id), focus=focus)

    async def _sessions(self: _HostParts) -> SessionLifecycle:
        """The session lifecycle, starting the host on first use."""
        lifecycle = self._lifecycle
        if lifecycle is None:
            from clawharness.sessions.lifecycle import SessionLifecycle

            store = (await self.start()).store
            lifecycle = self._lifecycle = SessionLifecycle(store, self.plugins, self.writers)
        return lifecycle

    async def lock_model_selection(self: _HostParts, key: str, *,
                                   locked: bool = True) -> SessionRecord:
        """Lock (or unlock) a session's model selection; delegates need it locked."""
        record = await self.get_session(key)
        return await self.store.update_session(
            record.key, meta=dataclasses.replace(record.meta, model_selection_locked=locked))

    async def search(self: _HostParts, query: str, *, session_key: str | None = None,
                     limit: int = 20) -> list[SearchHit]:
        key = self.session_key(session_key) if session_key else None
        return await self.store.search(query, session_key=key, limit=limit)
