"""Builders shared by the CLI-backend harness tests: params, a recorder, process checks."""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clawharness.config.schema import ToolsConfig
from clawharness.harness.capabilities import ApprovalGate, HostCapabilities
from clawharness.harness.types import AgentEvent, AttemptParams, PreparedAuth, ResolvedModel
from clawharness.tools.policy import EffectiveToolPolicy


@dataclass
class Recorder:
    """Collects what an attempt reports: mirrored messages, partials, events, observations."""

    mirrored: list[dict[str, Any]] = field(default_factory=list)
    partials: list[str] = field(default_factory=list)
    events: list[AgentEvent] = field(default_factory=list)
    observations: list[dict[str, Any]] = field(default_factory=list)

    async def mirror(self, messages: Sequence[dict[str, Any]]) -> None:
        self.mirrored.extend(messages)

    def partial(self, text: str) -> None:
        self.partials.append(text)

    def event(self, event: AgentEvent) -> None:
        self.events.append(event)

    def observe(self, observation: dict[str, Any]) -> Any:
        self.observations.append(observation)
        return None

    def roles(self) -> list[str]:
        return [m["role"] for m in self.mirrored]

    def keys(self) -> list[str]:
        return [m["__meta"]["idempotencyKey"] for m in self.mirrored]


def make_params(
    workspace: Path,
    state_dir: Path,
    *,
    prompt: str,
    recorder: Recorder,
    provider: str = "anthropic",
    model_id: str = "claude-sonnet-4-5",
    base_url: str | None = None,
    session_key: str = "agent:main:main",
    session_id: str | None = None,
    tools: ToolsConfig | None = None,
    approvals: ApprovalGate | None = None,
    plugin_config: Mapping[str, Any] | None = None,
    abort: asyncio.Event | None = None,
    deadline: float | None = None,
    history: Sequence[Mapping[str, Any]] = (),
    api_key: str | None = None,
) -> AttemptParams:
    run_id = str(uuid.uuid4())
    policy = EffectiveToolPolicy(tools or ToolsConfig(), workspace_dir=str(workspace))
    caps = HostCapabilities(run_id=run_id, session_key=session_key,
                            workspace_dir=str(workspace), policy=policy, approvals=approvals)
    return AttemptParams(
        run_id=run_id, session_key=session_key, session_id=session_id or "host-session-1",
        agent_id="main", prompt=prompt, provider=provider, model_id=model_id,
        model=ResolvedModel(provider=provider, model_id=model_id, base_url=base_url),
        workspace_dir=str(workspace), host_capabilities=caps, runtime_plan=None,
        abort=abort or asyncio.Event(), deadline=deadline, history=[dict(m) for m in history],
        on_partial_reply=recorder.partial, on_agent_event=recorder.event,
        observe_tool_terminal=recorder.observe, plugin_config=dict(plugin_config or {}),
        state_dir=str(state_dir), mirror=recorder.mirror,
        auth=PreparedAuth("direct", api_key) if api_key else PreparedAuth(),
    )


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


def processes_matching(marker: str) -> list[int]:
    """Pids whose command line contains `marker` (zombies excluded)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmd = fh.read().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        if marker in cmd and pid_alive(int(entry)):
            found.append(int(entry))
    return found


async def wait_until(predicate: Any, timeout: float = 10.0) -> bool:
    """Poll `predicate` (no fixed sleep: returns as soon as it holds)."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        if predicate():
            return True
        await asyncio.sleep(0.05)
    return bool(predicate())
