"""A property-based model of the lease and deletion state machine.

Two lease holders (A, B), an outsider without a lease, an intruder that replaces leases,
and a deleter that commits or rolls back, all on one binding row of a real SQLite store,
driven by a fake clock. After every step the stored row must equal the model's.
"""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from binding_clock import FakeClock
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from clawharness.sessions.bindings import (
    BindingOperationParams,
    Commit,
    DictRecordCodec,
    Lease,
    LeaseTimeoutError,
    LostLeaseError,
    NativeSessionBindingLifecycle,
    Rollback,
    create_native_session_binding_lifecycle,
)
from clawharness.store.sqlite import SqliteStore

KEY = "k"
STALE = 10.0
ACTORS = st.sampled_from(["A", "B"])


class Holder:
    """A task parked inside `with_lease(KEY)`, running the commands it is sent."""

    def __init__(self, lifecycle: NativeSessionBindingLifecycle[Any]) -> None:
        self.lifecycle = lifecycle
        self.queue: asyncio.Queue[tuple[Any, asyncio.Future[Any]]] = asyncio.Queue()
        self.ready: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.exit_error: BaseException | None = None
        self.task = asyncio.create_task(self._main())

    async def _main(self) -> None:
        async def body() -> None:
            owner = self.lifecycle.leases.owner(KEY)
            assert owner is not None
            self.ready.set_result(owner.token)
            while True:
                command, done = await self.queue.get()
                if command is None:
                    done.set_result(None)
                    return
                try:
                    done.set_result(await command())
                except Exception as exc:
                    done.set_exception(exc)

        try:
            await self.lifecycle.with_lease(
                KEY, body, prepare_lease=lambda cur, lease: cur or {"value": 0})
        except Exception as exc:
            self.exit_error = exc
            if not self.ready.done():
                self.ready.set_exception(exc)

    async def call(self, command: Callable[[], Awaitable[Any]] | None) -> Any:
        done: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        await self.queue.put((command, done))
        return await done


class LeaseMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.loop = asyncio.new_event_loop()
        self.dir = Path(tempfile.mkdtemp(prefix="lease-machine-"))
        self.store = SqliteStore(self.dir / "state.db")
        self.run(self.store.open())
        self.clock = FakeClock()
        self.lifecycle = create_native_session_binding_lifecycle(
            self.store, "machine", codec=DictRecordCodec(),
            timings=self.clock.timings(stale=STALE, wait=0.0))
        self.row: dict[str, Any] | None = None  # {"value", "token", "exp"}
        self.holders: dict[str, Holder] = {}
        self.lost: dict[str, bool] = {}
        self.tokens: dict[str, str] = {}

    def run(self, coro: Awaitable[Any]) -> Any:
        return self.loop.run_until_complete(coro)

    def teardown(self) -> None:
        for holder in self.holders.values():
            holder.task.cancel()
        self.run(asyncio.sleep(0))
        self.run(self.store.close())
        self.loop.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    # model helpers -----------------------------------------------------------------
    def live_lease(self) -> bool:
        return bool(self.row and self.row["token"] and self.row["exp"] > self.clock.now)

    def holds(self, actor: str) -> bool:
        return bool(self.row and self.row["token"] == self.tokens[actor]
                    and self.row["exp"] > self.clock.now and not self.lost[actor])

    # rules -------------------------------------------------------------------------
    @precondition(lambda self: len(self.holders) < 2)
    @rule(actor=ACTORS)
    def acquire(self, actor: str) -> None:
        if actor in self.holders:
            return
        busy = self.live_lease()

        async def start() -> Holder:
            holder = Holder(self.lifecycle)
            await asyncio.wait({holder.ready, holder.task}, return_when=asyncio.FIRST_COMPLETED)
            return holder

        holder = self.run(start())
        if busy:
            assert isinstance(holder.exit_error, LeaseTimeoutError)
            assert isinstance(holder.ready.exception(), LeaseTimeoutError)
            return
        token = holder.ready.result()
        self.holders[actor], self.tokens[actor], self.lost[actor] = holder, token, False
        value = self.row["value"] if self.row else 0
        self.row = {"value": value, "token": token, "exp": self.clock.now + STALE}

    @precondition(lambda self: bool(self.holders))
    @rule(actor=ACTORS, value=st.integers(1, 99))
    def write(self, actor: str, value: int) -> None:
        holder = self.holders.get(actor)
        if holder is None:
            return

        async def command() -> Any:
            return await self.lifecycle.transact(KEY, lambda cur, tok: (None, {"value": value}))

        if self.holds(actor):
            self.run(holder.call(command))
            assert self.row is not None
            self.row["value"] = value
        else:
            with pytest.raises(LostLeaseError):
                self.run(holder.call(command))
            self.lost[actor] = True

    @precondition(lambda self: bool(self.holders))
    @rule(actor=ACTORS)
    def renew(self, actor: str) -> None:
        holder = self.holders.get(actor)
        if holder is None:
            return

        async def command() -> bool:
            owner = self.lifecycle.leases.owner(KEY)
            assert owner is not None
            return await self.lifecycle.leases.renew(owner)

        expected = self.holds(actor)
        assert self.run(holder.call(command)) is expected
        if expected:
            assert self.row is not None
            self.row["exp"] = self.clock.now + STALE
        else:
            self.lost[actor] = True

    @precondition(lambda self: bool(self.holders))
    @rule(actor=ACTORS)
    def assert_lease(self, actor: str) -> None:
        holder = self.holders.get(actor)
        if holder is None:
            return

        async def command() -> None:
            self.lifecycle.capture_lease_assertion(KEY)()

        if self.holds(actor):
            self.run(holder.call(command))
        else:
            with pytest.raises(LostLeaseError):
                self.run(holder.call(command))
            self.lost[actor] = True

    @precondition(lambda self: bool(self.holders))
    @rule(actor=ACTORS)
    def release(self, actor: str) -> None:
        holder = self.holders.pop(actor, None)
        if holder is None:
            return
        self.run(holder.call(None))
        self.run(holder.task)
        if self.lost[actor]:
            assert isinstance(holder.exit_error, LostLeaseError)
        else:
            assert holder.exit_error is None
        if self.row and self.row["token"] == self.tokens[actor]:
            self.row["token"], self.row["exp"] = None, None  # token-only release

    @rule(seconds=st.sampled_from([1.0, 4.0, 9.0, 11.0]))
    def advance(self, seconds: float) -> None:
        self.clock.advance(seconds)

    @rule(value=st.integers(100, 199))
    def outsider_write(self, value: int) -> None:
        write = self.lifecycle.transact(KEY, lambda cur, tok: (None, {"value": value}))
        if self.live_lease():
            with pytest.raises(LeaseTimeoutError):
                self.run(write)
        else:
            self.run(write)
            self.row = {"value": value, "token": None, "exp": None}

    @precondition(lambda self: self.row is not None)
    @rule()
    def intruder_replaces_lease(self) -> None:
        async def steal() -> None:
            row = await self.lifecycle.state.get(KEY)
            assert row is not None
            await self.lifecycle.state.update_raw_if_current(
                KEY, row.generation, row.raw, lease=Lease("intruder", self.clock.now + STALE))

        self.run(steal())
        assert self.row is not None
        self.row["token"], self.row["exp"] = "intruder", self.clock.now + STALE

    @rule(host_fails=st.booleans())
    def delete(self, host_fails: bool) -> None:
        seen: list[Any] = []

        async def run(stored: Any, commit: Commit, rollback: Rollback) -> None:
            seen.append(stored)
            commit()
            if host_fails:
                rollback()

        deletion = self.lifecycle.with_deletion(BindingOperationParams(key=KEY), run)
        if self.row is not None and self.live_lease():
            with pytest.raises(LeaseTimeoutError):
                self.run(deletion)
            return
        self.run(deletion)
        if self.row is None:
            assert seen == [None]
            return
        assert seen == [{"value": self.row["value"]}]
        if host_fails:
            self.row = {"value": self.row["value"], "token": None, "exp": None}
        else:
            self.row = None

    # the invariant -------------------------------------------------------------------
    @invariant()
    def store_matches_model(self) -> None:
        stored = self.run(self.lifecycle.state.get(KEY))
        if self.row is None:
            assert stored is None
            return
        assert stored is not None
        assert stored.record == {"value": self.row["value"]}
        if self.row["token"] is None:
            assert stored.lease is None
        else:
            assert stored.lease == Lease(self.row["token"], self.row["exp"])
        assert self.run(self.lifecycle.journal.rows.list_rows()) == []


LeaseMachine.TestCase.settings = settings(max_examples=60, stateful_step_count=25,
                                          deadline=None, database=None)
TestLeaseStateMachine = LeaseMachine.TestCase
