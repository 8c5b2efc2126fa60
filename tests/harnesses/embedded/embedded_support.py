"""Builders shared by the built-in runtime's tests: params, a recording mirror, servers."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clawharness.config.schema import ToolsConfig
from clawharness.harness.capabilities import ApprovalGate, HostCapabilities
from clawharness.harness.types import AgentEvent, AttemptParams, ResolvedModel, ToolSpec
from clawharness.testing import ScriptedModelServer
from clawharness.tools.builtin import core_tool_specs
from clawharness.tools.policy import EffectiveToolPolicy

APIS = ("openai-responses", "openai-completions", "anthropic-messages")


def base_url(server: ScriptedModelServer, api: str) -> str:
    """The base URL an SDK for `api` expects from the scripted server."""
    return server.url if api == "anthropic-messages" else server.base_url_openai


@dataclass
class Recorder:
    """Collects what an attempt reports: mirrored messages, partials, events, observations."""

    mirrored: list[dict[str, Any]] = field(default_factory=list)
    partials: list[str] = field(default_factory=list)
    events: list[AgentEvent] = field(default_factory=list)
    observations: list[dict[str, Any]] = field(default_factory=list)
    observe_answer: Any = None

    async def mirror(self, messages: Sequence[dict[str, Any]]) -> None:
        self.mirrored.extend(messages)

    def partial(self, text: str) -> None:
        self.partials.append(text)

    def event(self, event: AgentEvent) -> None:
        self.events.append(event)

    def observe(self, observation: dict[str, Any]) -> Any:
        self.observations.append(observation)
        return self.observe_answer

    def roles(self) -> list[str]:
        return [m["role"] for m in self.mirrored]

    def streams(self, name: str) -> list[Mapping[str, Any]]:
        return [e.data for e in self.events if e.stream == name]


def make_params(
    workspace: Path,
    *,
    api: str,
    url: str | None,
    recorder: Recorder,
    tools: Sequence[ToolSpec] | None = None,
    tools_config: ToolsConfig | None = None,
    approvals: ApprovalGate | None = None,
    history: Sequence[dict[str, Any]] = (),
    max_steps: int = 24,
    deadline: float | None = None,
    model_params: Mapping[str, Any] | None = None,
    abort: asyncio.Event | None = None,
) -> AttemptParams:
    """AttemptParams for one attempt against `url` with the core tools by default."""
    config = tools_config or ToolsConfig()
    capabilities = HostCapabilities(
        run_id="run-1",
        session_key="agent:main:main",
        workspace_dir=str(workspace),
        policy=EffectiveToolPolicy(config, workspace_dir=str(workspace)),
        approvals=approvals,
    )
    return AttemptParams(
        run_id="run-1",
        session_key="agent:main:main",
        session_id="session-1",
        agent_id="main",
        prompt="please help",
        provider="test",
        model_id="scripted",
        model=ResolvedModel("test", "scripted", api=api, base_url=url,
                            params=dict(model_params or {})),
        workspace_dir=str(workspace),
        host_capabilities=capabilities,
        runtime_plan=None,
        system_prompt="You are a test agent.",
        tools=list(tools) if tools is not None else core_tool_specs(config),
        history=history,
        mirror=recorder.mirror,
        on_partial_reply=recorder.partial,
        on_agent_event=recorder.event,
        observe_tool_terminal=recorder.observe,
        max_steps=max_steps,
        deadline=deadline,
        abort=abort or asyncio.Event(),
    )


def text_of(message: Mapping[str, Any]) -> str:
    """The joined text blocks of a transcript message."""
    return "".join(b.get("text", "") for b in message.get("content", ())
                   if b.get("type") == "text")
