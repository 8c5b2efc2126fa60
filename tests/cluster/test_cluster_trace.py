"""One trace per cluster turn: the front's `cluster_turn` span and the worker's
`invoke_agent` tree of the same turn, exported by two processes, join in one trace."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from cluster_rig import ClusterRig

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "observability"))
from otlp_receiver import attributes, otlp_receiver

from clawharness.host import Host

pytestmark = pytest.mark.integration

CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CALLER_SPAN = "00f067aa0ba902b7"


def _named(spans: list[Any], name: str) -> list[Any]:
    return [span for span in spans if span.name == name]


async def test_the_workers_spans_of_a_turn_join_the_fronts_trace(make_rig) -> None:
    rig: ClusterRig = make_rig({"responses": [{"text": "one"}, {"text": "two"},
                                              {"text": "three"}]})
    with otlp_receiver() as (endpoint, received):
        rig.write_config(diagnostics={"otel": {"enabled": True, "endpoint": endpoint,
                                               "serviceName": "cluster-trace-test"}})
        # the worker's batch exporter sends within 100 ms, not at its exit
        rig.start_worker("w1", env={"OTEL_BSP_SCHEDULE_DELAY": "100"})
        async with Host.from_config(rig.config_path, env=rig.env()) as front:
            first = await front.run_turn("s", "hello")
            second = await front.run_turn("s", "again")
            # a caller's own trace (an HTTP request's traceparent) goes on through both
            third = await front.run_turn("s", "traced", trace_context={
                "traceparent": f"00-{CALLER_TRACE}-{CALLER_SPAN}-01"})
        assert first.terminal == second.terminal == third.terminal == "ok"
        received.wait_for(lambda r: len(_named(r.spans(), "cluster_turn")) == 3
                          and len(_named(r.spans(), "invoke_agent main")) == 3)

    spans = received.spans()
    for result in (first, second, third):
        front_span, = (span for span in _named(spans, "cluster_turn")
                       if attributes(span)["clawharness.run.id"] == result.run_id)
        worker_span, = (span for span in _named(spans, "invoke_agent main")
                        if attributes(span)["clawharness.run.id"] == result.run_id)
        assert (front_span.parent_span_id == b"") == (result is not third)
        assert attributes(front_span)["clawharness.terminal"] == "ok"
        # the worker's turn is the front span's child, in the front's trace
        assert worker_span.trace_id == front_span.trace_id
        assert worker_span.parent_span_id == front_span.span_id
        # and the worker's own tree hangs below it
        attempts = [span for span in _named(spans, "harness_attempt openclaw")
                    if span.parent_span_id == worker_span.span_id]
        assert len(attempts) == 1 and attempts[0].trace_id == front_span.trace_id
    # two turns, two traces
    fronts = {attributes(span)["clawharness.run.id"]: span
              for span in _named(spans, "cluster_turn")}
    assert fronts[first.run_id].trace_id != fronts[second.run_id].trace_id
    # the third turn's front span is the caller's child, in the caller's trace, and the
    # worker's turn is in that trace too
    traced = fronts[third.run_id]
    assert traced.trace_id.hex() == CALLER_TRACE
    assert traced.parent_span_id.hex() == CALLER_SPAN
    worker, = (span for span in _named(spans, "invoke_agent main")
               if attributes(span)["clawharness.run.id"] == third.run_id)
    assert worker.trace_id.hex() == CALLER_TRACE and worker.parent_span_id == traced.span_id
