"""OpenClaw's gateway protocol (v4, WebSocket), so OpenClaw's own clients drive this host.

`clawharness serve` runs it; in code:

    async with Host.from_config(path) as host:
        async with GatewayServer(host, resolve_settings(host.config, os.environ)).running():
            ...
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness._faces import lazy_face
from clawharness.gateway.server import GatewayServer
from clawharness.gateway.settings import GatewaySettings, resolve_settings

if TYPE_CHECKING:
    from clawharness.gateway.run import serve_gateway

__all__ = [
    "GatewayServer",
    "GatewaySettings",
    "resolve_settings",
    "serve_gateway",
]

__getattr__, __dir__ = lazy_face(__name__, {
    "serve_gateway": "clawharness.gateway.run",
})
