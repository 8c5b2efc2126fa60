"""Steering a running Claude Code turn through its streamed input (docs/steering.md): at a
tool boundary the steered message goes to the CLI as a user line; Claude Code takes it as
its next turn, so the attempt goes on until it has answered it, and the transcript has
the message where Claude placed it, once."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from claude_cli_rig import requires_claude
from cli_support import Recorder

from clawharness.config.schema import ToolsConfig
from clawharness.testing import ScriptedModelServer

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "harnesses"))
from steering_support import Steered

pytestmark = [pytest.mark.integration, requires_claude]
UNASKED_EXEC = ToolsConfig.model_validate({"exec": {"security": "full", "ask": "off"}})
STEER = "Answer in French."


async def test_a_steer_at_a_tool_boundary_reaches_claude(rig_factory) -> None:
    async with ScriptedModelServer({"responses": [
        {"tool_calls": [{"name": "Bash", "arguments": {"command": "echo hi",
                                                        "description": "say hi"}}]},
        {"match": "French", "text": "Bonjour.", "repeat": True},
        {"text": "said hi", "delay_ms": 300},
    ]}) as server:
        rig = rig_factory(server.url)
        harness = rig.harness()
        rec = Recorder()
        steering = Steered(STEER)
        params = replace(rig.params("say hi", rec, tools=UNASKED_EXEC),
                         take_steering=steering.take, return_steering=steering.give_back)
        result = await rig.run(harness, params)

        assert result.terminal.kind == "ok", result.terminal
        assert steering.taken == [STEER] and steering.returned == []
        bodies = [r.body for r in server.requests if r.path.startswith("/v1/messages")
                  and not r.path.endswith("count_tokens")]
        last = bodies[-1]["messages"][-1]
        assert last["role"] == "user" and last["content"][0]["text"] == STEER
        assert all(STEER not in json.dumps(body) for body in bodies[:-1])
        assert result.assistant_texts[-1] == "Bonjour."
        assert rec.roles() == ["user", "assistant", "toolResult", "assistant", "user",
                               "assistant"]
        users = [m["content"][0]["text"] for m in rec.mirrored if m["role"] == "user"]
        assert users == ["say hi", STEER]
