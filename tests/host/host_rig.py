"""A real host on a scripted model server, for the host's tests and their neighbours'
(tests/runs, tests/subagents reach it through their conftest)."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

HostFactory = Callable[..., Any]


def write_config(state: Path, base_url: str, *, provider: dict[str, Any] | None = None,
                 **extra: Any) -> Path:
    """The host's config in `state`: the model `scripted/m1` at `base_url` (`provider`
    adds to or replaces keys of its provider entry), and `extra` top-level sections."""
    config: dict[str, Any] = {
        "models": {"providers": {"scripted": {
            "baseUrl": base_url, "api": "openai-responses", "apiKey": "test-key",
            "models": [{"id": "m1"}], **(provider or {})}}},
        "agents": {"defaults": {"model": "scripted/m1", "workspace": str(state / "workspace")}},
    }
    for key, value in extra.items():
        config[key] = value
    path = state / "config.json5"
    path.write_text(json.dumps(config))
    return path


@pytest.fixture
async def scripted_host(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    """`await make(script, provider=..., serving=..., **config_extra)` -> (host, server);
    everything closed afterwards (`provider`: see `write_config`)."""
    opened: list[Any] = []

    async def make(script: dict[str, Any], *, provider: dict[str, Any] | None = None,
                   serving: bool = False, **extra: Any) -> tuple[Host, ScriptedModelServer]:
        server = ScriptedModelServer(script)
        await server.start()
        opened.append(server)
        path = write_config(tmp_path, server.base_url_openai, provider=provider, **extra)
        host = Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)},
                                serving=serving)
        await host.start()
        opened.append(host)
        return host, server

    yield make
    for thing in reversed(opened):
        if isinstance(thing, Host):
            await thing.close()
        else:
            await thing.stop()
