"""The Codex harness's native session bindings: which Codex thread a host session uses.

Rows live in the plugin-state namespace `codex.bindings`, keyed
`session:<agent id>:<session key>`, through the shared binding lifecycle (digest §6):

    {"version": 1, "state": "active" | "pending", "sessionId", "threadId"?, "cwd"?,
     "model"?}

A turn holds the row's exact-token lease for its whole length (`with_turn`), so two
turns on one session never overlap, here or in another process on the same store. The
stored `sessionId` is the physical generation: a row written for another session id is
not this session's thread, and the next turn starts a fresh one. `reset`,
`with_session_deletion` and `with_session_context_reset` clear the row with the host's
commit/rollback contract.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from clawharness.harnesses.codex.errors import CodexBindingChangedError
from clawharness.plugin_sdk.agent_harness import AttemptParams
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    BindingOperationParams,
    DictRecordCodec,
    LeaseTimings,
    NativeSessionBindingLifecycle,
    NativeSessionRecovery,
    SessionHookParams,
    Store,
    create_native_session_binding_lifecycle,
)

__all__ = ["NAMESPACE", "BindingHandle", "CodexBinding", "CodexBindings", "binding_key"]

NAMESPACE = "codex.bindings"

log = logging.getLogger("clawharness.harnesses.codex")

R = TypeVar("R")
StoreProvider = Callable[[], Awaitable[Store]]


def binding_key(agent_id: str, session_key: str) -> str:
    return f"session:{agent_id}:{session_key}"


def _validate(body: dict[str, Any]) -> dict[str, Any]:
    if body.get("state") not in ("active", "pending"):
        raise ValueError(f"unknown binding state {body.get('state')!r}")
    thread = body.get("threadId")
    if thread is not None and not isinstance(thread, str):
        raise ValueError("threadId must be a string")
    return body


@dataclass(frozen=True, slots=True)
class CodexBinding:
    """The binding a turn found: the thread to resume (None: start one)."""

    thread_id: str | None
    cwd: str | None = None
    model: str | None = None


class BindingHandle:
    """The binding under a held lease: read it, and store a newly started thread."""

    def __init__(self, lifecycle: NativeSessionBindingLifecycle[dict[str, Any]], key: str,
                 session_id: str, record: dict[str, Any] | None) -> None:
        self._lifecycle = lifecycle
        self.key = key
        self.session_id = session_id
        self.assert_lease = lifecycle.capture_lease_assertion(key)
        same_generation = record is not None and record.get("sessionId") == session_id
        thread = record.get("threadId") if record is not None and same_generation else None
        self.binding = CodexBinding(
            thread if isinstance(thread, str) else None,
            record.get("cwd") if record and same_generation else None,
            record.get("model") if record and same_generation else None)

    async def store_thread(self, thread_id: str, *, cwd: str, model: str | None) -> None:
        """Bind the session to `thread_id` (requires our live lease)."""
        record = {"state": "active", "sessionId": self.session_id, "threadId": thread_id,
                  "cwd": cwd, "model": model}

        def apply(_current: dict[str, Any] | None, _token: str | None
                  ) -> tuple[None, dict[str, Any]]:
            return None, record

        await self._lifecycle.transact(self.key, apply)
        self.binding = CodexBinding(thread_id, cwd, model)

    def recovery(self, params: AttemptParams, *, harness_id: str
                 ) -> NativeSessionRecovery[dict[str, Any]]:
        """This turn's recovery from a thread Codex reports gone: the row goes back to
        `pending` for this session (our lease stays on it) while it still names that
        thread."""
        session_id = self.session_id

        def names(record: dict[str, Any], thread_id: str) -> bool:
            return record.get("threadId") == thread_id

        def cleared(_record: dict[str, Any]) -> dict[str, Any]:
            return {"state": "pending", "sessionId": session_id}

        return NativeSessionRecovery(params, harness_id=harness_id, lifecycle=self._lifecycle,
                                     key=self.key, names=names, cleared=cleared, logger=log)

    def forget_thread(self) -> None:
        """The bound thread is gone: the next start is a new thread."""
        self.binding = CodexBinding(None)


class CodexBindings:
    """The binding lifecycle over a store that is opened on first use."""

    def __init__(self, store: Store | StoreProvider, *,
                 timings: LeaseTimings | None = None) -> None:
        self._store = store
        self._timings = timings if timings is not None else LeaseTimings()
        self._lifecycle: NativeSessionBindingLifecycle[dict[str, Any]] | None = None
        self._opened: Store | None = None
        self._opening = asyncio.Lock()
        self._locks: dict[str, tuple[asyncio.Lock, int]] = {}

    async def lifecycle(self) -> NativeSessionBindingLifecycle[dict[str, Any]]:
        if self._lifecycle is not None:
            return self._lifecycle
        async with self._opening:
            if self._lifecycle is None:
                if callable(self._store):
                    store = self._opened = await self._store()
                else:
                    store = self._store
                self._lifecycle = create_native_session_binding_lifecycle(
                    store, NAMESPACE, codec=DictRecordCodec(validate=_validate),
                    timings=self._timings, exclusive_operation="a Codex thread archive")
            return self._lifecycle

    @contextlib.asynccontextmanager
    async def _local(self, key: str) -> AsyncIterator[None]:
        """Serialise turns of one key in this process before they touch the lease (a
        contended lease only retries once a second)."""
        lock, users = self._locks.get(key, (asyncio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users <= 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)

    async def close(self) -> None:
        """Close the store if this object opened it (a store passed in stays open)."""
        opened, self._opened, self._lifecycle = self._opened, None, None
        if opened is not None:
            await opened.close()

    async def with_turn(self, key: str, session_id: str,
                        run: Callable[[BindingHandle], Awaitable[R]]) -> R:
        """Run one turn holding the session's binding lease."""
        lifecycle = await self.lifecycle()

        def prepare(current: dict[str, Any] | None, _lease: Any) -> dict[str, Any]:
            return current if current is not None else {"state": "pending",
                                                        "sessionId": session_id}

        async def body() -> R:
            return await run(BindingHandle(lifecycle, key, session_id,
                                           await lifecycle.read(key)))

        async with self._local(key):
            return await lifecycle.with_lease(key, body, prepare_lease=prepare)

    async def read(self, key: str) -> dict[str, Any] | None:
        """The stored record (no lease taken; for read-only inventory)."""
        return await (await self.lifecycle()).read(key)

    async def thread_keys(self, thread_id: str) -> tuple[str, ...]:
        """The host session keys whose binding names `thread_id`."""
        found = []
        for key, record in await (await self.lifecycle()).records(prefix="session:"):
            if record.get("threadId") == thread_id and record.get("state") == "active":
                found.append(key.split(":", 2)[2])
        return tuple(found)

    async def replace(self, key: str, record: dict[str, Any], *,
                      when: Callable[[dict[str, Any] | None], bool]) -> dict[str, Any] | None:
        """Store `record` under `key` only while `when(current)` holds; returns the record
        it replaced. `ConditionalWriteConflict` (nothing written) otherwise. A turn
        holding the lease is waited for."""
        lifecycle = await self.lifecycle()

        def apply(current: dict[str, Any] | None, _token: str | None
                  ) -> tuple[dict[str, Any] | None, dict[str, Any]]:
            if not when(current):
                raise CodexBindingChangedError(
                    f"{NAMESPACE}: the binding {key!r} changed meanwhile (it is now "
                    f"{current!r}); nothing was written")
            return current, record

        async def mutate() -> dict[str, Any] | None:
            async with self._local(key):
                return await lifecycle.transact(key, apply)

        return await lifecycle.with_mutation(mutate)

    @staticmethod
    def operation(params: SessionHookParams) -> BindingOperationParams:
        return BindingOperationParams(
            key=binding_key(params.agent_id, params.session_key),
            assert_current=params.assert_current, session_key=params.session_key,
            session_id=params.session_id, previous_session_id=params.previous_session_id,
            reason=params.reason)

    async def reset(self, params: SessionHookParams) -> bool:
        """Clear the binding in place; the next turn starts a new thread."""
        lifecycle = await self.lifecycle()
        operation = self.operation(params)
        async with self._local(operation.key):
            return await lifecycle.reset(operation)

    async def with_removal(self, kind: str, params: SessionHookParams,
                           run: Callable[[Callable[[], None], Callable[[], None]], Awaitable[R]]
                           ) -> R:
        """`with_session_deletion` / `with_session_context_reset`: the host's transaction
        runs inside; the binding row goes at its commit and comes back on rollback."""
        lifecycle = await self.lifecycle()
        operation = self.operation(params)

        async def inner(_stored: dict[str, Any] | None, commit: Callable[[], None],
                        rollback: Callable[[], None]) -> R:
            return await run(commit, rollback)

        async with self._local(operation.key):
            if kind == "deletion":
                return await lifecycle.with_deletion(operation, inner)
            return await lifecycle.with_context_reset(operation, inner)
