"""Exactly once, in order, across processes: a message that arrives in another process
(a real `clawharness agent` child on the same store) while this one's turn holds the
session's writer lease is steered into that turn (the store-backed offer it claims at
its tool boundary), or, as a followup, runs once after it; never lost, never twice
(docs/steering.md)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

from steering_kit import SlowFiles, until_queued

from clawharness.attempt.turn import TurnOptions
from clawharness.host import Host
from clawharness.sessions.steering_inbox import NAMESPACE
from clawharness.tools import ToolBackends

READ = {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]}
SCRIPT = {"responses": [
    {"match": "^start$", **READ},
    {"match": "from the other process", "text": "took both"},
    {"match": "steered here", "text": "turn one done"},
    {"match": "^from the other process$", "text": "other answer"}]}


async def child_turn(host: Host, tmp_path: Path, started: Any, *extra: str) -> Any:
    """Run `agent -m` in a child process while `started` (this process's turn) holds the
    lease, steer a message of this process in too, then let the turn finish."""
    key = host.session_key("shared")
    env = {**os.environ, "CLAWHARNESS_STATE_DIR": str(tmp_path)}
    child = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "clawharness", "agent", "-m", "from the other process",
        "-s", "shared", "--config", str(tmp_path / "config.json5"), "--json", *extra,
        env=env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        # the child waits in the store's queue for the lease this process holds (a steer
        # offered to the turn holding it: the offer follows its first try for the lease)
        async with asyncio.timeout(60):
            while (await host.store.session_lease_state(key)).waiters_ahead < 1 or (
                    "followup" not in extra
                    and not await host.store.state_list(NAMESPACE, prefix=key + "\x1f")):
                await asyncio.sleep(0.01)
        steer = asyncio.create_task(host.run_turn("shared", "steered here"))
        await until_queued(host, "shared", 1)
        started.files.release.set()
        done, steered = await asyncio.wait_for(asyncio.gather(started.task, steer), 20)
        out, err = await asyncio.wait_for(child.communicate(), 60)
    finally:
        if child.returncode is None:
            child.kill()
            await child.wait()
    assert child.returncode == 0, err.decode()
    return done, steered, json.loads(out)


class Started:
    def __init__(self, host: Host) -> None:
        self.files = SlowFiles()
        self.task = asyncio.create_task(host.run_turn("shared", "start", TurnOptions(
            tool_backends=ToolBackends(files=self.files))))


def user_texts_of(body: Any) -> list[str]:
    return [b["text"] for item in body["input"] if item.get("role") == "user"
            for b in item["content"]]


async def test_a_steer_from_another_process_reaches_the_turn_holding_the_lease(
        scripted_host: Any, tmp_path: Path) -> None:
    host, server = await scripted_host(SCRIPT)
    started = Started(host)
    await asyncio.wait_for(started.files.entered.wait(), 10)
    done, steered, other = await child_turn(host, tmp_path, started)
    assert done.text == "took both" and steered.run_id == done.run_id
    # the child's answer is the turn's that took its message
    assert other["runId"] == done.run_id and other["text"] == "took both"
    assert other["queue"] == {"mode": "steer", "carried": "steered"}
    users = [e.text for e in await host.history("shared") if e.role == "user"]
    assert users == ["start", "steered here", "from the other process"]
    requests = [r for r in server.requests if r.path.endswith("/responses")]
    assert len(requests) == 2  # one turn: the read, then the answer to all three
    assert user_texts_of(requests[1].body) == users


async def test_a_followup_from_another_process_runs_once_after_the_turn(
        scripted_host: Any, tmp_path: Path) -> None:
    host, server = await scripted_host({"responses": [
        item for item in SCRIPT["responses"] if item.get("text") != "took both"]})
    started = Started(host)
    await asyncio.wait_for(started.files.entered.wait(), 10)
    done, steered, other = await child_turn(host, tmp_path, started,
                                            "--queue-mode", "followup")
    assert done.text == "turn one done" and steered.run_id == done.run_id
    assert other["text"] == "other answer" and other["runId"] != done.run_id
    users = [e.text for e in await host.history("shared") if e.role == "user"]
    assert users == ["start", "steered here", "from the other process"]
    # the other process's turn saw the whole turn before it, steer included
    last = [r for r in server.requests if r.path.endswith("/responses")][-1].body
    assert user_texts_of(last) == users
