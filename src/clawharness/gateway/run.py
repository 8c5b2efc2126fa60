"""Run the gateway until SIGINT/SIGTERM: what `clawharness serve` calls."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import time
from collections.abc import Callable, Mapping
from pathlib import Path

from clawharness._serve_record import ServeRecord, remove_record, write_record
from clawharness.gateway.server import GatewayServer
from clawharness.gateway.settings import GatewaySettings, resolve_settings, token_source

__all__ = ["endpoint_lines", "serve_gateway"]


def _browsable(host: str) -> str:
    """The address a browser on this machine uses for a bind address."""
    if host in ("0.0.0.0", ""):
        return "127.0.0.1"
    if host == "::":
        return "[::1]"
    return f"[{host}]" if ":" in host else host


def endpoint_lines(settings: GatewaySettings, port: int) -> list[str]:
    """What `serve` says after `listening`: the Control UI's URL and the HTTP endpoints
    it answers (and how to turn on the ones that are off)."""
    base = f"http://{_browsable(settings.host)}:{port}"
    sign_in = ("sign in with the gateway token" if settings.auth_mode == "token"
               else "no token needed")
    lines = []
    if settings.control_ui_enabled:
        lines.append(f"Control UI  {base}/  ({sign_in})")
    else:
        lines.append("Control UI  off (gateway.controlUi.enabled: false)")
    api = ["GET /v1/models"]
    off = []
    for enabled, route, key in (
            (settings.chat_completions_enabled, "POST /v1/chat/completions", "chatCompletions"),
            (settings.responses_enabled, "POST /v1/responses", "responses")):
        if enabled:
            api.append(route)
        else:
            off.append(f"{route} (gateway.http.endpoints.{key}.enabled: true)")
    lines.append(f"HTTP API    {base}  {', '.join(api)}")
    if off:
        lines.append(f"            off: {'; '.join(off)}")
    lines.append(f"health      {base}/health   metrics  {base}/metrics")
    return lines


async def serve_gateway(config_path: str | None, *, port: int | None = None,
                        bind: str | None = None, token: str | None = None,
                        tick_interval_ms: int | None = None,
                        env: Mapping[str, str] | None = None,
                        cluster_url: str | None = None,
                        announce: Callable[[str], None] = print) -> None:
    """Load the host, listen, announce `listening ws://HOST:PORT` (then the Control UI's
    URL and the HTTP endpoints), serve until a signal. While it listens, the serve record
    (`clawharness._serve_record`) in the state dir tells `clawharness agent` where it is."""
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
            # where `clawharness agent` finds this server (docs/cli.md), there before
            # `listening` is said; the token stays out
            config_file = host.loaded.path
            record = ServeRecord(
                pid=os.getpid(), url=f"ws://{_browsable(settings.host)}:{server.port}",
                config=str(Path(config_file).resolve()) if config_file is not None else None,
                auth_mode=settings.auth_mode, cluster=cluster_url, started_at=time.time(),
                token_source=(token_source(host.config, environ, token=token)
                              if settings.auth_mode == "token" else None))
            try:
                write_record(record, environ)
            except OSError as exc:  # a read-only state dir: turns just run embedded
                logging.getLogger("clawharness.gateway").warning(
                    "cannot write the serve record: %s", exc)
            try:
                shown = f"[{settings.host}]" if ":" in settings.host else settings.host
                announce(f"listening ws://{shown}:{server.port}")
                for line in endpoint_lines(settings, server.port):
                    announce(line)
                await _until_closed_or_stopped(server, stop)
            finally:
                with contextlib.suppress(OSError):
                    remove_record(record.pid, environ)


async def _until_closed_or_stopped(server: GatewayServer, stop: asyncio.Event) -> None:
    waiter = asyncio.create_task(server.wait_closed())
    stopper = asyncio.create_task(stop.wait())
    try:
        await asyncio.wait({waiter, stopper}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        waiter.cancel()
        stopper.cancel()
