"""`clawharness model-server`: serve a scripted model on loopback until SIGINT/SIGTERM."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from clawharness.testing.model_server import ScriptedModelServer

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    """Add the `model-server` command to `app`."""

    @app.command("model-server")
    def model_server(
        script: Path = typer.Option(..., "--script", help="JSON or YAML script file."),
        host: str = typer.Option("127.0.0.1", "--host", help="A loopback address."),
        port: int = typer.Option(0, "--port", help="0 picks a free port."),
        log: Path | None = typer.Option(None, "--log", help="Append each request as JSON."),
    ) -> None:
        """Serve scripted OpenAI (Responses, Chat) and Anthropic Messages answers offline."""
        # imported here so other commands do not pay for starlette/uvicorn at startup
        from clawharness.errors import ConfigError
        from clawharness.testing.model_server import ScriptedModelServer

        try:
            server = ScriptedModelServer(script, host=host, port=port, log_path=log)
        except ConfigError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
        try:
            asyncio.run(_serve(server))
        except OSError as exc:
            typer.echo(f"error: cannot listen on {host}:{port}: {exc.strerror or exc}", err=True)
            raise typer.Exit(1) from exc


async def _serve(server: ScriptedModelServer) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await server.start()
    try:
        typer.echo(f"listening {server.url}")
        await stop.wait()
    finally:
        await server.stop()
