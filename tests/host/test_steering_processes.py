"""Exactly once, in order, across processes: a message that arrives in another process
(a real `clawharness agent` child on the same store) while this one's turn holds the
session's writer lease is not lost, not steered twice, and runs after the turn; the
messages steered here land inside the turn (docs/steering.md)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from steering_kit import SlowFiles, until_queued

from clawharness.attempt.turn import TurnOptions
from clawharness.tools import ToolBackends

READ = {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]}


async def test_a_message_from_another_process_runs_once_after_the_turn_holding_the_lease(
        scripted_host: Any, tmp_path: Path) -> None:
    host, server = await scripted_host({"responses": [
        {"match": "^start$", **READ},
        {"match": "steered here", "text": "turn one done"},
        {"match": "from the other process", "text": "other answer"}]})
    key = host.session_key("shared")
    files = SlowFiles()
    first = asyncio.create_task(host.run_turn("shared", "start", TurnOptions(
        tool_backends=ToolBackends(files=files))))
    await asyncio.wait_for(files.entered.wait(), 10)

    env = {**os.environ, "CLAWHARNESS_STATE_DIR": str(tmp_path)}
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "clawharness", "agent", "-m", "from the other process",
        "-s", "shared", "--config", str(tmp_path / "config.json5"), "--json",
        env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        # the child waits in the store's queue for the lease this process holds
        async with asyncio.timeout(60):
            while (await host.store.session_lease_state(key)).waiters_ahead < 1:
                await asyncio.sleep(0.01)
        steer = asyncio.create_task(host.run_turn("shared", "steered here"))
        await until_queued(host, "shared", 1)
        files.release.set()
        done, steered = await asyncio.wait_for(asyncio.gather(first, steer), 20)
        out, err = await asyncio.wait_for(child.communicate(), 60)
    finally:
        if child.returncode is None:
            child.kill()
            await child.wait()
    assert child.returncode == 0, err.decode()
    other = json.loads(out)
    assert other["text"] == "other answer" and other["terminal"] == "ok"
    assert done.text == "turn one done" and steered.run_id == done.run_id
    users = [e.text for e in await host.history("shared") if e.role == "user"]
    assert users == ["start", "steered here", "from the other process"]
    # the other process's turn saw the whole turn before it, steer included
    last = [r for r in server.requests if r.path.endswith("/responses")][-1].body
    seen = [item for item in last["input"] if item.get("role") == "user"]
    assert [b["text"] for item in seen for b in item["content"]] == users
