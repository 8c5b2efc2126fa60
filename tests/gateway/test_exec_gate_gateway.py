"""The shell gate through the gateway (issue 31, section 2): a command the allowlist
analysis cannot vouch for becomes an approval request to connected operators, who see
why; denied, it runs nothing."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from gateway_support import TOKEN, next_event, real_host_gateway

from clawharness.gateway.client import GatewayClient


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[tuple[str, Path]]:
    markers = tmp_path / "markers"
    markers.mkdir()
    command = f"echo $'\\'' ; touch {markers}/ansi-c ; echo \\'"
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [
        {"tool_calls": [{"name": "exec", "arguments": {"command": command}, "id": "c1"}]},
        {"text": "finished"}]}))
    # the OS sandbox off: the gate is the wall under test
    async with real_host_gateway(
            tmp_path, script,
            agent_defaults={"sandbox": {"mode": "off"}, "workspace": str(tmp_path / "workspace")},
            tools={"exec": {"security": "allowlist", "ask": "on-miss",
                            "allowlist": ["echo"]}}) as rig:
        yield rig.url, markers


async def test_an_unreadable_command_is_asked_about_and_denied_runs_nothing(
        served: tuple[str, Path]) -> None:
    url, markers = served
    operator = await GatewayClient.connect(url, token=TOKEN, client_id="openclaw-tui",
                                           mode="ui", caps=["tool-events", "plugin-approvals"])
    async with operator:
        events = operator.events()
        await operator.request("chat.send", {"sessionKey": "agent:main:main",
                                             "message": "go", "idempotencyKey": "g1"})
        asked: dict[str, Any] = await next_event(
            events, lambda f: f["event"] == "plugin.approval.requested", timeout=20)
        request = asked["payload"]["request"]
        assert request["toolName"] == "exec"
        assert "ANSI-C quoting" in request["description"]
        await operator.request("plugin.approval.resolve",
                               {"id": asked["payload"]["id"], "decision": "deny"})
        final = await next_event(
            events, lambda f: f["event"] == "chat" and f["payload"]["state"] in ("final", "error"),
            timeout=20)
        assert final["payload"]["state"] == "final"
    assert list(markers.iterdir()) == []
