"""`caller_trace_context`: a caller's W3C trace context is taken only when well formed
(W3C Trace Context, level 1: a malformed one starts a new trace, it is no error)."""

from __future__ import annotations

import pytest

from clawharness.observability.trace_context import caller_trace_context

TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736"
PARENT_ID = "00f067aa0ba902b7"
TRACEPARENT = f"00-{TRACE_ID}-{PARENT_ID}-01"


@pytest.mark.parametrize(("headers", "expected"), [
    ({}, None),
    ({"traceparent": TRACEPARENT}, {"traceparent": TRACEPARENT}),
    ({"traceparent": f" {TRACEPARENT} ", "tracestate": "a=1,b=2"},
     {"traceparent": TRACEPARENT, "tracestate": "a=1,b=2"}),
    ({"traceparent": TRACEPARENT, "tracestate": "a=" + "x" * 600}, {"traceparent": TRACEPARENT}),
    # a later version may append fields; version 00 may not
    ({"traceparent": f"01-{TRACE_ID}-{PARENT_ID}-01-extra"},
     {"traceparent": f"01-{TRACE_ID}-{PARENT_ID}-01-extra"}),
    ({"traceparent": f"{TRACEPARENT}-extra"}, None),
    ({"traceparent": f"ff-{TRACE_ID}-{PARENT_ID}-01"}, None),
    ({"traceparent": f"00-{'0' * 32}-{PARENT_ID}-01"}, None),
    ({"traceparent": f"00-{TRACE_ID}-{'0' * 16}-01"}, None),
    ({"traceparent": f"00-{TRACE_ID[:-1]}-{PARENT_ID}-01"}, None),
    ({"traceparent": "not a trace", "tracestate": "a=1"}, None),
    # ACP `_meta` values are any JSON
    ({"traceparent": 7, "tracestate": "a=1"}, None),
    ({"traceparent": TRACEPARENT, "tracestate": ["a=1"]}, {"traceparent": TRACEPARENT}),
])
def test_only_a_well_formed_traceparent_is_taken(
        headers: dict[str, str], expected: dict[str, str] | None) -> None:
    assert caller_trace_context(headers) == expected
