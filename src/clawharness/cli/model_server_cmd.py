"""`clawharness model-server`: serve a scripted model (or, with `--real`, the real model of
docs/real-model.md) on loopback until SIGINT/SIGTERM."""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from clawharness.testing.model_server import ScriptedModelServer
    from clawharness.testing.real_model import RealModelServer

__all__ = ["register", "startup_lines"]

# No square brackets before a letter here: rich would read them as markup.
_HELP = """Serve scripted OpenAI (Responses, Chat Completions) and Anthropic Messages answers
on loopback, offline, until Ctrl-C or SIGTERM.

A script is {"responses": (items)}; each item answers one model request, in order:
{"text": "hi"} | {"tool_calls": [{"name": "read", "arguments": {"path": "a.txt"}}]} |
{"error": {"status": 429, "message": "slow down"}} | {"cut": true}. An item with
"match": "regex" answers the request whose latest user or tool-result text matches
(once; always with "repeat": true). "delay_ms" and "usage" shape an answer; a top-level
"exhausted": "text" (default) or "error" says what comes when the items run out.

Point a provider at the baseUrl printed at start-up: the server URL plus /v1 (an
"anthropic-messages" provider uses the URL without /v1). The whole format, with
examples: docs/scripted-model.md.

With --real instead of --script it serves a real model, offline: SmolLM2-135M-Instruct on
llama.cpp (installed by scripts/real-model.sh; docs/real-model.md), and prints the
provider config that points at it.
"""


def startup_lines(url: str) -> list[str]:
    """What the server prints once it listens: where, and the `baseUrl` providers need."""
    return [f"listening on {url} (provider baseUrl: {url}/v1)",
            f"an anthropic-messages provider uses baseUrl {url} (its SDK adds /v1 itself)"]


def register(app: typer.Typer) -> None:
    """Add the `model-server` command to `app`."""

    @app.command("model-server", help=_HELP)
    def model_server(
        script: Path | None = typer.Option(None, "--script", help="The script: a JSON or YAML "
                                           "file (format above, in full in "
                                           "docs/scripted-model.md)."),
        real: bool = typer.Option(False, "--real", help="Serve the real model (SmolLM2-135M "
                                  "on llama.cpp) instead of a script."),
        host: str = typer.Option("127.0.0.1", "--host", help="A loopback address."),
        port: int = typer.Option(0, "--port", help="0 picks a free port."),
        log: Path | None = typer.Option(None, "--log", help="Append each request as JSON."),
    ) -> None:
        # imported here so other commands do not pay for starlette/uvicorn at startup
        from clawharness.errors import ConfigError
        from clawharness.testing.model_server import ScriptedModelServer

        if (script is None) == (not real):
            typer.echo("error: give exactly one of --script FILE and --real", err=True)
            raise typer.Exit(2)
        if script is None:
            _serve_real(host, port, log)
            return
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
        for line in startup_lines(server.url):
            typer.echo(line)
        await stop.wait()
    finally:
        await server.stop()


def _serve_real(host: str, port: int, log: Path | None) -> None:
    from clawharness.errors import ConfigError, RealModelError
    from clawharness.testing.real_model import RealModelServer

    try:
        server = RealModelServer(host=host, port=port, log_path=log)
    except (ConfigError, RealModelError) as exc:
        typer.echo(f"error: {exc}", err=True)
        if exc.hint:
            typer.echo(f"hint: {exc.hint}", err=True)
        raise typer.Exit(2) from exc
    typer.echo(f"loading {server.model_id} into llama.cpp ...")
    try:
        asyncio.run(_serve_real_model(server))
    except RealModelError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from exc
    except OSError as exc:
        typer.echo(f"error: cannot listen on {host}:{port}: {exc.strerror or exc}", err=True)
        raise typer.Exit(1) from exc


async def _serve_real_model(server: RealModelServer) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    await server.start()
    try:
        typer.echo(f"listening on {server.url} (provider baseUrl: {server.base_url_openai}); "
                   f"llama.cpp loaded the model in {server.llama.startup_seconds or 0:.1f} s")
        typer.echo("a provider for it (models.providers.local):")
        typer.echo(json.dumps(server.provider_config(), indent=2))
        typer.echo(f'and the agents\' model: "local/{server.model_id}"')
        await stop.wait()
    finally:
        await server.stop()
