"""`SessionBindings`: a harness's per-session binding records, read and written here,
and removed together with the host session without a hook of the harness's own.

A binding is what a native harness must remember about one host session (a native
session id, a thread id, a resume token). Each host session (`agent id`, `session key`)
has at most one record, in the plugin-state namespace `<harness id>.bindings`.

- `read` / `write` / `delete` work on one session's record from anywhere;
- `with_turn(params, run)` holds the record's exact-token lease for one attempt (no
  other turn, here or in another process on the same store, changes it meanwhile) and
  hands `run` a `BoundSession` to read and write it;
- `reset`, `with_session_deletion` and `with_session_context_reset` are the host's
  session hooks. Bindings made with `PluginApi.session_bindings(...)` (or registered
  with `PluginApi.register_session_bindings`) are reset, deleted and invalidated by the
  host with the session; `on_removed` callbacks then release what the harness kept
  for it (a live process, a connection).

Inside a host the rows live in the host's store beside the session rows; a harness used
on its own (tests, tools) keeps a SQLite file under its state dir.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, TypeAlias, TypeVar

from clawharness._json import JsonObject, JsonValue
from clawharness.errors import ConditionalWriteConflict, HarnessError
from clawharness.harness.types import AttemptParams
from clawharness.sessions.bindings.errors import InvalidRecordError
from clawharness.sessions.bindings.hooks import HostRun, harness_session_hooks
from clawharness.sessions.bindings.lifecycle import (
    BindingOperationParams,
    NativeSessionBindingLifecycle,
    create_native_session_binding_lifecycle,
)
from clawharness.sessions.bindings.namespace import DictRecordCodec, Lease, RecordCodec
from clawharness.sessions.lifecycle import SessionHookParams
from clawharness.store import Store

__all__ = [
    "BoundSession",
    "JsonRecordCodec",
    "NativeSessionRecord",
    "RemovedBinding",
    "RemovedCallback",
    "SessionBindings",
    "native_session_bindings",
    "session_binding_row_key",
]

T = TypeVar("T")
R = TypeVar("R")

log = logging.getLogger("clawharness.sessions.bindings")

#: the file a harness without a host store keeps its bindings in
OWN_STORE_FILE = "bindings.sqlite"



@dataclass(frozen=True, slots=True)
class RemovedBinding(Generic[T]):
    """A session's binding the host just removed, for `SessionBindings.on_removed`.

    `agent_id` / `session_key`: the host session; `key`: its binding's row key (what
    `SupervisedProcesses` keys a process by); `reason`: why ("reset", "deleted", or the
    reason of a rewind or branch switch); `record`: the binding that was dropped (None
    when the session had none), so the callback can drop the native thread it names."""

    agent_id: str
    session_key: str
    key: str
    reason: str
    record: T | None

    @property
    def native_session_id(self) -> str | None:
        """The native session (thread) the dropped binding named, for a record with a
        `nativeSessionId` (`NativeSessionRecord`); None otherwise."""
        record = self.record
        native = record.get("nativeSessionId") if isinstance(record, Mapping) else None
        return native if isinstance(native, str) else None


#: `callback(removed)` after the host removed a session's binding (`RemovedBinding`)
RemovedCallback = Callable[[RemovedBinding[Any]], Awaitable[None]]

#: a native-session binding: `{"nativeSessionId": str | None, "hostSessionId"?, "cwd"?,
#: "harness"?}` (what the CLI and ACP harnesses keep)
NativeSessionRecord: TypeAlias = dict[str, JsonValue]


def session_binding_row_key(agent_id: str, session_key: str) -> str:
    """The row key of one host session's binding (`<agent id>:<session key>`)."""
    return f"{agent_id}:{session_key}"


class JsonRecordCodec:
    """Records that are JSON objects, stored as `{"version": N, **record}`.

    `validate(record)` may check or normalise a record (raise ValueError or TypeError to
    refuse it); `upgrade[n](record)` maps a version-n record to version n + 1.
    """

    def __init__(self, *, version: int = 1,
                 validate: Callable[[JsonObject], JsonObject] | None = None,
                 upgrade: dict[int, Callable[[JsonObject], JsonObject]] | None = None) -> None:
        self.version = version
        self._inner = DictRecordCodec(version=version, validate=validate, upgrade=upgrade)

    def encode(self, record: JsonObject) -> dict[str, Any]:
        return self._inner.encode(record)

    def decode(self, raw: object) -> JsonObject:
        body: JsonObject = self._inner.decode(raw)
        return body


def _validate_native_session(record: JsonObject) -> JsonObject:
    sid = record.get("nativeSessionId")
    if sid is not None and not isinstance(sid, str):
        raise ValueError("nativeSessionId must be a string or null")
    return record


class BoundSession(Generic[T]):
    """One session's binding while a turn holds its lease (`SessionBindings.with_turn`)."""

    def __init__(self, bindings: SessionBindings[T], lifecycle: NativeSessionBindingLifecycle[T],
                 params: AttemptParams, record: T | None) -> None:
        self.agent_id = params.agent_id
        self.session_key = params.session_key
        self.key = bindings.row_key(params.agent_id, params.session_key)
        self._bindings = bindings
        self._lifecycle = lifecycle
        self._record = record
        #: raises LostLeaseError once the lease expired, was replaced or closed: call it
        #: right before a native request or a transcript write that needs the binding
        self.assert_lease: Callable[[], None] = lifecycle.capture_lease_assertion(self.key)

    @property
    def record(self) -> T | None:
        """The binding as stored (None when the session has none yet)."""
        return self._record

    async def write(self, record: T) -> None:
        """Store `record` as this session's binding (under the turn's lease)."""
        self._bindings.check_record(self.key, record)

        def apply(_current: T | None, _token: str | None) -> tuple[None, T]:
            return None, record

        await self._lifecycle.transact(self.key, apply)
        self._record = None if self._bindings.is_empty(record) else record

    async def clear(self) -> None:
        """Forget the binding (the next turn starts afresh); the lease stays ours."""
        await self.write(self._bindings.empty)


class SessionBindings(Generic[T]):
    """The bindings of one harness: a record per host session, removed with the session.

    `empty` is the record of a session bound to nothing yet (a turn's lease needs a row
    to live on); `record` reads it back as None.
    """

    def __init__(self, harness_id: str, *, codec: RecordCodec[T], empty: T,
                 store: Store | None = None, state_dir: Path | None = None) -> None:
        if not isinstance(harness_id, str) or not harness_id.strip():
            raise HarnessError("session bindings need the harness id they belong to")
        self.harness_id = harness_id
        self.namespace = f"{harness_id}.bindings"
        self.state_dir = state_dir
        self.empty = empty
        self._codec = codec
        self._host_store = store
        self._own_store: Store | None = None
        self._lifecycle: NativeSessionBindingLifecycle[T] | None = None
        self._lock = asyncio.Lock()
        self._removed: list[Callable[[RemovedBinding[T]], Awaitable[None]]] = []

    @property
    def id(self) -> str:
        """Who takes part in the host's session hooks (for its logs): `<harness>.bindings`."""
        return self.namespace

    def row_key(self, agent_id: str, session_key: str) -> str:
        """The row of one host session's binding."""
        return session_binding_row_key(agent_id, session_key)

    def is_empty(self, record: T) -> bool:
        return record == self.empty

    def check_record(self, key: str, record: T) -> None:
        """Refuse a record the codec would not store, naming the row, before any write."""
        try:
            self._codec.encode(record)
        except (ValueError, TypeError) as exc:
            raise InvalidRecordError(
                f"{self.namespace}: the binding {key!r} was not stored: {exc}") from exc

    def on_removed(self, callback: Callable[[RemovedBinding[T]], Awaitable[None]]) -> None:
        """Run `callback(removed)` after the host reset, deleted or rewound a session
        whose binding this is: `removed` (`RemovedBinding`) names the session, the row
        and the record that was dropped (the native thread to drop with it), e.g. to
        stop the process kept for it or archive the thread."""
        self._removed.append(callback)

    # opening ---------------------------------------------------------------------------

    @property
    def has_location(self) -> bool:
        """Whether records have somewhere to live without a fallback directory."""
        return self._lifecycle is not None or self._host_store is not None or (
            self.state_dir is not None)

    async def lifecycle(self, fallback_dir: Path | None = None) -> NativeSessionBindingLifecycle[T]:
        """The binding lifecycle (leases, fences, transactional deletion) for advanced use;
        the first call settles deletions a crash interrupted."""
        if self._lifecycle is not None:
            return self._lifecycle
        async with self._lock:
            if self._lifecycle is None:
                store = self._host_store or await self._open_own(fallback_dir)
                lifecycle: NativeSessionBindingLifecycle[T] = (
                    create_native_session_binding_lifecycle(
                        store, self.namespace, codec=self._codec,
                        exclusive_operation=f"a {self.harness_id} session operation"))
                await lifecycle.recover()
                self._lifecycle = lifecycle
            return self._lifecycle

    async def _open_own(self, fallback_dir: Path | None) -> Store:
        from clawharness.store import open_store

        root = self.state_dir or fallback_dir
        if root is None:
            raise HarnessError(
                f"{self.namespace}: no host store and no state directory for binding rows; "
                "pass store= or state_dir=, or run the harness inside a clawharness host")
        self.state_dir = root
        root.mkdir(parents=True, exist_ok=True)
        store = open_store(root / OWN_STORE_FILE)
        await store.open()
        self._own_store = store
        return store

    async def close(self) -> None:
        """Forget the lifecycle; close the store only if this object opened it."""
        store, self._own_store, self._lifecycle = self._own_store, None, None
        if store is not None:
            await store.close()

    # reading and writing ---------------------------------------------------------------

    async def read(self, agent_id: str, session_key: str) -> T | None:
        """The session's binding, or None (also when there is nowhere to store one)."""
        if not self.has_location:
            return None
        record = await (await self.lifecycle()).read(self.row_key(agent_id, session_key))
        return None if record is None or self.is_empty(record) else record

    async def write(self, agent_id: str, session_key: str, record: T) -> None:
        """Store the session's binding. A turn holding its lease elsewhere is waited for
        (`LeaseTimeoutError` after the lease timings' wait)."""
        key = self.row_key(agent_id, session_key)
        self.check_record(key, record)
        lifecycle = await self.lifecycle()

        def apply(_current: T | None, _token: str | None) -> tuple[None, T]:
            return None, record

        async def mutate() -> None:
            await lifecycle.transact(key, apply)

        await lifecycle.with_mutation(mutate)

    async def replace(self, agent_id: str, session_key: str, record: T, *,
                      when: Callable[[T | None], bool]) -> T | None:
        """Store `record` as the session's binding only while `when(current)` holds for
        the one stored (None when there is none); returns that one. Otherwise nothing is
        written and `ConditionalWriteConflict` names the row: e.g. an adoption that must
        not take over a binding naming another native session. A turn holding the lease
        is waited for, as in `write`."""
        key = self.row_key(agent_id, session_key)
        self.check_record(key, record)
        lifecycle = await self.lifecycle()

        def apply(current: T | None, _token: str | None) -> tuple[T | None, T]:
            shown = None if current is None or self.is_empty(current) else current
            if not when(shown):
                raise ConditionalWriteConflict(
                    f"{self.namespace}: the binding {key!r} changed meanwhile (it is now "
                    f"{shown!r}); nothing was written")
            return shown, record

        async def mutate() -> T | None:
            return await lifecycle.transact(key, apply)

        return await lifecycle.with_mutation(mutate)

    async def find(self, match: Callable[[T], bool]) -> list[tuple[str, str, T]]:
        """Every stored binding `match` accepts, as (agent id, session key, record): e.g.
        the host sessions bound to one native session."""
        if not self.has_location:
            return []
        found: list[tuple[str, str, T]] = []
        for key, record in await (await self.lifecycle()).records():
            agent_id, _, session_key = key.partition(":")
            if session_key and not self.is_empty(record) and match(record):
                found.append((agent_id, session_key, record))
        return found

    async def delete(self, agent_id: str, session_key: str) -> bool:
        """Remove the session's binding; True when there was one."""
        if not self.has_location:
            return False
        lifecycle = await self.lifecycle()
        return await lifecycle.reset(BindingOperationParams(
            key=self.row_key(agent_id, session_key), session_key=session_key,
            reason="deleted"))

    async def with_turn(self, params: AttemptParams,
                        run: Callable[[BoundSession[T]], Awaitable[R]]) -> R:
        """Run `run(bound)` holding the session's binding lease for the whole attempt."""
        fallback = (Path(params.state_dir) / "plugins" / self.harness_id
                    if params.state_dir else None)
        lifecycle = await self.lifecycle(fallback)
        key = self.row_key(params.agent_id, params.session_key)
        empty = self.empty

        def hold(current: T | None, _lease: Lease) -> T:
            return current if current is not None else empty

        async def body() -> R:
            stored = await lifecycle.read(key)
            record = None if stored is None or self.is_empty(stored) else stored
            return await run(BoundSession(self, lifecycle, params, record))

        return await lifecycle.with_lease(key, body, prepare_lease=hold)

    # the host's session hooks ----------------------------------------------------------

    def _hook_key(self, params: SessionHookParams) -> str:
        return self.row_key(params.agent_id, params.session_key)

    async def _notify(self, params: SessionHookParams, record: T | None = None) -> None:
        if not self._removed:
            return
        removed = RemovedBinding(params.agent_id, params.session_key, self._hook_key(params),
                                 params.reason, None if record is None or self.is_empty(record)
                                 else record)
        for callback in self._removed:
            try:
                await callback(removed)
            except Exception as exc:  # cleanup after the fact must not undo the removal
                log.warning("%s: cleanup after removing the binding of %s failed: %s",
                            self.namespace, params.session_key, exc)

    async def reset(self, params: SessionHookParams) -> None:
        """The host reset the session in place: forget its binding."""
        dropped: T | None = None
        if self.has_location:
            lifecycle = await self.lifecycle()
            if self._removed:  # what the callbacks are told was dropped
                dropped = await lifecycle.read(self._hook_key(params))
            await harness_session_hooks(lifecycle, key_for=self._hook_key).reset(params)
        await self._notify(params, dropped)

    async def with_session_deletion(self, params: SessionHookParams, run: HostRun) -> Any:
        """Remove the binding inside the host's session deletion transaction."""
        if not self.has_location:
            return await run(lambda: None, lambda: None)
        hooks = harness_session_hooks(await self.lifecycle(), key_for=self._hook_key,
                                      after_commit=self._notify)
        return await hooks.with_session_deletion(params, run)

    async def with_session_context_reset(self, params: SessionHookParams, run: HostRun) -> Any:
        """Invalidate the binding inside a same-key rewind or branch switch."""
        if not self.has_location:
            return await run(lambda: None, lambda: None)
        hooks = harness_session_hooks(await self.lifecycle(), key_for=self._hook_key,
                                      after_commit=self._notify)
        return await hooks.with_session_context_reset(params, run)

    def __repr__(self) -> str:
        where: object = "host store" if self._host_store is not None else self.state_dir
        return f"SessionBindings({self.namespace!r}, {where})"


def native_session_bindings(harness_id: str, *, store: Store | None = None,
                            state_dir: Path | None = None) -> SessionBindings[NativeSessionRecord]:
    """The bindings of a harness whose binding is a native session id (a CLI's
    `session_id`, an ACP `sessionId`): `{"nativeSessionId": ...}` records."""
    return SessionBindings(harness_id, codec=JsonRecordCodec(validate=_validate_native_session),
                           empty={"nativeSessionId": None}, store=store, state_dir=state_dir)
