"""A W3C trace context a caller sent (an HTTP request's `traceparent` / `tracestate`
headers, the `_meta` of an ACP request), checked before a turn continues it.

Pure and light (no OpenTelemetry import): the fronts call it on every request.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

__all__ = ["TRACESTATE_MAX", "caller_trace_context"]

#: `traceparent` is "version-traceid-parentid-flags" in lower-case hex (a version after
#: 00 may append fields)
_TRACEPARENT = re.compile(r"([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-.*)?")
#: W3C lets a receiver drop a `tracestate` longer than this
TRACESTATE_MAX: Final = 512
_TRACEPARENT_MAX: Final = 256


def caller_trace_context(carrier: Mapping[str, object]) -> dict[str, str] | None:
    """The caller's trace context in `carrier` (`traceparent`, and `tracestate` when it
    has one), for a turn's spans to continue the caller's trace; None when it sent none
    or one that is not well formed. A malformed one is no error of the request: as W3C
    Trace Context asks, the turn then starts a trace of its own."""
    parent = carrier.get("traceparent")
    if not isinstance(parent, str):
        return None
    parent = parent.strip()
    parts = (_TRACEPARENT.fullmatch(parent) if 0 < len(parent) <= _TRACEPARENT_MAX
             else None)
    if parts is None:
        return None
    version, trace_id, parent_id, more = parts.groups()
    if (version == "ff" or (version == "00" and more is not None)
            or trace_id == "0" * 32 or parent_id == "0" * 16):
        return None
    context = {"traceparent": parent}
    state = carrier.get("tracestate")
    if isinstance(state, str) and state.strip() and len(state.strip()) <= TRACESTATE_MAX:
        context["tracestate"] = state.strip()
    return context
