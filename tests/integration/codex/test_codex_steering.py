"""Steering a running Codex turn (docs/steering.md): at a tool boundary the host's
steered messages go to the real app-server as one `turn/steer`, reach the model's next
request after the tool's output, and are mirrored once; a message Codex refuses is
handed back to run as the next turn."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from codex_rig import MakeRig, conversation

from clawharness.harness.types import ToolCallContext, ToolSpec

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "harnesses"))
from steering_support import Steered

pytestmark = pytest.mark.integration

STEER = "Answer in French."


def weather_tool(release: asyncio.Event) -> ToolSpec:
    async def lookup(args: Mapping[str, Any], ctx: ToolCallContext) -> dict[str, Any]:
        await release.wait()
        return {"content": [{"type": "text", "text": f"weather in {args['city']}: sunny"}]}

    return ToolSpec("weather", "Look up the weather", {
        "type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        lookup)


async def test_a_steer_at_a_tool_boundary_reaches_codexs_model(make_rig: MakeRig) -> None:
    release = asyncio.Event()
    rig = await make_rig({"responses": [
        {"tool_calls": [{"name": "weather", "arguments": {"city": "Oslo"}}]},
        {"match": "French", "text": "Il fait beau à Oslo.", "repeat": True},
        {"text": "It is sunny in Oslo.", "delay_ms": 300}]})
    steering = Steered(STEER)
    attempt = rig.attempt("weather?", tools=[weather_tool(release)])
    attempt.params = replace(attempt.params, take_steering=steering.take,
                             return_steering=steering.give_back)
    release.set()
    result = await asyncio.wait_for(rig.harness.run_attempt(attempt.params), 120)

    assert result.terminal.kind == "ok", result.terminal
    assert steering.taken == [STEER] and steering.returned == []
    # a model request after the tool's output carries the steer, as the user's words
    asked = [conversation(body) for body in rig.model_requests()]
    assert any(("user", STEER) in turn for turn in asked[1:])
    assert all(("user", STEER) not in turn for turn in asked[:1])
    users = [m["content"][0]["text"] for m in attempt.mirrored.values() if m["role"] == "user"]
    assert users == ["weather?", STEER]
    roles = attempt.roles()
    assert roles.index("toolResult") < roles.index("user", 1)
    assert any(e.stream == "steer" for e in attempt.events)
