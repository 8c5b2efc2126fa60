"""Leases and deletions across real OS processes sharing one SQLite file."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _host import new_session

from clawharness.sessions.bindings import (
    DictRecordCodec,
    LeaseTimings,
    NativeSessionBindingLifecycle,
    create_native_session_binding_lifecycle,
)
from clawharness.store.sqlite import SqliteStore

WORKER = Path(__file__).with_name("_lease_worker.py")
NAMESPACE = "proc-bindings"


def spawn(*args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, str(WORKER), *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def events(out: Path) -> list[dict[str, Any]]:
    if not out.exists():
        return []
    return [json.loads(line) for line in out.read_text().splitlines() if line.strip()]


async def wait_for_event(out: Path, name: str, proc: subprocess.Popen[bytes],
                         timeout: float = 30) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for event in events(out):
            if event["event"] == name:
                return event
        if proc.poll() is not None:
            _, err = proc.communicate()
            raise AssertionError(f"worker exited {proc.returncode} before {name}: {err!r}")
        await asyncio.sleep(0.02)
    raise AssertionError(f"no {name} event within {timeout}s")


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[bytes]]]:
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for proc in started:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def lifecycle_on(store: SqliteStore, stale: float = 2.0,
                 wait: float = 30.0) -> NativeSessionBindingLifecycle[Any]:
    return create_native_session_binding_lifecycle(
        store, NAMESPACE, codec=DictRecordCodec(),
        timings=LeaseTimings(stale=stale, wait=wait, renew_interval=stale / 3,
                             retry_interval=0.02))


async def test_exactly_one_holder_at_a_time_across_processes(
        tmp_path: Path, store: SqliteStore, procs: list[subprocess.Popen[bytes]]) -> None:
    db, out = str(tmp_path / "state.db"), tmp_path / "events.jsonl"
    workers, rounds = 4, 8
    procs.extend(spawn("contend", db, str(out), str(rounds)) for _ in range(workers))
    for proc in procs:
        _, err = await asyncio.to_thread(proc.communicate, timeout=120)
        assert proc.returncode == 0, err.decode()
    log = events(out)
    assert len(log) == 2 * workers * rounds
    spans: dict[str, dict[str, float]] = {}
    for event in log:
        spans.setdefault(event["token"], {})[event["event"]] = event["t"]
    assert len(spans) == workers * rounds  # every acquisition had its own token
    ordered = sorted((s["enter"], s["exit"]) for s in spans.values())
    for (_, prev_exit), (next_enter, _) in itertools.pairwise(ordered):
        assert next_enter >= prev_exit, "two holders overlapped"
    rows = await store.state_list(NAMESPACE)
    shared = [r for r in rows if r.key == "shared"]
    assert shared[0].value["count"] == workers * rounds  # no update lost
    assert shared[0].lease_token is None  # the last holder released it
    bound = sorted(r.key for r in rows if r.key.startswith("binding:"))
    assert len(bound) == len(set(bound)) == workers * rounds  # none lost or duplicated


async def test_a_waiting_process_times_out_cleanly(
        tmp_path: Path, store: SqliteStore, procs: list[subprocess.Popen[bytes]]) -> None:
    out = tmp_path / "events.jsonl"
    lifecycle = lifecycle_on(store, stale=10.0)
    holding, release = asyncio.Event(), asyncio.Event()

    async def body() -> None:
        holding.set()
        await release.wait()

    holder = asyncio.create_task(lifecycle.with_lease(
        "shared", body, prepare_lease=lambda cur, lease: cur or {"holder": "parent"}))
    await asyncio.wait_for(holding.wait(), 10)
    proc = spawn("try", str(tmp_path / "state.db"), str(out), "0.5")
    procs.append(proc)
    _, err = await asyncio.to_thread(proc.communicate, timeout=60)
    assert proc.returncode == 0, err.decode()
    [event] = events(out)
    assert event["event"] == "timeout" and 0.5 <= event["waited"] < 10
    assert "timed out" in event["message"]
    release.set()
    await holder
    assert await lifecycle.read("shared") == {"holder": "parent"}


async def test_a_killed_holder_loses_its_lease_at_expiry(
        tmp_path: Path, store: SqliteStore, procs: list[subprocess.Popen[bytes]]) -> None:
    out = tmp_path / "events.jsonl"
    proc = spawn("hold", str(tmp_path / "state.db"), str(out), "1.0")
    procs.append(proc)
    held = await wait_for_event(out, "held", proc)
    row = await store.state_get(NAMESPACE, "shared")
    assert row is not None and row.lease_token == held["token"]
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    killed_at = time.time()
    lifecycle = lifecycle_on(store)
    taken: list[str] = []

    async def body() -> None:
        owner = lifecycle.leases.owner("shared")
        assert owner is not None
        taken.append(owner.token)
        await lifecycle.transact("shared", lambda cur, tok: (None, {**cur, "next": "parent"}))

    await lifecycle.with_lease("shared", body)
    assert taken and taken[0] != held["token"]
    # The lease was still live when the holder died: the takeover waited for expiry.
    assert row.lease_expires_at is not None and time.time() >= row.lease_expires_at
    assert time.time() - killed_at < 30
    final = await store.state_get(NAMESPACE, "shared")
    assert final is not None and final.value["next"] == "parent"
    assert final.value["holder"] == proc.pid  # the binding row itself survived the crash
    assert final.lease_token is None


async def _recover_settled(lifecycle: NativeSessionBindingLifecycle[Any]) -> list[Any]:
    deadline = time.monotonic() + 30
    while True:
        report = await lifecycle.recover()
        if all(r.outcome != "owner-alive" for r in report) or time.monotonic() > deadline:
            return report
        await asyncio.sleep(0.05)  # the dead owner's journal lease is short: poll it out


@pytest.mark.parametrize("point,outcome", [("after-commit", "restored"),
                                           ("after-session-delete", "kept-deleted")])
async def test_a_crash_inside_a_deletion_leaves_binding_and_session_consistent(
        tmp_path: Path, procs: list[subprocess.Popen[bytes]], point: str, outcome: str,
) -> None:
    db, out = tmp_path / "state.db", tmp_path / "events.jsonl"
    store = SqliteStore(db)
    await store.open()
    binding_key = "session:main:agent:main:chat"
    await new_session(store)
    await store.state_insert_if_absent(NAMESPACE, binding_key, {"version": 1, "threadId": "t"})
    await store.close()

    proc = spawn("crash-delete", str(db), str(out), point)
    procs.append(proc)
    await wait_for_event(out, "committed" if point == "after-commit" else "session-deleted",
                         proc)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()

    restarted = SqliteStore(db)
    await restarted.open()
    try:
        # Before recovery the binding is gone; the session may or may not be.
        assert await restarted.state_get(NAMESPACE, binding_key) is None
        lifecycle = lifecycle_on(restarted, stale=1.0)
        report = await _recover_settled(lifecycle)
        assert [(r.key, r.kind, r.outcome) for r in report] == [
            (binding_key, "deletion", outcome)]
        session = await restarted.get_session("agent:main:chat")
        binding = await restarted.state_get(NAMESPACE, binding_key)
        assert (session is None) == (binding is None)  # both present or both gone
        if outcome == "restored":
            assert binding is not None and binding.value == {"version": 1, "threadId": "t"}
        assert await lifecycle.recover() == []
    finally:
        await restarted.close()
