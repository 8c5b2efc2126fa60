"""Shared CLI plumbing: option types, consoles and tables, the one error envelope.

Every command reports an error through `fail()`: red text on stderr for people, and with
`--json` one object on stdout for scripts, the same shape for every command:

    {"error": {"type": "config_invalid", "message": "...", "file": "...", "keyPath": "..."}}

`type` and `message` are always there; the other keys only when known (see
`DETAIL_KEYS` and docs/cli.md).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer
from rich.console import Console, ConsoleDimensions
from rich.markup import escape

from clawharness.cli.help_labels import flags_take_no_type_label
from clawharness.errors import ClawHarnessError, ExtraMissingError
from clawharness.extras import extra_missing_error

if TYPE_CHECKING:
    from rich.table import Table

__all__ = [
    "DETAIL_KEYS",
    "EXIT_EXTRA_MISSING",
    "PIPE_WIDTH",
    "CliConsole",
    "ConfigOption",
    "ErrorReport",
    "JsonOption",
    "console",
    "err_console",
    "fail",
    "new_table",
    "print_json",
    "run_async",
]

T = TypeVar("T")

#: the exit code of a command that needs an extra that is not installed (docs/cli.md)
EXIT_EXTRA_MISSING = 3

#: the width a console assumes when its output goes to a pipe or a file
PIPE_WIDTH = 10_000


class CliConsole(Console):
    """A console that never cuts what a program reads.

    On a terminal, output fits the window (table cells fold). Piped or redirected, rich
    would assume 80 columns and cut table cells with an ellipsis; a reader there wants
    whole values, so the width is unbounded instead.
    """

    @property
    def size(self) -> ConsoleDimensions:
        size = super().size
        if self._width is None and not self.is_terminal:
            return ConsoleDimensions(PIPE_WIDTH, size.height)
        return size

    @size.setter
    def size(self, new_size: tuple[int, int]) -> None:
        self._width, self._height = new_size


console: Console = CliConsole()
err_console: Console = CliConsole(stderr=True)

ConfigOption = Annotated[
    str | None, typer.Option("--config", "-c", metavar="FILE",
                             help="Config file (else CLAWHARNESS_CONFIG, else the state dir).")
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]
ClusterOption = Annotated[
    str | None, typer.Option("--cluster", metavar="URL",
                             help="The Temporal cluster, temporal://HOST:PORT "
                                  "(else cluster.url in config).")
]


def new_table(*headers: str, title: str | None = None) -> Table:
    """A table whose long cells fold onto more lines instead of being cut."""
    # imported by the first table: a command that prints none (`config validate`) skips it
    from rich.table import Table

    table = Table(title=title)
    for header in headers:
        table.add_column(header, overflow="fold")
    return table


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


#: error attributes the envelope carries, and their JSON keys (in this order)
DETAIL_KEYS: tuple[tuple[str, str], ...] = (
    ("path", "file"),
    ("key_path", "keyPath"),
    ("provider", "provider"),
    ("model", "model"),
    ("url", "url"),
    ("status", "status"),
    ("rule", "rule"),
    ("hint", "hint"),
)


@dataclass(frozen=True, slots=True)
class ErrorReport:
    """One error as the CLI reports it: a stable `type`, a message, optional details."""

    type: str
    message: str
    #: JSON-keyed details: file, keyPath, provider, model, url, status, rule, hint, ...
    details: Mapping[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, exc: BaseException) -> ErrorReport:
        """The report for an exception; a clawharness error's `code` is its type."""
        if isinstance(exc, ClawHarnessError):
            kind = exc.code
            message = str(exc)
        elif isinstance(exc, OSError):
            kind = "os_error"
            message = str(exc)
        else:
            kind = "internal_error"
            message = f"{type(exc).__name__}: {exc}"
        details = {}
        for attribute, key in DETAIL_KEYS:
            value = getattr(exc, attribute, None)
            if value is not None and value != "":
                details[key] = value
        return cls(kind, message or kind, details)

    def to_json(self) -> dict[str, Any]:
        return {"type": self.type, "message": self.message, **self.details}


def fail(error: BaseException | ErrorReport, *, as_json: bool, code: int = 1,
         extra: Mapping[str, Any] | None = None) -> typer.Exit:
    """Report an error (the JSON envelope, or red text) and return the Exit to raise.

    `extra`: more top-level fields for the JSON object (e.g. a failed turn's result).
    A missing extra (`ExtraMissingError`) exits with `EXIT_EXTRA_MISSING`.
    """
    if isinstance(error, ExtraMissingError):
        code = EXIT_EXTRA_MISSING
    report = error if isinstance(error, ErrorReport) else ErrorReport.of(error)
    if as_json:
        rest = {k: v for k, v in (extra or {}).items() if k != "error"}
        print_json({"error": report.to_json(), **rest})
    else:
        err_console.print(f"[bold red]error[/] [dim]({report.type})[/]: "
                          f"{escape(report.message)}", highlight=False, soft_wrap=True)
        hint = report.details.get("hint")
        if hint:
            err_console.print(f"  [yellow]hint[/]: {escape(str(hint))}", highlight=False,
                              soft_wrap=True)
    return typer.Exit(code)


def run_async(factory: Callable[[], Coroutine[Any, Any, T] | Awaitable[T]], *, as_json: bool) -> T:
    """Run a coroutine; turn clawharness (and OS) errors into a clean non-zero exit."""
    import asyncio  # here: a command that runs nothing asynchronous does without it

    try:
        return asyncio.run(factory())  # type: ignore[arg-type]
    except (ClawHarnessError, OSError) as exc:
        raise fail(exc, as_json=as_json) from None
    except ModuleNotFoundError as exc:
        error = extra_missing_error(exc)
        if error is None:
            raise
        raise fail(error, as_json=as_json) from None
    except KeyboardInterrupt:
        raise typer.Exit(130) from None


flags_take_no_type_label()
