"""Run the gateway until SIGINT/SIGTERM: what `clawharness serve` calls."""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Callable, Mapping

from clawharness.gateway.server import GatewayServer
from clawharness.gateway.settings import resolve_settings

__all__ = ["serve_gateway"]


async def serve_gateway(config_path: str | None, *, port: int | None = None,
                        bind: str | None = None, token: str | None = None,
                        tick_interval_ms: int | None = None,
                        env: Mapping[str, str] | None = None,
                        cluster_url: str | None = None,
                        announce: Callable[[str], None] = print) -> None:
    """Load the host, listen, announce `listening ws://HOST:PORT`, serve until a signal."""
    from clawharness.host import Host

    level = os.environ.get("CLAWHARNESS_LOG_LEVEL", "WARNING").upper()
    logging.basicConfig(level=getattr(logging, level, logging.WARNING),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    environ = dict(os.environ if env is None else env)
    host = Host.from_config(config_path, env=environ, serving=True,
                            cluster_url=cluster_url)
    settings = resolve_settings(host.config, environ, port=port, bind=bind, token=token,
                                tick_interval_ms=tick_interval_ms)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (NotImplementedError, RuntimeError):  # not the main thread
            pass
    async with host:
        if host.cluster_url is None:  # turns run here: their SDKs load before listening
            host.preload_model_transports()
        server = GatewayServer(host, settings)
        async with server.running():
            shown = f"[{settings.host}]" if ":" in settings.host else settings.host
            announce(f"listening ws://{shown}:{server.port}")
            waiter = asyncio.create_task(server.wait_closed())
            stopper = asyncio.create_task(stop.wait())
            try:
                await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                waiter.cancel()
                stopper.cancel()
