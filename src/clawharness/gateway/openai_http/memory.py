"""Which session a response, or a client tool call, belongs to, so a later request that
names it continues that session.

- `previous_response_id` names a response this gateway answered;
- a Chat Completions request that brings a tool's result (`role: "tool"`,
  `tool_call_id`) names a call this gateway handed to the client; a request with no session
  of its own (no `user`, no `x-openclaw-session-key`) continues the session that call was
  made in.

Kept in the host's store (plugin state, namespace `openai-http.sessions`) for
`REMEMBER_SECONDS`, so another gateway process of the same store, or this one after a
restart, knows them too; a host without a store keeps the newest `IN_MEMORY` in memory.
A call is remembered under a digest of the credential that received it and its id, so a
caller can continue only its own calls.
"""

from __future__ import annotations

import hashlib
import time
from collections import OrderedDict
from collections.abc import Callable
from typing import Final, Literal

from clawharness.store import PluginStateStore

__all__ = ["IN_MEMORY", "NAMESPACE", "REMEMBER_SECONDS", "SessionMemory"]

NAMESPACE: Final = "openai-http.sessions"
#: how long a response or a call is remembered (OpenAI keeps responses 30 days)
REMEMBER_SECONDS: Final = 30 * 24 * 3600.0
IN_MEMORY: Final = 1000
SWEEP_EVERY_SECONDS: Final = 3600.0

Kind = Literal["response", "call"]


class SessionMemory:
    """Response ids and client tool calls -> the session they belong to."""

    def __init__(self, store: PluginStateStore | None, *, ttl: float = REMEMBER_SECONDS,
                 clock: Callable[[], float] = time.time) -> None:
        self._store = store
        self._ttl = ttl
        self._clock = clock
        self._local: OrderedDict[str, str] = OrderedDict()
        self._swept_at: float | None = None

    @staticmethod
    def _key(kind: Kind, name: str, caller: str) -> str:
        if kind == "response":
            return f"response:{name}"
        return "call:" + hashlib.sha256(f"{caller}\n{name}".encode()).hexdigest()

    async def remember(self, kind: Kind, name: str, session_key: str, *,
                       caller: str = "") -> None:
        key = self._key(kind, name, caller)
        self._local[key] = session_key
        self._local.move_to_end(key)
        while len(self._local) > IN_MEMORY:
            self._local.popitem(last=False)
        if self._store is None:
            return
        value = {"sessionKey": session_key, "at": self._clock()}
        row = await self._store.state_insert_if_absent(NAMESPACE, key, value)
        if row is None:  # a call id seen before (a model that reuses ids): the newest wins
            current = await self._store.state_get(NAMESPACE, key)
            if current is not None:
                await self._store.state_update_if(NAMESPACE, key, current.generation, value)
        await self._sweep_now_and_then()

    async def recall(self, kind: Kind, name: str, *, caller: str = "") -> str | None:
        key = self._key(kind, name, caller)
        if key in self._local:
            return self._local[key]
        if self._store is None:
            return None
        row = await self._store.state_get(NAMESPACE, key)
        value = None if row is None else row.value
        if not isinstance(value, dict) or not isinstance(value.get("sessionKey"), str):
            return None
        at = value.get("at")
        if isinstance(at, int | float) and at < self._clock() - self._ttl:
            return None
        return str(value["sessionKey"])

    async def _sweep_now_and_then(self) -> None:
        now = self._clock()
        if self._swept_at is not None and now - self._swept_at < SWEEP_EVERY_SECONDS:
            return
        self._swept_at = now
        await self.sweep()

    async def sweep(self) -> int:
        """Forget what is older than the TTL; how many rows were deleted."""
        if self._store is None:
            return 0
        horizon = self._clock() - self._ttl
        deleted = 0
        for row in await self._store.state_list(NAMESPACE):
            at = row.value.get("at") if isinstance(row.value, dict) else None
            stale = not isinstance(at, int | float) or at < horizon
            if stale and await self._store.state_delete_if(NAMESPACE, row.key, row.generation):
                deleted += 1
        return deleted
