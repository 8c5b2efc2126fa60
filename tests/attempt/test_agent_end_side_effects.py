"""Agent-end side effects: scenario 54, fire-and-forget without delaying the reply."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from clawharness.attempt.side_effects import (
    AgentEndHooks,
    await_agent_end_side_effects,
    drain_agent_end_side_effects,
    pending_agent_end_side_effects,
    run_agent_end_side_effects,
)
from clawharness.harness.types import AttemptResult, AttemptTerminal

PAYLOAD: dict[str, Any] = {
    "event": {"messages": [], "success": True},
    "ctx": {"runId": "run-1", "workspaceDir": "/workspace", "sessionKey": "agent:main:main"},
}


async def test_scenario_54_a_failing_research_capture_leaves_the_result_alone(
    caplog: pytest.LogCaptureFixture,
) -> None:
    result = AttemptResult(AttemptTerminal.ok(), "s1", assistant_texts=["Done."])
    before = repr(result)
    hook_ran = asyncio.Event()

    async def capture(event: Any, ctx: Any) -> None:
        raise RuntimeError("capture failed")

    async def agent_end(event: Any, ctx: Any) -> None:
        hook_ran.set()

    with caplog.at_level(logging.WARNING, logger="clawharness.agent_end"):
        handle = run_agent_end_side_effects(PAYLOAD, AgentEndHooks(capture, [agent_end]))
        await asyncio.wait_for(handle.wait(), timeout=2)
    assert hook_ran.is_set()
    assert repr(result) == before
    warnings = [r for r in caplog.records if "capture failed" in r.getMessage()]
    assert len(warnings) == 1 and warnings[0].levelno == logging.WARNING


async def test_run_returns_before_slow_side_effects_finish_and_keeps_their_tasks() -> None:
    release = asyncio.Event()
    started = asyncio.Event()

    async def slow_capture(event: Any, ctx: Any) -> None:
        started.set()
        await release.wait()

    handle = run_agent_end_side_effects(PAYLOAD, AgentEndHooks(slow_capture))
    assert not all(task.done() for task in handle.tasks)
    await asyncio.wait_for(started.wait(), timeout=2)
    assert pending_agent_end_side_effects() >= 1
    release.set()
    await asyncio.wait_for(drain_agent_end_side_effects(), timeout=2)
    assert pending_agent_end_side_effects() == 0


async def test_a_stuck_capture_does_not_hold_back_agent_end_hooks() -> None:
    hook_ran = asyncio.Event()

    async def stuck(event: Any, ctx: Any) -> None:
        await asyncio.Event().wait()

    handle = run_agent_end_side_effects(
        PAYLOAD, AgentEndHooks(stuck, [lambda event, ctx: hook_ran.set()])
    )
    await asyncio.wait_for(hook_ran.wait(), timeout=2)
    for task in handle.tasks:
        task.cancel()
    await handle.wait()


async def test_awaited_side_effects_finish_before_returning_and_survive_failures(
    caplog: pytest.LogCaptureFixture,
) -> None:
    order: list[str] = []

    async def capture(event: Any, ctx: Any) -> None:
        order.append("capture")
        raise ValueError("boom")

    def failing_hook(event: Any, ctx: Any) -> None:
        order.append("hook-1")
        raise RuntimeError("hook broke")

    async def second_hook(event: Any, ctx: Any) -> None:
        order.append("hook-2")

    with caplog.at_level(logging.WARNING, logger="clawharness.agent_end"):
        await await_agent_end_side_effects(
            PAYLOAD, AgentEndHooks(capture, [failing_hook, second_hook])
        )
    assert order == ["capture", "hook-1", "hook-2"]
    assert sum("hook broke" in r.getMessage() for r in caplog.records) == 1


async def test_helper_sessions_skip_research_capture_but_not_hooks() -> None:
    calls: list[str] = []
    payload = {"event": {}, "ctx": {"runId": "r", "sessionId": "active-memory-abc",
                                    "sessionKey": "agent:main:x:active-memory:abc"}}
    await await_agent_end_side_effects(payload, AgentEndHooks(
        lambda e, c: calls.append("capture"), [lambda e, c: calls.append("hook")]
    ))
    assert calls == ["hook"]
