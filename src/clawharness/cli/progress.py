"""A progress bar on stderr for long work, shown only when stderr is a terminal.

    with progress_bar("conformance cases", total=len(lines)) as advance:
        for line in lines:
            ...
            advance()

On a pipe or a file nothing is drawn (scripts read the command's output unchanged).
When stdout is the same terminal, what the command prints appears above the bar.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)

from clawharness.cli.common import err_console

__all__ = ["Advance", "progress_bar"]

Advance = Callable[..., None]


def _nothing(amount: float = 1) -> None:
    pass


@contextmanager
def progress_bar(description: str, total: float | None,
                 console: Console | None = None) -> Iterator[Advance]:
    """`advance(amount=1)` moves the bar; `total` None: a count without an end."""
    out = console or err_console
    if not out.is_terminal:
        yield _nothing
        return
    columns = [SpinnerColumn(), TextColumn("{task.description}"), BarColumn(),
               MofNCompleteColumn(), TimeElapsedColumn()]
    with Progress(*columns, console=out, transient=False,
                  redirect_stdout=sys.stdout.isatty(), redirect_stderr=False) as bar:
        task = bar.add_task(description, total=total)

        def advance(amount: float = 1) -> None:
            bar.advance(task, amount)

        yield advance
