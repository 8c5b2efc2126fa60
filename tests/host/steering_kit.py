"""A slow tool for steering tests: a `read` that waits, through the turn's file backend,
until the test lets it finish, and what the scripted model received."""

from __future__ import annotations

import asyncio
from typing import Any

from clawharness.attempt.executor import LocalTurnExecutor
from clawharness.harness.tool_spec import ToolCallContext
from clawharness.host import Host


class SlowFiles:
    """A file backend whose reads start (`entered`) and then wait for `release`."""

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.release = asyncio.Event()

    async def read_text(self, path: str, context: ToolCallContext) -> str:
        self.entered.set()
        await self.release.wait()
        return "the notes\n"

    async def write_text(self, path: str, content: str, context: ToolCallContext) -> None:
        raise AssertionError("not written in these tests")


async def until_queued(host: Host, key: str, count: int, timeout: float = 5.0) -> None:
    """Wait until `count` messages wait behind the session's running turn."""
    executor = host.executor
    assert isinstance(executor, LocalTurnExecutor)
    async with asyncio.timeout(timeout):
        while executor.runner.queued(host.session_key(key)) < count:
            await asyncio.sleep(0.001)


def user_texts(body: Any) -> list[str]:
    """The user messages' texts of a Responses API request, in order."""
    out: list[str] = []
    for item in body.get("input") or []:
        if item.get("role") != "user":
            continue
        content = item.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out.append("".join(b.get("text", "") for b in content if isinstance(b, dict)))
    return out


def model_requests(server: Any) -> list[Any]:
    return [r for r in server.requests if r.path.endswith("/responses")]


def input_kinds(body: Any) -> list[str]:
    """Each input item of a Responses API request: `user:<text>`, `assistant:<text>`,
    `call:<name>`, `result`."""
    out: list[str] = []
    for item in body.get("input") or []:
        kind = item.get("type")
        if kind == "function_call":
            out.append(f"call:{item.get('name')}")
        elif kind == "function_call_output":
            out.append("result")
        elif item.get("role") in ("user", "assistant"):
            content = item.get("content")
            text = content if isinstance(content, str) else "".join(
                b.get("text", "") for b in content or [] if isinstance(b, dict))
            out.append(f"{item['role']}:{text}")
    return out
