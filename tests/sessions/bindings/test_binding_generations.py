"""Rule 5 and scenarios 45-46: session generations, host authority, initialization owner."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from _host import new_session
from binding_clock import FakeClock

from clawharness.errors import AgentHarnessSessionSupersededError
from clawharness.records.session_meta import SessionMeta
from clawharness.sessions.bindings import (
    AcquisitionRejectedError,
    GenerationRecordCodec,
    InitializationChangedError,
    NativeSessionBindingLifecycle,
    ReclaimPlan,
    SessionGenerationBindings,
    SessionIdentity,
    SessionInitializationHandle,
    UpstreamLinks,
    capture_native_session_generation_authority,
    create_native_session_binding_lifecycle,
    create_native_session_initialization_owner,
    reclaim_native_session_generation,
    resolve_native_session_binding,
    session_binding_key,
)
from clawharness.store.sqlite import SqliteStore

Binding = dict[str, Any]
KEY = "agent:main:chat"


def ident(session_id: str, key: str | None = KEY) -> SessionIdentity:
    return SessionIdentity("main", session_id, key)


@pytest.fixture
def bindings(store: SqliteStore, clock: FakeClock) -> SessionGenerationBindings[Binding]:
    lifecycle: NativeSessionBindingLifecycle[Any] = create_native_session_binding_lifecycle(
        store, "codex-app-server", codec=GenerationRecordCodec.for_dicts(),
        timings=clock.timings())
    return SessionGenerationBindings(
        lifecycle, never_reclaim=lambda b: b.get("connectionScope") == "supervision")


def test_binding_keys_are_per_session_key_or_physical_session() -> None:
    assert session_binding_key(ident("s-1")) == session_binding_key(ident("s-2"))
    assert session_binding_key(ident("s-1")).startswith("session-key:main:")
    assert session_binding_key(ident("s-1", None)) == "session:main:s-1"
    with pytest.raises(ValueError):
        session_binding_key(SessionIdentity("", "s-1"))


async def test_scenario_45_generations(bindings: SessionGenerationBindings[Binding]) -> None:
    first, second, third = ident("session-1"), ident("session-2"), ident("session-3")
    assert await bindings.set(first, {"threadId": "thread-1", "cwd": "/repo"})
    assert await bindings.read(first) == {"threadId": "thread-1", "cwd": "/repo"}
    assert await bindings.read(second) is None
    assert bindings.read_sync(second) is None
    plan = await bindings.prepare_session_generation_reclaim(second)
    assert plan == ReclaimPlan("verify", expected_previous_session_id="session-1")
    assert await bindings.adopt_session_generation(third, "session-1") == "adopted"
    assert await bindings.reclaim(second, "session-1") is False  # another generation won
    assert await bindings.read(third) == {"threadId": "thread-1", "cwd": "/repo"}


async def test_scenario_46_adoption_outcomes(
        bindings: SessionGenerationBindings[Binding]) -> None:
    assert await bindings.adopt_session_generation(ident("s-2"), "s-1") == "absent"
    await bindings.set(ident("s-1"), {"threadId": "t"})
    assert await bindings.adopt_session_generation(ident("s-1"), "s-0") == "current"
    assert await bindings.adopt_session_generation(ident("s-2"), "s-9") == "conflict"
    assert await bindings.adopt_session_generation(ident("s-2"), "s-1") == "adopted"
    await bindings.clear(ident("s-2"))
    assert await bindings.adopt_session_generation(ident("s-3"), "s-2") == "absent"


async def test_reclaim_clears_a_verified_stale_row_for_the_new_generation(
        bindings: SessionGenerationBindings[Binding]) -> None:
    await bindings.set(ident("s-1"), {"threadId": "t"})
    assert await bindings.reclaim(ident("s-2", None), "s-1") is False  # needs a session key
    assert await bindings.reclaim(ident("s-2"), "s-1") is True
    assert await bindings.read(ident("s-1")) is None
    assert await bindings.prepare_session_generation_reclaim(ident("s-2")) == ReclaimPlan(
        "resolved", True)
    assert await bindings.set(ident("s-2"), {"threadId": "t-2"})
    # A stale generation can no longer write over its successor.
    assert await bindings.set(ident("s-1"), {"threadId": "stale"}) is False
    assert await bindings.clear(ident("s-1")) is False


async def test_supervision_bindings_are_never_reclaimed(
        bindings: SessionGenerationBindings[Binding]) -> None:
    await bindings.set(ident("s-1"), {"threadId": "t", "connectionScope": "supervision"})
    assert await bindings.reclaim(ident("s-2"), "s-1") is False
    assert await bindings.read(ident("s-1")) is not None


async def test_retire_writes_a_durable_fence(
        bindings: SessionGenerationBindings[Binding]) -> None:
    assert await bindings.retire(ident("s-1")) == "absent"
    await bindings.set(ident("s-1"), {"threadId": "t"})
    assert await bindings.retire(ident("s-2")) == "conflict"
    assert await bindings.retire(ident("s-1")) == "applied"
    assert await bindings.retire(ident("s-1")) == "applied"
    assert await bindings.read(ident("s-1")) is None
    assert await bindings.set(ident("s-1"), {"threadId": "again"}) is False
    assert await bindings.prepare_session_generation_reclaim(ident("s-1")) == ReclaimPlan(
        "resolved", False)

    async def body() -> None:
        raise AssertionError("a retired generation must not be leased")

    with pytest.raises(AcquisitionRejectedError):
        await bindings.with_lease(ident("s-1"), body)


async def test_set_if_absent_and_lease_preserve_the_generation(
        bindings: SessionGenerationBindings[Binding]) -> None:
    assert await bindings.set(ident("s-1"), {"threadId": "a"}, if_absent=True)
    assert await bindings.set(ident("s-1"), {"threadId": "b"}, if_absent=True) is False

    async def body() -> str:
        assert await bindings.set(ident("s-1"), {"threadId": "c"})
        return "ok"

    assert await bindings.with_lease(ident("s-1"), body) == "ok"
    assert await bindings.read(ident("s-1")) == {"threadId": "c"}


async def test_host_authority_states(store: SqliteStore) -> None:
    assert (await capture_native_session_generation_authority(
        store, ident("s-1"))).state == "ephemeral"
    await new_session(store, KEY, "s-1")
    current = await capture_native_session_generation_authority(store, ident("s-1"))
    assert current.state == "current" and current.previous_session_id is None
    await current.verify()
    stale = await capture_native_session_generation_authority(store, ident("s-0"))
    assert stale.state == "superseded"
    with pytest.raises(AgentHarnessSessionSupersededError, match="s-0"):
        stale.assert_current()
    # The host rotates the generation while we wait: verify() notices.
    await store.update_session(KEY, session_id="s-2", meta=SessionMeta(previous_session_id="s-1"))
    with pytest.raises(AgentHarnessSessionSupersededError):
        await current.verify()


async def test_a_failed_host_read_never_authorises(store: SqliteStore,
                                                   bindings: SessionGenerationBindings[Binding],
                                                   ) -> None:
    class Broken:
        def __getattr__(self, name: str) -> Any:
            return getattr(store, name)

        async def get_session(self, key: str) -> Any:
            raise OSError("session store unreadable")

    await bindings.set(ident("s-1"), {"threadId": "t"})
    authority = await capture_native_session_generation_authority(Broken(), ident("s-1"))  # type: ignore[arg-type]
    assert authority.state == "superseded"
    with pytest.raises(AgentHarnessSessionSupersededError):
        await resolve_native_session_binding(Broken(), bindings, ident("s-1"))  # type: ignore[arg-type]
    assert await reclaim_native_session_generation(
        Broken(), bindings.operations(ident("s-2"))) is False  # type: ignore[arg-type]


async def test_resolve_allows_an_ephemeral_session(
        store: SqliteStore, bindings: SessionGenerationBindings[Binding]) -> None:
    await bindings.set(ident("s-1"), {"threadId": "t"})
    resolved = await resolve_native_session_binding(store, bindings, ident("s-1"))
    assert resolved.binding == {"threadId": "t"}
    assert resolved.authority.state == "ephemeral"


async def test_resolve_adopts_the_verified_predecessor_after_compaction(
        store: SqliteStore, bindings: SessionGenerationBindings[Binding]) -> None:
    await new_session(store, KEY, "s-1")
    await bindings.set(ident("s-1"), {"threadId": "t"})
    await store.update_session(KEY, session_id="s-2", meta=SessionMeta(previous_session_id="s-1"))
    resolved = await resolve_native_session_binding(store, bindings, ident("s-2"))
    assert resolved.binding == {"threadId": "t"}
    assert resolved.authority.previous_session_id == "s-1"
    # The old generation is superseded and can no longer resolve a binding.
    with pytest.raises(AgentHarnessSessionSupersededError):
        await resolve_native_session_binding(store, bindings, ident("s-1"))


async def test_reclaim_without_a_verified_predecessor(
        store: SqliteStore, bindings: SessionGenerationBindings[Binding]) -> None:
    await bindings.set(ident("s-1"), {"threadId": "t"})
    await new_session(store, KEY, "s-3")  # a reset: no recorded predecessor
    ops = bindings.operations(ident("s-3"))
    assert await reclaim_native_session_generation(store, ops, reclaim_stale=False) is False
    assert await reclaim_native_session_generation(store, ops) is True
    assert await bindings.read(ident("s-1")) is None
    assert await reclaim_native_session_generation(
        store, bindings.operations(ident("s-1"))) is False  # superseded


async def test_host_rotation_during_the_predecessor_wait_is_not_bridged(
        store: SqliteStore, bindings: SessionGenerationBindings[Binding]) -> None:
    await new_session(store, KEY, "previous")
    await bindings.set(ident("previous"), {"threadId": "t"})
    await store.update_session(KEY, session_id="current",
                               meta=SessionMeta(previous_session_id="previous"))
    ops = bindings.operations(ident("current"))
    started, release = asyncio.Event(), asyncio.Event()
    prepare = ops.bindings.prepare_session_generation_reclaim

    async def slow_prepare(identity: SessionIdentity) -> ReclaimPlan:
        started.set()
        await release.wait()
        return await prepare(identity)

    ops.bindings.prepare_session_generation_reclaim = slow_prepare  # type: ignore[method-assign]
    outcome = asyncio.create_task(reclaim_native_session_generation(store, ops))
    await started.wait()
    await store.update_session(KEY, session_id="next", meta=SessionMeta(previous_session_id="current"))
    release.set()
    with pytest.raises(AgentHarnessSessionSupersededError):
        await outcome
    assert await bindings.read(ident("previous")) == {"threadId": "t"}  # not adopted


async def test_initialization_owner_rolls_back_only_its_own_link(
        store: SqliteStore, bindings: SessionGenerationBindings[Binding]) -> None:
    links = UpstreamLinks(store)
    cleaned: list[str] = []

    async def write(target: SessionGenerationBindings[Binding], identity: SessionIdentity,
                    binding: Binding, assert_current: Any) -> bool:
        return await target.set(identity, binding, if_absent=True,
                                assert_current=assert_current)

    owner = create_native_session_initialization_owner(
        validate_binding=lambda b: dict(b), write_binding=write, links=links)
    handle = SessionInitializationHandle(KEY)

    def prepare_cleanup() -> Any:
        async def cleanup(assert_current: Any) -> None:
            assert_current()
            cleaned.append("backend")
        return cleanup

    prepared = owner.prepare(handle, bindings, ident("s-1"), prepare_cleanup=prepare_cleanup)
    await prepared.bind({"threadId": "t"})
    await prepared.link(KEY, "main", {"threadId": "t"})
    with pytest.raises(InitializationChangedError, match="already has one"):
        await owner.prepare(SessionInitializationHandle(KEY), bindings, ident("s-1")).link(
            KEY, "main", {"threadId": "other"})

    # Rollback needs the same store, identity and binding.
    handle.begin_rollback()
    with pytest.raises(InitializationChangedError, match="owner changed"):
        owner.get_rollback(handle, bindings, ident("s-9"), {"threadId": "t"})
    with pytest.raises(InitializationChangedError):
        owner.get_rollback(handle, bindings, ident("s-1"), {"threadId": "x"})
    assert owner.get_rollback(None, bindings, ident("s-1"), None) is None
    rollback = owner.get_rollback(handle, bindings, ident("s-1"), {"threadId": "t"})
    assert rollback is not None
    await rollback()
    assert await links.get(KEY, "main") is None
    assert cleaned == ["backend"]
    handle.finish()
    with pytest.raises(AgentHarnessSessionSupersededError):
        await rollback()  # a settled handle grants nothing


async def test_initialization_rollback_keeps_a_link_that_changed(
        store: SqliteStore, bindings: SessionGenerationBindings[Binding]) -> None:
    links = UpstreamLinks(store)

    async def write(*args: Any) -> bool:
        return True

    owner = create_native_session_initialization_owner(
        validate_binding=lambda b: b, write_binding=write, links=links)
    handle = SessionInitializationHandle(KEY)
    prepared = owner.prepare(handle, bindings, ident("s-1"))
    await prepared.link(KEY, "main", {"threadId": "t"})
    row = await links.rows.get(UpstreamLinks.key(KEY, "main"))
    assert row is not None
    await links.rows.update_if_current(row.key, row.generation, {"upstream": "someone else"})
    rollback = owner.get_rollback(handle, bindings, ident("s-1"), None)
    assert rollback is not None
    with pytest.raises(InitializationChangedError, match="link changed"):
        await rollback()
    assert await links.get(KEY, "main") == {"upstream": "someone else"}


async def test_binding_write_failure_during_initialization(
        store: SqliteStore, bindings: SessionGenerationBindings[Binding]) -> None:
    async def write(target: SessionGenerationBindings[Binding], identity: SessionIdentity,
                    binding: Binding, assert_current: Any) -> bool:
        return await target.set(identity, binding, if_absent=True)

    owner = create_native_session_initialization_owner(
        validate_binding=lambda b: b, write_binding=write, links=UpstreamLinks(store))
    await bindings.set(ident("s-1"), {"threadId": "existing"})
    handle = SessionInitializationHandle(KEY)
    with pytest.raises(InitializationChangedError, match="binding changed"):
        await owner.prepare(handle, bindings, ident("s-1")).bind({"threadId": "new"})
    handle.finish()
    with pytest.raises(AgentHarnessSessionSupersededError):
        owner.prepare(handle, bindings, ident("s-1"))
