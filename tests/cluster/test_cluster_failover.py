"""A worker SIGKILLed in the middle of a tool call: the turn completes on the other
worker, the transcript is whole, and the tool's side effect happened exactly once."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Any

import psycopg
import pytest
from cluster_rig import PG_URL, ClusterRig

from clawharness.host import Host

pytestmark = pytest.mark.integration


def _lease_holder(rig: ClusterRig, session_key: str) -> str | None:
    with psycopg.connect(PG_URL) as conn:
        row = conn.execute(
            f'SELECT holder FROM "{rig.schema}".session_leases '
            "WHERE session_key = %s AND token IS NOT NULL", (session_key,)).fetchone()
    return None if row is None else str(row[0])


async def _wait(condition, what: str, timeout: float = 60) -> None:  # type: ignore[no-untyped-def]
    async with asyncio.timeout(timeout):
        while not condition():
            await asyncio.sleep(0.05)


async def test_a_worker_killed_mid_tool_call_hands_the_turn_on_and_the_effect_stays_once(
        make_rig, tmp_path: Path) -> None:
    # in the rig's workspace: exec runs sandboxed where it can, and sees nothing else
    log = tmp_path / "ws" / "effects.log"
    # the tool appends, then holds until released (bounded): the test releases it at
    # the end, so the shell the dead worker left behind exits
    release = tmp_path / "ws" / "release"
    command = (f"echo appended >> {log}; for i in $(seq 1200); do "
               f"[ -e {release} ] && break; sleep 0.1; done")
    rig: ClusterRig = make_rig({"responses": [
        # the same call on every attempt (the model is asked again on the retry)
        {"match": "^append a line$", "repeat": True, "tool_calls": [{
            "name": "exec", "id": "call_append",
            "arguments": {"command": command}}]},
        {"match": "interrupted with unknown effect",
         "text": "The append was interrupted; I did not repeat it."},
    ]})
    rig.write_config(tools={"exec": {"security": "full", "ask": "off", "timeoutSec": 300}})
    workers = {"w1": rig.start_worker("w1"), "w2": rig.start_worker("w2")}
    try:
        await _killed_mid_call(rig, workers, log)
    finally:
        release.touch()


async def _killed_mid_call(rig: ClusterRig, workers: dict[str, Any], log: Path) -> None:
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        turn = asyncio.ensure_future(front.run_turn("s", "append a line"))
        await _wait(lambda: log.exists() and log.read_text() == "appended\n",
                    "the tool to append its line")
        holder = _lease_holder(rig, "agent:main:s")
        assert holder is not None
        [doomed] = [name for name, p in workers.items() if holder.startswith(f"pid {p.pid} ")]
        os.killpg(workers[doomed].pid, signal.SIGKILL)
        result = await asyncio.wait_for(turn, 120)
        survivor = "w2" if doomed == "w1" else "w1"
        assert result.terminal == "ok", result.error
        assert result.text == "The append was interrupted; I did not repeat it."
        assert result.cluster.worker == survivor
        assert result.resumed_run is True  # it continued the lost run
        assert log.read_text() == "appended\n"  # exactly once
        entries = await front.history("s")
    assert [e.role for e in entries] == ["user", "assistant", "toolResult", "assistant"]
    assert entries[0].text == "append a line"
    assert "interrupted with unknown effect" in (entries[2].text or "")
    assert workers[doomed].wait(timeout=10) == -signal.SIGKILL
