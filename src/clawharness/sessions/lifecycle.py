"""Session lifecycle: `/new` and `/reset`, delete, rewind — with the harness hooks.

Order, per seed 000: a reset calls each harness's `reset(...)` after the new physical
session exists; a deletion runs inside every harness's `with_session_deletion(params,
run)`, where `commit()` is called at the session-row deletion boundary and `rollback()`
if that fails; a rewind runs inside `with_session_context_reset` the same way. Hook
failures of `reset` are logged once per harness id per process; later resets still call.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, replace
from typing import Any, Protocol

from clawharness._ids import new_id
from clawharness.errors import SessionNotFoundError
from clawharness.sessions.writers import SessionWriters, WriterSlot
from clawharness.store import SessionRecord, SessionStore, TranscriptStore

__all__ = ["SessionHookParams", "SessionLifecycle", "SessionParticipant", "SessionParticipants"]

log = logging.getLogger("clawharness.sessions")

_reset_failures_logged: set[str] = set()


@dataclass(frozen=True, slots=True)
class SessionHookParams:
    """What `reset`, `with_session_deletion` and `with_session_context_reset` receive."""

    agent_id: str
    session_key: str
    session_id: str
    reason: str
    store_url: str
    previous_session_id: str | None = None
    assert_current: Callable[[], None] = lambda: None


async def _maybe_await(value: Any) -> Any:
    if inspect.isawaitable(value):
        return await value
    return value


class SessionParticipant(Protocol):
    """A harness or a set of session bindings, as the session lifecycle calls it."""

    @property
    def id(self) -> str: ...


class SessionParticipants(Protocol):
    """Who takes part in the session hooks (the host's plugin runtime answers)."""

    def harnesses_with(self, capability: str) -> Sequence[SessionParticipant]:
        """Every harness, then every registered set of session bindings, that has the
        hook `capability` (`reset`, `with_session_deletion`, `with_session_context_reset`)."""
        ...


class LifecycleStore(SessionStore, TranscriptStore, Protocol):
    """What the lifecycle writes: session rows, and transcript entries (a rewind)."""


class SessionLifecycle:
    def __init__(self, store: LifecycleStore, plugins: SessionParticipants, writers: SessionWriters) -> None:
        self._store = store
        self._plugins = plugins
        self._writers = writers

    async def _require(self, key: str) -> SessionRecord:
        record = await self._store.get_session(key)
        if record is None:
            raise SessionNotFoundError(f"no session {key}")
        return record

    def _params(self, record: SessionRecord, reason: str, *, session_id: str | None = None,
                previous: str | None = None, live: list[bool] | None = None) -> SessionHookParams:
        state = live if live is not None else [True]

        def assert_current() -> None:
            if not state[0]:
                from clawharness.errors import AgentHarnessSessionSupersededError
                raise AgentHarnessSessionSupersededError(
                    f"session operation on {record.key} is no longer current")

        return SessionHookParams(
            agent_id=record.agent_id, session_key=record.key,
            session_id=session_id or record.session_id, reason=reason,
            store_url=self._store.url, previous_session_id=previous,
            assert_current=assert_current,
        )

    async def reset(self, key: str, *, reason: str = "reset") -> SessionRecord:
        async with self._writers.hold(key, timeout=30, purpose=reason) as slot:
            record = await self._require(key)
            fresh_id = new_id()
            meta = replace(record.meta, previous_session_id=record.session_id,
                           reset_at=time.time())
            updated = await self._store.update_session(key, session_id=fresh_id,
                                                       agent_harness_id=None, meta=meta,
                                                       **_fenced(slot))
            for harness in self._plugins.harnesses_with("reset"):
                try:
                    hook: Callable[[SessionHookParams], Any] = getattr(harness, "reset")  # noqa: B009
                    await _maybe_await(hook(self._params(record, reason)))
                except Exception as exc:  # a plugin's hook must not undo the reset
                    if harness.id not in _reset_failures_logged:
                        _reset_failures_logged.add(harness.id)
                        log.warning("reset hook of harness %s failed: %s", harness.id, exc)
            return updated

    async def _transaction(self, record: SessionRecord, hook_name: str, reason: str,
                           apply: Callable[[], Awaitable[Any]], *, previous: str | None = None) -> Any:
        """Run `apply` inside every harness's commit/rollback hook of `hook_name`."""
        live = [True]
        commits: list[Callable[[], Any]] = []
        rollbacks: list[Callable[[], Any]] = []
        async with AsyncExitStack() as stack:
            for harness in self._plugins.harnesses_with(hook_name):
                hook = getattr(harness, hook_name)
                ready = _HookSlot()
                params = self._params(record, reason, previous=previous, live=live)
                await stack.enter_async_context(ready.run(hook, params))
                commits.append(ready.commit)
                rollbacks.append(ready.rollback)
            try:
                for commit in commits:
                    commit()
                result = await apply()
            except BaseException:
                for rollback in reversed(rollbacks):
                    try:
                        rollback()
                    except Exception as exc:
                        log.warning("rollback of %s failed: %s", hook_name, exc)
                live[0] = False
                raise
        live[0] = False
        return result

    async def delete(self, key: str) -> bool:
        async with self._writers.hold(key, timeout=30, purpose="delete") as slot:
            record = await self._store.get_session(key)
            if record is None:
                return False
            deleted: bool = await self._transaction(
                record, "with_session_deletion", "deleted",
                lambda: self._store.delete_session(key, **_fenced(slot)))
            return deleted

    async def rewind(self, key: str, *, to_seq: int) -> int:
        async with self._writers.hold(key, timeout=30, purpose="rewind") as slot:
            record = await self._require(key)
            dropped: int = await self._transaction(
                record, "with_session_context_reset", "rewind",
                lambda: self._store.truncate_entries(record.session_id, after_seq=to_seq,
                                                     **_fenced(slot)),
                previous=record.meta.previous_session_id,
            )
            return dropped


def _fenced(slot: WriterSlot) -> dict[str, Any]:
    """`fence=` for a write under the slot's store lease (none without a store)."""
    return {} if slot.fence is None else {"fence": slot.fence}


class _HookSlot:
    """Runs a harness's `with_session_*(params, run)` hook around the host transaction.

    The hook calls `run(commit, rollback)`; the host needs those two callables while the
    hook is still inside `run`, so `run` parks until the host's transaction is over.
    """

    def __init__(self) -> None:
        self._got = asyncio.Event()
        self._done = asyncio.Event()
        self._commit: Callable[[], Any] = lambda: None
        self._rollback: Callable[[], Any] = lambda: None
        self._task: Any = None

    def commit(self) -> Any:
        return self._commit()

    def rollback(self) -> Any:
        return self._rollback()

    def run(self, hook: Callable[..., Any], params: SessionHookParams) -> Any:
        slot = self

        async def body(commit: Callable[[], Any], rollback: Callable[[], Any]) -> None:
            slot._commit, slot._rollback = commit, rollback
            slot._got.set()
            await slot._done.wait()

        @asynccontextmanager
        async def manage() -> Any:
            task = asyncio.create_task(_maybe_await(hook(params, body)))
            got = asyncio.create_task(self._got.wait())
            await asyncio.wait({task, got}, return_when=asyncio.FIRST_COMPLETED)
            if task.done() and not self._got.is_set():
                got.cancel()
                task.result()  # the hook finished without calling run: re-raise its error
                yield
                return
            try:
                yield
            finally:
                self._done.set()
                await task

        return manage()
