"""The `clawharness` command line.

Each command group lives in its own module exposing `register(app)`; this module only
assembles them. Every command reaches the core through `clawharness.host.Host`.
"""

from __future__ import annotations

import importlib
import os
from enum import StrEnum
from importlib import metadata
from typing import Annotated

import typer

__all__ = ["app", "version_text"]

app = typer.Typer(
    name="clawharness",
    help="An agent-harness host: sessions, transcripts, tool policy and native agent runtimes.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # every command and group inherits these from the root context
    context_settings={"help_option_names": ["-h", "--help"]},
)


def version_text() -> str:
    """`clawharness X.Y.Z`: the installed distribution's version."""
    try:
        version = metadata.version("clawharness")
    except metadata.PackageNotFoundError:  # running from a source tree, not installed
        from clawharness import __version__ as version
    return f"clawharness {version}"


def _print_version(value: bool) -> None:
    if value:
        typer.echo(version_text())
        raise typer.Exit()


class LogFormatChoice(StrEnum):
    text = "text"
    json = "json"


@app.callback()
def _root(
    version: Annotated[bool, typer.Option(
        "--version", "-V", is_eager=True, callback=_print_version,
        help="Print the version and exit.")] = False,
    log_format: Annotated[LogFormatChoice | None, typer.Option(
        "--log-format", envvar="CLAWHARNESS_LOG_FORMAT",
        help="Log lines on stderr: text, or json (one object per line, with trace and "
             "span ids); every line redacted. Level: CLAWHARNESS_LOG_LEVEL.")] = None,
) -> None:
    if log_format is not None:
        from clawharness.observability.logs import configure_logging

        configure_logging(log_format.value,
                          level=os.environ.get("CLAWHARNESS_LOG_LEVEL", "WARNING"))

#: command modules, each with `register(app: typer.Typer) -> None`
COMMAND_MODULES = (
    "clawharness.cli.config_cmd",
    "clawharness.cli.sessions_cmd",
    "clawharness.cli.agent_cmd",
    "clawharness.cli.status_cmd",
    "clawharness.cli.models_cmd",
    "clawharness.cli.doctor_cmd",
    "clawharness.cli.model_server_cmd",
    "clawharness.cli.conformance_cmd",
    "clawharness.cli.serve_cmd",
    "clawharness.cli.demo_cmd",
    "clawharness.cli.chat_cmd",
    "clawharness.cli.init_cmd",
    "clawharness.cli.mcp_cmd",
    "clawharness.cli.worker_cmd",
    "clawharness.cli.cluster_cmd",
)

for _name in COMMAND_MODULES:
    try:
        _module = importlib.import_module(_name)
    except ModuleNotFoundError as _exc:
        if _exc.name != _name:
            raise
        continue
    _module.register(app)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
