"""Shared CLI plumbing: option types, output helpers, error exits."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Awaitable, Callable, Coroutine
from typing import Annotated, Any, TypeVar

import typer
from rich.console import Console

from clawharness.errors import ClawHarnessError

__all__ = ["ConfigOption", "JsonOption", "console", "err_console", "fail", "print_json", "run_async"]

T = TypeVar("T")

console = Console()
err_console = Console(stderr=True)

ConfigOption = Annotated[
    str | None, typer.Option("--config", "-c", help="Config file (else CLAWHARNESS_CONFIG, else the state dir).")
]
JsonOption = Annotated[bool, typer.Option("--json", help="Print JSON for scripts.")]


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, default=str) + "\n")
    sys.stdout.flush()


def fail(exc: BaseException, *, as_json: bool, code: int = 1) -> typer.Exit:
    """Report an error (JSON or red text) and return the Exit to raise."""
    kind = getattr(exc, "code", None) if isinstance(exc, ClawHarnessError) else None
    kind = kind or type(exc).__name__
    if as_json:
        print_json({"error": {"type": kind, "message": str(exc)}})
    else:
        err_console.print(f"[bold red]error[/] [dim]({kind})[/]: {exc}", highlight=False)
    return typer.Exit(code)


def run_async(factory: Callable[[], Coroutine[Any, Any, T] | Awaitable[T]], *, as_json: bool) -> T:
    """Run a coroutine; turn clawharness errors into a clean non-zero exit."""
    try:
        return asyncio.run(factory())  # type: ignore[arg-type]
    except ClawHarnessError as exc:
        raise fail(exc, as_json=as_json) from None
    except KeyboardInterrupt:
        raise typer.Exit(130) from None
