"""The `clawharness` command line.

Each command group lives in its own module exposing `register(app)`; this module only
assembles them. Every command reaches the core through `clawharness.host.Host`.
"""

from __future__ import annotations

import atexit
import importlib
import os
import sys
from enum import StrEnum
from importlib import metadata
from typing import Annotated

import typer

__all__ = ["app", "main", "version_text"]

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


#: the Temporal SDK's native module: once loaded, its Rust threads live to the end
_TEMPORAL_BRIDGE = "temporalio.bridge.temporal_sdk_bridge"


def _exit_code(exc: SystemExit) -> int:
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=sys.stderr)
    return 1


def main() -> None:
    """Run the command line. A process that talked to a Temporal cluster leaves without
    the interpreter's teardown, which the SDK's native threads can abort
    ("PyGILState_Release ... finalizing", temporalio/sdk-python#300), turning a finished
    command into exit code -6; exit handlers and output are flushed first."""
    try:
        app()
        code = 0
    except SystemExit as exc:
        code = _exit_code(exc)
    if _TEMPORAL_BRIDGE not in sys.modules:
        raise SystemExit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe: nothing more can be said on it
            pass
    os._exit(code)


if __name__ == "__main__":
    main()
