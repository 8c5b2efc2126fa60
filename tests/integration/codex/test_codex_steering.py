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


async def test_an_interrupt_found_at_a_tool_boundary_stops_codexs_turn(
        make_rig: MakeRig) -> None:
    """The host's `take_steering` found an interrupt for this turn (another process's
    `interrupt` message, docs/steering.md): it sets the attempt's abort, and the harness
    stops Codex's running turn with `turn/interrupt`; Codex confirms it."""
    rig = await make_rig({"responses": [
        {"tool_calls": [{"name": "weather", "arguments": {"city": "Oslo"}}]},
        {"text": "It is sunny in Oslo."}]})
    release = asyncio.Event()
    release.set()
    # Codex's request after the tool's output waits: the interrupt comes first
    rig.server.hold("weather in Oslo")
    attempt = rig.attempt("weather?", tools=[weather_tool(release)])
    abort = attempt.params.abort
    taken: list[bool] = []

    async def take() -> list[str]:
        taken.append(True)
        abort.set()  # what the host's taker does when the inbox holds an interrupt
        return []

    attempt.params = replace(attempt.params, take_steering=take)
    result = await asyncio.wait_for(rig.harness.run_attempt(attempt.params), 120)
    assert taken
    assert result.terminal.kind == "aborted", result.terminal
    assert "did not confirm" not in (result.terminal.error or "")
    texts = [b.get("text") for m in attempt.mirrored.values() if m["role"] == "assistant"
             for b in m.get("content") or [] if isinstance(b, dict)]
    assert "It is sunny in Oslo." not in texts
