"""Runs on a session whose turn is running, through the run service: the message's own
queue mode travels with the run, and aborting a run whose message still waits takes it
out of the queue unrun (docs/steering.md)."""

from __future__ import annotations

import asyncio
from typing import Any

from clawharness.attempt.executor import LocalTurnExecutor
from clawharness.runs import RunOptions, RunService

KEY = "agent:main:q"


async def until_queued(host: Any, count: int) -> None:
    executor = host.executor
    assert isinstance(executor, LocalTurnExecutor)
    async with asyncio.timeout(5):
        while executor.runner.queued(KEY) < count:
            await asyncio.sleep(0.001)


async def test_aborting_a_waiting_run_withdraws_its_message(scripted_host: Any) -> None:
    host, server = await scripted_host({"responses": [
        {"match": "^first$", "text": "first answer", "delay_ms": 300},
        {"match": "^second$", "text": "never asked"}]})
    runs = RunService(host)
    first = runs.start(KEY, "first", RunOptions(agent_id="main"))
    second = runs.start(KEY, "second", RunOptions(agent_id="main", queue_mode="followup"))
    await until_queued(host, 1)
    assert runs.abort(KEY, second.run_id) == [second.run_id]
    withdrawn = await asyncio.wait_for(second.wait(), 5)
    done = await asyncio.wait_for(first.wait(), 10)
    assert done.result is not None and done.result.text == "first answer"
    assert withdrawn.result is None and withdrawn.exception is not None
    assert getattr(withdrawn.exception, "code", None) == "message_withdrawn"
    assert [e.text for e in await host.history(KEY) if e.role == "user"] == ["first"]
    assert len([r for r in server.requests if r.path.endswith("/responses")]) == 1


async def test_a_run_may_interrupt_the_running_one(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": [
        {"match": "^slow$", "text": "too late", "delay_ms": 5000},
        {"match": "^now$", "text": "right away"}]})
    runs = RunService(host)
    slow = runs.start(KEY, "slow", RunOptions(agent_id="main"))
    now = runs.start(KEY, "now", RunOptions(agent_id="main", queue_mode="interrupt"))
    stopped = await asyncio.wait_for(slow.wait(), 10)
    answered = await asyncio.wait_for(now.wait(), 10)
    assert stopped.result is not None and stopped.result.terminal == "aborted"
    assert answered.result is not None and answered.result.text == "right away"
    assert answered.result.queue is not None and answered.result.queue.mode == "interrupt"
