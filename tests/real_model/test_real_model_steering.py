"""A steer reaches the real model's prompt (docs/steering.md): while the host runs the
model's `read` call (held until the steer is queued), a second message arrives; the
model's next request carries it as a user message right after the tool's result, and
the transcript keeps it there, once. Nothing here asserts the model's wording."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from real_rig import RealHostFactory

from clawharness.attempt.executor import LocalTurnExecutor
from clawharness.harness.tool_spec import ToolCallContext
from clawharness.testing.real_model.session import READ_REQUEST, TOOLS_POLICY, WORKSPACE_FILES
from clawharness.tools import ToolBackends

pytestmark = pytest.mark.real_model

STEER = "Also say hello."


class HeldFiles:
    """Reads the workspace's file once the test lets the read finish."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    async def read_text(self, path: str, context: ToolCallContext) -> str:
        self.entered.set()
        await self.release.wait()
        return Path(path).read_text()

    async def write_text(self, path: str, content: str, context: ToolCallContext) -> None:
        raise AssertionError("the model only reads here")


async def test_a_steer_reaches_the_real_models_next_prompt(
        make_real_host: RealHostFactory) -> None:
    key = "agent:main:steer"
    async with make_real_host(tools=TOOLS_POLICY) as rig:
        await rig.seed_tool_history(key)
        files = HeldFiles()
        turn = asyncio.create_task(rig.turn(key, READ_REQUEST,
                                            tool_backends=ToolBackends(files=files)))
        await asyncio.wait_for(files.entered.wait(), 120)
        steer = asyncio.create_task(rig.host.run_turn(key, STEER))
        executor = rig.host.executor
        assert isinstance(executor, LocalTurnExecutor)
        async with asyncio.timeout(10):
            while executor.runner.queued(key) < 1:
                await asyncio.sleep(0.005)
        files.release.set()
        result, steered = await asyncio.wait_for(asyncio.gather(turn, steer), 300)

        assert result.terminal == "ok", result.error
        assert steered.run_id == result.run_id
        assert steered.queue is not None and steered.queue.carried == "steered"
        first, second = rig.model.chat_requests()[:2]
        assert all(m.get("content") != STEER for m in first.body["messages"])
        tail = second.body["messages"][-2:]
        assert tail[0]["role"] == "tool"
        assert tail[0]["content"].strip() == WORKSPACE_FILES["todo.txt"].strip()
        assert tail[1] == {"role": "user", "content": STEER}
        users = [e.text for e in await rig.host.history(key) if e.role == "user"]
        assert users[-2:] == [READ_REQUEST, STEER] and users.count(STEER) == 1
