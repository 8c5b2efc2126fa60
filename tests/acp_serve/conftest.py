"""Fixtures for `clawharness acp`: a real host on a scripted model server, served over
a socket pair to the ACP library's client side (`EditorClient`)."""

from __future__ import annotations

import asyncio
import socket
import sys
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from acp import PROTOCOL_VERSION
from acp.client.connection import ClientSideConnection
from acp.schema import Implementation

from clawharness.acp_serve import AcpServeOptions, serve
from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

sys.path.insert(0, str(Path(__file__).resolve().parent))

from acp_serve_rig import EditorClient, capabilities, write_config


@dataclass
class Served:
    host: Host
    server: ScriptedModelServer
    conn: ClientSideConnection
    client: EditorClient
    #: the editor's project: the cwd of the sessions the tests open
    project: Path
    config: Path

    async def initialize(self, *, fs: bool = True, terminal: bool = True) -> Any:
        return await self.conn.initialize(
            protocol_version=PROTOCOL_VERSION, client_capabilities=capabilities(
                fs=fs, terminal=terminal),
            client_info=Implementation(name="tests", version="1"))


@pytest.fixture
async def served(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    """`await serve_to(script, answer=..., options=..., telemetry=..., **config_extra)`
    -> `Served`; everything stopped afterwards."""
    stops: list[Callable[[], Any]] = []

    async def serve_to(script: dict[str, Any], *, answer: Any = "allow_once",
                       options: AcpServeOptions | None = None, telemetry: Any = None,
                       **extra: Any) -> Served:
        server = ScriptedModelServer(script)
        await server.start()
        stops.append(server.stop)
        config = write_config(tmp_path, server.base_url_openai, **extra)
        host = Host.from_config(config, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)},
                                telemetry=telemetry)
        await host.start()
        stops.append(host.close)
        project = tmp_path / "project"
        project.mkdir(exist_ok=True)
        agent_end, client_end = socket.socketpair()
        agent_reader, agent_writer = await asyncio.open_connection(sock=agent_end)
        client_reader, client_writer = await asyncio.open_connection(sock=client_end)
        task = asyncio.create_task(serve(host, agent_reader, agent_writer, options))
        client = EditorClient(answer)
        conn = ClientSideConnection(client, client_writer, client_reader)

        async def stop() -> None:
            await conn.close()
            client_writer.close()
            async with asyncio.timeout(30):
                await task
            await client.close()

        stops.append(stop)
        return Served(host, server, conn, client, project, config)

    yield serve_to
    for stop in reversed(stops):
        await stop()
