"""Shared bench helpers: timing, percentiles, a rich table, the closing JSON line."""

from __future__ import annotations

import json
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

console = Console(stderr=True)


def pct(values: Sequence[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[index]


def median(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


class Stopwatch:
    def __enter__(self) -> Stopwatch:
        self.start = time.perf_counter()
        return self

    def __exit__(self, *exc: object) -> None:
        self.elapsed = time.perf_counter() - self.start


def show(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    table = Table(*columns, title=title)
    for row in rows:
        table.add_row(*[f"{v:,.3f}" if isinstance(v, float) else str(v) for v in row])
    console.print(table)


def emit(figures: dict[str, Any]) -> None:
    """The closing line: one JSON object on stdout."""
    sys.stdout.write(json.dumps(figures, sort_keys=True) + "\n")
    sys.stdout.flush()
