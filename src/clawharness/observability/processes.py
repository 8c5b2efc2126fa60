"""The native runtime processes alive in this process, for the `native.processes` gauge.

Whoever spawns a native runtime's process registers it (`track_native_process`); the
table holds it weakly and counts it while its return code is unset.
"""

from __future__ import annotations

import asyncio
import weakref
from collections import Counter
from collections.abc import Iterable, Mapping

__all__ = ["live_native_processes", "track_native_process"]

_live: weakref.WeakKeyDictionary[asyncio.subprocess.Process, str] = weakref.WeakKeyDictionary()


def track_native_process(process: asyncio.subprocess.Process, runtime: str) -> None:
    """Count `process` as a live native process of `runtime` until it exits."""
    _live[process] = runtime


def live_native_processes() -> Iterable[tuple[float, Mapping[str, str]]]:
    """(count, {"runtime": ...}) per runtime with a process alive."""
    counts = Counter(runtime for process, runtime in list(_live.items())
                     if process.returncode is None)
    return [(float(n), {"runtime": runtime}) for runtime, n in sorted(counts.items())]
