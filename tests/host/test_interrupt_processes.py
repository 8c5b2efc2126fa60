"""`interrupt` across processes, on SQLite and on PostgreSQL: a real `clawharness agent`
child sends an `interrupt` message for a session whose turn this process runs (holding
the writer lease). The turn stops at its next check point (the tool boundary, where it
reads the store's steering inbox anyway), ends `aborted` with its cut tool call settled,
and the child's message then runs as its own turn; every message lands in the
transcript once, in order (docs/steering.md, "Across processes")."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from steering_kit import SlowFiles, input_kinds, model_requests, until_queued

from clawharness.attempt.turn import TurnOptions
from clawharness.sessions.steering_inbox import NAMESPACE
from clawharness.tools import ToolBackends

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "store"))
from store_test_support import PG_URL, drop_schema, new_schema_name, pg_unavailable

READ = {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]}
SCRIPT = {"responses": [
    {"match": "^start$", **READ},
    {"match": "^steered here$", "text": "steered answer"},
    {"match": "^stop, do this instead$", "text": "interrupting answer"},
    {"match": "the notes", "text": "the interrupted turn went on"}]}


@pytest.fixture(params=["sqlite", "postgres"])
def store_section(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[dict[str, Any]]:
    """The config's `store` section: the state directory's SQLite file, or a fresh
    PostgreSQL schema."""
    if request.param == "sqlite":
        yield {}
        return
    if reason := pg_unavailable():
        pytest.skip(reason)
    schema = new_schema_name()
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    try:
        yield {"store": {"url": f"{PG_URL}?options=-csearch_path%3D{schema}"}}
    finally:
        drop_schema(schema)


async def test_an_interrupt_from_another_process_stops_the_turn_and_runs_after_it(
        store_section: dict[str, Any], scripted_host: Any, tmp_path: Path) -> None:
    # store_section comes first so that it is torn down last: the host (and its
    # connections, which may hold a turn-record batch's transaction) closes before
    # the schema is dropped
    host, server = await scripted_host(SCRIPT, **store_section)
    key = host.session_key("shared")
    files = SlowFiles()
    first = asyncio.create_task(host.run_turn("shared", "start", TurnOptions(
        tool_backends=ToolBackends(files=files))))
    await asyncio.wait_for(files.entered.wait(), 10)
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "clawharness", "agent", "-m", "stop, do this instead",
        "-s", "shared", "--config", str(tmp_path / "config.json5"), "--json",
        "--queue-mode", "interrupt",
        env={**os.environ, "CLAWHARNESS_STATE_DIR": str(tmp_path)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        # the child has offered its interrupt and waits in the store's queue for the lease
        async with asyncio.timeout(60):
            while (await host.store.session_lease_state(key)).waiters_ahead < 1:
                await asyncio.sleep(0.01)
        # a message of this process steered meanwhile is not taken by the stopped turn
        steer = asyncio.create_task(host.run_turn("shared", "steered here"))
        await until_queued(host, "shared", 1)
        files.release.set()  # the tool ends: the turn reaches its tool boundary
        stopped = await asyncio.wait_for(first, 20)
        out, err = await asyncio.wait_for(child.communicate(), 60)
        steered = await asyncio.wait_for(steer, 20)
    finally:
        if child.returncode is None:
            child.kill()
            await child.wait()
    assert child.returncode == 0, err.decode()
    other = json.loads(out)
    assert stopped.terminal == "aborted"
    assert other["terminal"] == "ok" and other["text"] == "interrupting answer"
    assert other["runId"] != stopped.run_id
    # the steered message ran as its own turn, after the interrupting one
    assert steered.text == "steered answer" and steered.run_id not in (
        stopped.run_id, other["runId"])
    history = await host.history("shared")
    users = [e.text for e in history if e.role == "user"]
    assert users == ["start", "stop, do this instead", "steered here"]
    requests = model_requests(server)
    # the stopped turn made no model call after its tool: three calls in all
    assert len(requests) == 3
    assert input_kinds(requests[1].body) == [
        "user:start", "call:read", "result", "user:stop, do this instead"]
    assert "the interrupted turn went on" not in [e.text for e in history]
    # no offer is left behind
    assert await host.store.state_list(NAMESPACE) == []

