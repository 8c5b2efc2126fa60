"""A separate OS process that uses binding leases on a shared SQLite file.

Usage: python _lease_worker.py MODE DB OUT [ARGS...]; see the modes below. Run by
test_binding_processes.py; each mode writes what it did to OUT (one JSON line per event).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

from clawharness.sessions.bindings import (
    Commit,
    DictRecordCodec,
    LeaseTimeoutError,
    LeaseTimings,
    Rollback,
    create_native_session_binding_lifecycle,
)
from clawharness.sessions.lifecycle import SessionHookParams
from clawharness.store.sqlite import SqliteStore

NAMESPACE = "proc-bindings"


def emit(out: Path, **event: Any) -> None:
    with out.open("a") as f:
        f.write(json.dumps({"pid": os.getpid(), "t": time.time(), **event}) + "\n")
        f.flush()
        os.fsync(f.fileno())


def timings(stale: float, wait: float) -> LeaseTimings:
    return LeaseTimings(stale=stale, wait=wait, renew_interval=stale / 3, retry_interval=0.01)


async def contend(store: SqliteStore, out: Path, rounds: int) -> None:
    """Take the shared lease `rounds` times; inside, bump a counter and add one binding."""
    lc = create_native_session_binding_lifecycle(store, NAMESPACE, codec=DictRecordCodec(),
                                                 timings=timings(2.0, 60.0))

    def create(current: Any, _lease: Any) -> Any:
        return current if current is not None else {"count": 0}

    for i in range(rounds):
        async def body(i: int = i) -> None:
            owner = lc.leases.owner("shared")
            assert owner is not None
            emit(out, event="enter", token=owner.token)
            row = await lc.state.get("shared")
            assert row is not None
            await asyncio.sleep(0.005)  # widen the window a lost lease would expose
            await lc.transact("shared", lambda cur, tok: (None, {"count": cur["count"] + 1}))
            await lc.state.register_if_absent(f"binding:{os.getpid()}:{i}", {"i": i})
            emit(out, event="exit", token=owner.token)

        await lc.with_lease("shared", body, prepare_lease=create)


async def try_once(store: SqliteStore, out: Path, wait: float) -> None:
    """One transact against a held row: must time out cleanly after `wait`."""
    lc = create_native_session_binding_lifecycle(store, NAMESPACE, codec=DictRecordCodec(),
                                                 timings=timings(5.0, wait))
    started = time.monotonic()
    try:
        await lc.transact("shared", lambda cur, tok: (None, {"by": "worker"}))
    except LeaseTimeoutError as exc:
        emit(out, event="timeout", waited=time.monotonic() - started, message=str(exc))
        return
    emit(out, event="wrote", waited=time.monotonic() - started)


async def hold(store: SqliteStore, out: Path, stale: float) -> None:
    """Take the lease, announce it, then hold it (renewing) until killed."""
    lc = create_native_session_binding_lifecycle(store, NAMESPACE, codec=DictRecordCodec(),
                                                 timings=timings(stale, 60.0))

    async def body() -> None:
        owner = lc.leases.owner("shared")
        assert owner is not None
        emit(out, event="held", token=owner.token)
        await asyncio.Event().wait()

    await lc.with_lease("shared", body,
                        prepare_lease=lambda cur, lease: cur or {"holder": os.getpid()})


async def crash_delete(store: SqliteStore, out: Path, point: str) -> None:
    """Delete a session through the host; die (block until killed) at `point`."""
    from _host import Plugins, binding_key

    from clawharness.sessions.bindings import harness_session_hooks
    from clawharness.sessions.lifecycle import SessionLifecycle
    from clawharness.sessions.writers import SessionWriters

    lc = create_native_session_binding_lifecycle(store, NAMESPACE, codec=DictRecordCodec(),
                                                 timings=timings(1.0, 10.0))
    hooks = harness_session_hooks(lc, key_for=binding_key)

    class DyingHarness:
        id = "native"

        async def with_session_deletion(self, params: SessionHookParams, run: Any) -> Any:
            async def wrapped(commit: Commit, rollback: Rollback) -> Any:
                def dying_commit() -> None:
                    commit()
                    if point == "after-commit":
                        emit(out, event="committed")
                        time.sleep(600)
                return await run(dying_commit, rollback)

            return await hooks.with_session_deletion(params, wrapped)

    class DyingStore:
        def __getattr__(self, name: str) -> Any:
            return getattr(store, name)

        async def delete_session(self, key: str) -> bool:
            deleted = await store.delete_session(key)
            if point == "after-session-delete":
                emit(out, event="session-deleted")
                time.sleep(600)
            return deleted

    host = SessionLifecycle(DyingStore(), Plugins(DyingHarness()),  # type: ignore[arg-type]
                            SessionWriters())
    await host.delete("agent:main:chat")
    emit(out, event="finished")


async def main() -> None:
    mode, db, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    store = SqliteStore(db)
    await store.open()
    try:
        if mode == "contend":
            await contend(store, out, int(sys.argv[4]))
        elif mode == "try":
            await try_once(store, out, float(sys.argv[4]))
        elif mode == "hold":
            await hold(store, out, float(sys.argv[4]))
        elif mode == "crash-delete":
            await crash_delete(store, out, sys.argv[4])
        else:
            raise SystemExit(f"unknown mode {mode}")
    finally:
        await store.close()


if __name__ == "__main__":
    asyncio.run(main())
