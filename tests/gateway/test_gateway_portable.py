"""`sessions.adopt` and `sessions.handoff` over the gateway, on the real `Host` with a
Claude Code session file (no runtime needed to adopt or hand off one)."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from gateway_support import TOKEN

from clawharness.gateway.client import GatewayClient, GatewayRequestError
from clawharness.gateway.server import GatewayServer
from clawharness.gateway.settings import resolve_settings
from clawharness.host import Host

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "harnesses" / "cli"))
from claude_session_files import SESSION, conversation, write_session


@pytest.fixture
async def gateway(tmp_path: Path) -> AsyncIterator[str]:
    config = {
        "models": {"providers": {"anthropic": {"baseUrl": "http://127.0.0.1:9"}}},
        "agents": {"defaults": {
            "model": "anthropic/claude-opus-5", "workspace": str(tmp_path / "ws"),
            "models": {"anthropic/claude-opus-5": {"agentRuntime": {"id": "claude-cli"}}}}},
        "gateway": {"port": 0, "auth": {"mode": "token", "token": TOKEN}},
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    env = {"CLAWHARNESS_STATE_DIR": str(tmp_path / "state"),
           "CLAUDE_CONFIG_DIR": str(tmp_path / "user-claude")}
    async with Host.from_config(path, env=env) as host:
        server = GatewayServer(host, resolve_settings(host.config, env))
        async with server.running():
            yield f"ws://127.0.0.1:{server.port}"


async def test_adopt_then_handoff_over_the_gateway(gateway: str, tmp_path: Path) -> None:
    source = write_session(tmp_path / "user-claude" / "projects" / "p", conversation())
    async with await GatewayClient.connect(gateway, token=TOKEN) as admin:
        adopted = await admin.request("sessions.adopt", {
            "runtime": "claude-code", "source": SESSION, "key": "work"})
        assert adopted["ok"] is True
        assert (adopted["sessionKey"], adopted["nativeSessionId"], adopted["appended"]) == (
            "agent:main:work", SESSION, 6)
        assert adopted["source"] == str(source)
        history = await admin.request("chat.history", {"sessionKey": "agent:main:work"})
        assert "remember: the code word is pelican" in json.dumps(history)

        project = tmp_path / "proj"
        project.mkdir()
        handed = await admin.request("sessions.handoff", {
            "key": "work", "runtime": "claude-code", "cwd": str(project)})
        assert handed["ok"] is True and handed["sessionKey"] == "agent:main:work"
        assert handed["command"] == ["claude", "--resume", handed["nativeSessionId"]]
        assert Path(handed["location"]).is_file()

        with pytest.raises(GatewayRequestError) as refused:
            await admin.request("sessions.adopt", {"runtime": "claude-code",
                                                   "source": str(tmp_path / "none.jsonl")})
        assert refused.value.code == "INVALID_REQUEST"
        assert refused.value.details["code"] == "native_session_not_found"
        with pytest.raises(GatewayRequestError) as bound:
            await admin.request("sessions.adopt", {"runtime": "claude-code",
                                                   "source": SESSION, "key": "elsewhere"})
        assert bound.value.details["code"] == "native_session_bound"
        assert "hint" in bound.value.details


async def test_they_need_operator_admin(gateway: str, tmp_path: Path) -> None:
    write_session(tmp_path / "user-claude" / "projects" / "p", conversation())
    writer = await GatewayClient.connect(gateway, token=TOKEN,
                                         scopes=["operator.read", "operator.write"])
    async with writer:
        for method, params in (
                ("sessions.adopt", {"runtime": "claude-code", "source": SESSION}),
                ("sessions.handoff", {"key": "work", "runtime": "claude-code"})):
            with pytest.raises(GatewayRequestError) as err:
                await writer.request(method, params)
            assert err.value.code == "FORBIDDEN", method
            assert err.value.details["missingScope"] == "operator.admin"
