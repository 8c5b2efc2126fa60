"""`TurnResult`'s one JSON shape: what `agent --json` prints and the cluster relays."""

from __future__ import annotations

import json

import pytest

from clawharness.records.tool_calls import ToolCallMeta
from clawharness.records.turn_result import (
    ClusterPlacement,
    ModelFallback,
    TurnResult,
    TurnResultWireError,
    turn_result_from_wire,
    turn_result_to_wire,
)
from clawharness.records.usage import Usage

FULL = TurnResult(
    session_key="agent:main:k", session_id="s1", run_id="r1", runtime="openclaw",
    selected_reason="auto_openclaw", terminal="failed", text="partial", silent=False,
    tool_calls=(ToolCallMeta("write", "c1"), ToolCallMeta("exec", "c2", True, "denied")),
    usage=Usage(input=12, output=5, cache_read=0, total=17), error="provider down",
    duration_ms=12.5, warnings=("the native session was gone",),
    error_details={"type": "provider_unreachable", "url": "http://127.0.0.1:9/v1"},
    pinned_harness_id="openclaw", model="second/m",
    fallbacks=(ModelFallback("first/m", error="boom"),
               ModelFallback("third/m", skipped="harness-scoped preflight")),
    incomplete_turn_warning=None, resumed_run=True,
    cluster=ClusterPlacement(worker="w1", attempt=2, local=True),
)


def test_every_field_survives_the_wire() -> None:
    wire = json.loads(json.dumps(turn_result_to_wire(FULL)))
    assert turn_result_from_wire(wire) == FULL


def test_the_documented_keys_keep_their_shape() -> None:
    wire = turn_result_to_wire(FULL)
    assert wire["toolCalls"] == [{"name": "write", "id": "c1", "ok": True},
                                 {"name": "exec", "id": "c2", "ok": False, "error": "denied"}]
    assert wire["usage"] == {"input": 12, "output": 5, "cacheRead": 0, "totalTokens": 17}
    assert wire["error"] == {"type": "provider_unreachable", "message": "provider down",
                             "url": "http://127.0.0.1:9/v1"}
    assert wire["cluster"] == {"worker": "w1", "attempt": 2, "local": True}
    assert wire["fallbacks"] == [{"model": "first/m", "error": "boom"},
                                 {"model": "third/m", "skipped": "harness-scoped preflight"}]
    assert FULL.to_json() == wire


def test_a_plain_ok_turn_leaves_the_optional_keys_out() -> None:
    ok = TurnResult(session_key="k", session_id="s", run_id="r", runtime="openclaw",
                    selected_reason="auto_openclaw", terminal="ok", text="hi")
    wire = turn_result_to_wire(ok)
    assert set(wire) == {"sessionKey", "sessionId", "runId", "runtime", "selectedReason",
                         "pinnedHarnessId", "terminal", "text", "toolCalls", "usage",
                         "durationMs"}
    assert turn_result_from_wire(wire) == ok
    assert ok.payloads[0].text == "hi" and ok.error_type is None


def test_a_withdrawn_turn_says_so_and_nothing_else_about_placement() -> None:
    withdrawn = TurnResult(session_key="k", session_id="", run_id="r", runtime="",
                           selected_reason="", terminal="aborted", text="",
                           cluster=ClusterPlacement(withdrawn=True))
    wire = turn_result_to_wire(withdrawn)
    assert wire["cluster"] == {"withdrawn": True}
    assert turn_result_from_wire(wire).cluster == ClusterPlacement(withdrawn=True)


@pytest.mark.parametrize(("change", "named"), [
    ({"terminal": "exploded"}, "terminal"),
    ({"sessionKey": 3}, "sessionKey"),
    ({"toolCalls": [{"ok": True}]}, "name"),
    ({"error": "text"}, "error"),
    ({"durationMs": "fast"}, "durationMs"),
])
def test_a_row_of_another_shape_is_refused_naming_the_field(change: dict[str, object],
                                                           named: str) -> None:
    wire = {**turn_result_to_wire(FULL), **change}
    with pytest.raises(TurnResultWireError, match=named):
        turn_result_from_wire(wire)  # type: ignore[arg-type]


def test_a_missing_field_is_named() -> None:
    wire = turn_result_to_wire(FULL)
    del wire["runId"]
    with pytest.raises(TurnResultWireError, match="runId"):
        turn_result_from_wire(wire)
