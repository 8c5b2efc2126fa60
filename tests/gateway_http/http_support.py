"""A real gateway (real `Host`, built-in runtime, scripted model) with its HTTP side on."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clawharness.gateway.client import GatewayClient
from clawharness.gateway.server import GatewayServer
from clawharness.gateway.settings import resolve_settings
from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

TOKEN = "http-test-token"


@dataclass
class Served:
    base: str
    host: Host
    server: GatewayServer
    model: ScriptedModelServer

    @property
    def v1(self) -> str:
        return f"{self.base}/v1"

    @property
    def ws(self) -> str:
        """The gateway's WebSocket address."""
        return self.base.replace("http://", "ws://")

    async def approver(self) -> GatewayClient:
        """An operator over the WebSocket protocol, asked for the turns' approvals."""
        return await GatewayClient.connect(self.ws, token=TOKEN, client_id="openclaw-tui",
                                           mode="ui", caps=["plugin-approvals"])


def gateway_config(model: ScriptedModelServer, **overrides: Any) -> dict[str, Any]:
    config: dict[str, Any] = {
        "models": {"providers": {"scripted": {
            "baseUrl": model.base_url_openai, "api": "openai-responses", "apiKey": "x",
            "models": [{"id": "m"}]}}},
        "agents": {"defaults": {"model": "scripted/m"},
                   "entries": {"main": {"default": True}, "helper": {}}},
        "tools": {"exec": {"security": "full", "ask": "off"}},
        "gateway": {"port": 0, "auth": {"mode": "token", "token": TOKEN},
                    "http": {"endpoints": {"chatCompletions": {"enabled": True},
                                           "responses": {"enabled": True}}}},
    }
    for key, value in overrides.items():
        config[key] = value
    return config


ServeFactory = Callable[..., Any]



def serve_factory(tmp_path: Path) -> ServeFactory:
    """`async with serve(script, **config_overrides) as served:` a gateway on port 0."""
    import contextlib

    @contextlib.asynccontextmanager
    async def run(script: dict[str, Any], **overrides: Any) -> AsyncIterator[Served]:
        script_path = tmp_path / "script.json"
        script_path.write_text(json.dumps(script))
        async with ScriptedModelServer(script_path) as model:
            path = tmp_path / "config.json"
            path.write_text(json.dumps(gateway_config(model, **overrides)))
            env = {"CLAWHARNESS_STATE_DIR": str(tmp_path / "state")}
            async with Host.from_config(path, env=env) as host:
                server = GatewayServer(host, resolve_settings(host.config, env))
                async with server.running():
                    yield Served(f"http://127.0.0.1:{server.port}", host, server, model)

    return run
