"""`clawharness conformance run [FILE]`: run the original's recorded vectors.

Reads JSON lines in the vectors' input format (`id`, `fn`, `args`, optional `new`,
`then`, `entry`; an `expect` is ignored unless `--check`), calls the Python
implementation and prints one `{"id", "ok", "result" | "error"}` line per case in the
vectors' marker format. With `--check`, compares against each line's `expect`: each
mismatch and the closing `N passed, N failed` line go to stderr, so stdout stays pure
JSON lines (exit 1 on any mismatch).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated, TextIO

import typer

from clawharness.cli.common import err_console
from clawharness.cli.progress import Advance, progress_bar
from clawharness.conformance.runner import compare, run_case

__all__ = ["register"]


def register(app: typer.Typer) -> None:
    group = typer.Typer(help="Run recorded conformance vectors.", no_args_is_help=True)

    @group.command("run")
    def run(
        file: Annotated[Path | None, typer.Argument(help="JSON lines; stdin when omitted.")] = None,
        check: Annotated[bool, typer.Option(
            "--check", help="Compare with each line's expect; the summary goes to stderr.")] = False,
    ) -> None:
        """Run every case and print its outcome as a JSON line."""
        stream = file.open(encoding="utf-8") if file is not None else sys.stdin
        passed = failed = 0
        total = _count_cases(file) if file is not None else None
        try:
            with progress_bar("conformance cases", total) as advance:
                passed, failed = _run_cases(stream, check, advance)
        finally:
            if file is not None:
                stream.close()
        if check:
            sys.stdout.flush()
            colour = "red" if failed else "green"
            err_console.print(f"[{colour}]{passed} passed, {failed} failed[/]", highlight=False)
            if failed:
                raise typer.Exit(1)

    app.add_typer(group, name="conformance")


def _count_cases(file: Path) -> int | None:
    """The non-blank lines of `file` (the bar's total); None when it cannot be read."""
    try:
        with file.open(encoding="utf-8") as fh:
            return sum(1 for line in fh if line.strip())
    except OSError:
        return None


def _run_cases(stream: TextIO, check: bool, advance: Advance) -> tuple[int, int]:
    """Run each line's case, print its outcome; (passed, failed) under `check`."""
    passed = failed = 0
    for number, line in enumerate(stream, 1):
        if not line.strip():
            continue
        try:
            case = json.loads(line)
        except json.JSONDecodeError as exc:
            err_console.print(f"[red]line {number}[/]: not JSON ({exc})", highlight=False)
            raise typer.Exit(2) from None
        if not isinstance(case, dict) or "fn" not in case:
            err_console.print(f"[red]line {number}[/]: expected an object with `fn`",
                              highlight=False)
            raise typer.Exit(2)
        got = run_case(case)
        sys.stdout.write(json.dumps(got, ensure_ascii=False) + "\n")
        if check and "expect" in case:
            if compare(case, got):
                passed += 1
            else:
                failed += 1
                err_console.print(f"[red]mismatch[/] {case.get('id')}", highlight=False)
        advance()
    return passed, failed
