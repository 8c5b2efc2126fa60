"""The `clawharness` command line.

Each command group lives in its own module exposing `register(app)`; this module only
names them (`COMMANDS`), and a command's module is imported when that command runs, so
one command does not pay for the others' imports (docs/cli.md, "Start-up"). Every command
reaches the core through `clawharness.host.Host`.
"""

from __future__ import annotations

import atexit
import gc
import os
import sys
from enum import StrEnum
from typing import Annotated, Any

import typer

from clawharness._gc import collect_from_here
from clawharness.cli.commands import COMMANDS, ROOT_HELP
from clawharness.cli.help_labels import flags_take_no_type_label
from clawharness.cli.lazy import LazyCommandGroup
from clawharness.cli.version import version_text

__all__ = ["COMMANDS", "app", "main", "version_text"]


class RootGroup(LazyCommandGroup):
    lazy_commands = COMMANDS

    def resolve_command(self, ctx: Any, args: list[str]) -> tuple[str | None, Any, list[str]]:
        found = super().resolve_command(ctx, args)
        # the command's module is imported: collection starts, without what is built so
        # far (`clawharness._gc.collect_from_here`; the executable turned it off)
        collect_from_here()
        return found


flags_take_no_type_label()

app = typer.Typer(
    name="clawharness",
    help=ROOT_HELP,
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # every command and group inherits these from the root context
    context_settings={"help_option_names": ["-h", "--help"]},
    cls=RootGroup,
)


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


#: the Temporal SDK's native module: once loaded, its Rust threads live to the end
_TEMPORAL_BRIDGE = "temporalio.bridge.temporal_sdk_bridge"


def _exit_code(exc: SystemExit) -> int:
    if exc.code is None:
        return 0
    if isinstance(exc.code, int):
        return exc.code
    print(exc.code, file=sys.stderr)
    return 1


def _report_missing_extra(exc: Exception) -> int:
    """A command that needs an extra that is not installed (one that does not run its
    work through `run_async`, like `serve` or `status`) ends with the one error report;
    any other exception goes on."""
    from clawharness.cli.common import fail
    from clawharness.errors import ExtraMissingError
    from clawharness.extras import extra_missing_error

    error = exc if isinstance(exc, ExtraMissingError) else (
        extra_missing_error(exc) if isinstance(exc, ModuleNotFoundError) else None)
    if error is None:
        raise exc
    return fail(error, as_json="--json" in sys.argv[1:]).exit_code


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
    except Exception as exc:
        code = _report_missing_extra(exc)
    # the command is done: what it built lives until the process ends, so the collections
    # the interpreter's teardown would run over all of it are left out (a sixth of a short
    # command's instructions); exit handlers, flushes and refcount finalizers still run
    gc.freeze()
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
