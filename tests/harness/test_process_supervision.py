"""SupervisedProcesses: a process kept per binding is stopped whatever ends it."""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from clawharness.plugin_sdk.agent_harness_process import (
    ChildProcess,
    SupervisedProcesses,
    spawn,
)
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    SessionHookParams,
    native_session_bindings,
)

SLEEPER = [sys.executable, "-c", "import time; time.sleep(120)"]


@dataclass
class Live:
    child: ChildProcess
    stopped_by_harness: bool = False


async def start() -> Live:
    return Live(await spawn(SLEEPER, env={"PATH": os.environ.get("PATH", "")}, cwd="/"))


async def exited(live: Live, timeout: float = 10.0) -> bool:
    return await live.child.wait(timeout)


@pytest.fixture
async def table() -> AsyncIterator[SupervisedProcesses[Live]]:
    made: SupervisedProcesses[Live] = SupervisedProcesses(grace=0.5)
    yield made
    await made.close_all()


async def test_close_stops_the_process_and_forgets_it(table: SupervisedProcesses[Live]) -> None:
    live = await start()
    table.put("k", live)
    assert table.get("k") is live and table.pids() == [live.child.pid]
    await table.close("k")
    assert await exited(live)
    assert table.get("k") is None and "k" not in table and table.pids() == []
    await table.close("k")  # closing what is not there is a no-op


async def test_an_idle_process_expires_and_reuse_cancels_the_timer(
        table: SupervisedProcesses[Live]) -> None:
    kept, idle = await start(), await start()
    table.put("kept", kept)
    table.put("idle", idle)
    table.expire_after("kept", 0.2)
    table.expire_after("idle", 0.2)
    assert table.get("kept") is kept  # in use again: its timer is gone
    assert await exited(idle)
    assert "idle" not in table
    assert not await kept.child.wait(0.5)  # well past the expiry it would have had
    assert table.get("kept") is kept


async def test_a_harness_stop_function_runs_instead_of_the_default() -> None:
    async def stop(live: Live) -> None:
        live.stopped_by_harness = True
        await live.child.shutdown(grace=0.5)

    table: SupervisedProcesses[Live] = SupervisedProcesses(stop=stop)
    live = await start()
    table.put("k", live)
    await table.close_all()
    assert live.stopped_by_harness and await exited(live)


async def test_removing_a_sessions_binding_stops_its_process(tmp_path: Path,
                                                             table: SupervisedProcesses[Live]
                                                             ) -> None:
    bindings = native_session_bindings("sleepy", state_dir=tmp_path)
    table.close_with(bindings)
    mine, other = await start(), await start()
    table.put(bindings.row_key("main", "agent:main:a"), mine)
    table.put(bindings.row_key("main", "agent:main:b"), other)
    await bindings.write("main", "agent:main:a", {"nativeSessionId": "n1"})
    await bindings.reset(SessionHookParams(agent_id="main", session_key="agent:main:a",
                                           session_id="s", reason="reset", store_url="x"))
    assert await exited(mine)
    assert await bindings.read("main", "agent:main:a") is None
    assert table.pids() == [other.child.pid]
    await bindings.close()


async def test_close_all_keeps_going_when_one_stop_fails() -> None:
    async def stop(live: Live) -> None:
        if not live.stopped_by_harness:
            live.stopped_by_harness = True
            raise RuntimeError("connection close failed")
        await live.child.shutdown(grace=0.5)

    table: SupervisedProcesses[Live] = SupervisedProcesses(stop=stop)
    first, second = await start(), await start()
    table.put("a", first)
    table.put("b", second)
    await table.close_all()
    assert await exited(first) and await exited(second)  # the failing one was killed
    assert len(table) == 0
