"""Starting a native process inside the host's trace (`native_process_start`)."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping

from clawharness.observability.spans import native_process_span, trace_env

__all__ = ["native_process_start"]


@contextlib.contextmanager
def native_process_start(label: str, argv0: str,
                         env: Mapping[str, str]) -> Iterator[dict[str, str]]:
    """A `native_process_start <label>` span around starting a process the harness
    spawns itself; yields `env` with the trace context (`TRACEPARENT`) added, so the
    process continues the trace. (`agent_harness_process.spawn` does this itself.)"""
    with native_process_span(label, argv0):
        yield trace_env(env)
