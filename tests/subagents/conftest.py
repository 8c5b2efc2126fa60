from __future__ import annotations

import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "host"))
from host_rig import write_config


@pytest.fixture
async def spawn_host(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    """`await make(script, **config_extra)` -> (host, server); `await make.reopen()` ->
    another host on the same state (another process's view). Everything is closed."""
    opened: list[Any] = []
    path: list[Path] = []

    async def make(script: dict[str, Any], **extra: Any) -> tuple[Host, ScriptedModelServer]:
        server = ScriptedModelServer(script)
        await server.start()
        opened.append(server)
        path.append(write_config(tmp_path, server.base_url_openai, **extra))
        return await reopen(), server

    async def reopen() -> Host:
        host = Host.from_config(path[-1], env={"CLAWHARNESS_STATE_DIR": str(tmp_path)})
        await host.start()
        opened.append(host)
        return host

    make.reopen = reopen  # type: ignore[attr-defined]
    yield make
    for thing in reversed(opened):
        if isinstance(thing, Host):
            await thing.close()
        else:
            await thing.stop()
