"""Helpers: a CodexHarness / AppServerPool driving the fake app-server script."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from clawharness.harness.capabilities import HostCapabilities
from clawharness.harness.types import AttemptParams, ResolvedModel
from clawharness.harnesses.codex.config import AppServerConfig

FAKE = Path(__file__).with_name("fake_codex_app_server.py")


class AllowAll:
    def check(self, tool_name: str) -> str | None:
        return None

    def needs_approval(self, tool_name: str, arguments: Mapping[str, Any]) -> str | None:
        return None


def fake_config(log: Path, **env: str) -> AppServerConfig:
    """An app-server config that starts the fake (via this Python) with `env`."""
    return AppServerConfig(command=sys.executable, args=(str(FAKE),),
                           env={"FAKE_LOG": str(log), **env}, request_timeout_seconds=5,
                           startup_timeout_seconds=5)


def received(log: Path) -> list[str]:
    if not log.exists():
        return []
    return [json.loads(line).get("method") for line in log.read_text().splitlines()]


def attempt_params(workspace: Path, prompt: str, *, session_key: str = "agent:main:s1",
                   mirrored: list[dict[str, Any]] | None = None,
                   partials: list[str] | None = None,
                   events: list[Any] | None = None) -> AttemptParams:
    async def mirror(messages: Sequence[dict[str, Any]]) -> None:
        if mirrored is not None:
            mirrored.extend(messages)

    run_id = str(uuid.uuid4())
    return AttemptParams(
        run_id=run_id, session_key=session_key, session_id="sid-1", agent_id="main",
        prompt=prompt, provider="openai", model_id="gpt-x",
        model=ResolvedModel(provider="openai", model_id="gpt-x"),
        workspace_dir=str(workspace),
        host_capabilities=HostCapabilities(run_id=run_id, session_key=session_key,
                                           workspace_dir=str(workspace), policy=AllowAll(),
                                           approvals=None),
        runtime_plan=None, mirror=mirror,
        on_partial_reply=(lambda text: partials.append(text)) if partials is not None else None,
        on_agent_event=events.append if events is not None else None,
        deadline=asyncio.get_event_loop().time() + 30)


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
    except FileNotFoundError:
        return False


def kill(pid: int) -> None:
    os.kill(pid, 9)


async def eventually(predicate: Callable[[], bool], *, timeout: float = 5.0,
                     what: str = "the condition") -> None:
    """Wait until `predicate()` holds (polling), or fail after `timeout` seconds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        if loop.time() > end:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        await asyncio.sleep(0.01)
