"""A turn record is stored redacted as if every part of it were walked each time: the
parts kept between turns (a kept decision's candidates, the turn's own session id) read
the same, a secret in them is still masked, and a value made known since is masked too."""

from __future__ import annotations

import json
from typing import Any

from clawharness.attempt._turn_record import IDENTITY, redacted_record
from clawharness.redaction.known import register_known_secrets, unregister_known_secrets
from clawharness.redaction.outbound import redact_secrets_in

SECRET = "ghp_abcdefghijklmnopqrstuvwxyz0123456789"


def walked(record: dict[str, Any]) -> dict[str, Any]:
    """The record redacted the plain way: every non-identity part walked."""
    rest = redact_secrets_in({k: v for k, v in record.items() if k not in IDENTITY})
    return {**{k: v for k, v in record.items() if k in IDENTITY}, **rest}


def record(candidates: list[dict[str, Any]], *, session_id: str,
           used: str) -> dict[str, Any]:
    return {
        "run_id": "r1", "session_key": "agent:main:a", "session_id": session_id,
        "agent_id": "main", "terminal": "ok", "error": f"failed with {SECRET}",
        "selections": [{"attempt": 0, "model": "bench/m", "selected_harness_id": "openclaw",
                        "candidates": candidates}],
        "native": {"harness_id": "openclaw", "attempt": 0, "session_id_used": used},
        "timeline": [{"at_ms": 1.0, "kind": "tool.start", "data": {"tool": "read"}}],
    }


def same(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return json.dumps(a) == json.dumps(b)  # equal, and in the same order of keys


def test_kept_parts_are_stored_as_a_full_walk_stores_them() -> None:
    candidates = [{"id": "codex", "label": "Codex", "supported": False,
                   "reason": f"token {SECRET} refused"},
                  {"id": "acp", "label": "ACP", "supported": None, "reason": None}]
    own = record(candidates, session_id="s-1", used="s-1")
    first = redacted_record(own)
    assert same(first, walked(own))
    assert SECRET not in json.dumps(first)
    assert first["native"]["session_id_used"] == "s-1"
    # the next turn of the same decision: the same list, the same answer
    again = record(candidates, session_id="s-2", used="s-2")
    assert same(redacted_record(again), walked(again))
    # a native session id that is not the turn's own is redacted like any string
    foreign = record(candidates, session_id="s-3", used=f"native {SECRET}")
    stored = redacted_record(foreign)
    assert same(stored, walked(foreign)) and SECRET not in json.dumps(stored)


def test_a_value_made_known_since_is_masked_in_the_kept_candidates() -> None:
    private = "hunter2-private-value-0042"
    candidates = [{"id": "codex", "label": "Codex", "reason": f"saw {private}"}]
    before = redacted_record(record(candidates, session_id="s-1", used="s-1"))
    assert private in json.dumps(before)  # not a secret shape, and not known yet
    token = register_known_secrets([private])
    try:
        after = redacted_record(record(candidates, session_id="s-1", used="s-1"))
        assert private not in json.dumps(after)
        assert same(after, walked(record(candidates, session_id="s-1", used="s-1")))
    finally:
        unregister_known_secrets(token)


def test_a_turn_record_is_stored_as_a_walk_of_its_json_stores_it() -> None:
    """The record's stored form is built in one pass (`stored_json`), the same as its
    JSON walked: a secret in any part of it is masked, in the same order of keys."""
    from clawharness.attempt._turn_record import (
        OWN_KEYS,
        TimelineEvent,
        ToolCallRecord,
        TurnRecord,
        stored_json,
    )
    from clawharness.records.turn_result import ModelFallback
    from clawharness.records.usage import Usage
    from clawharness.redaction.fields import is_sensitive_field_key

    assert not any(is_sensitive_field_key(k) for k in OWN_KEYS)
    private = "hunter2-private-value-0077"
    token = register_known_secrets([private])
    try:
        candidates = [{"id": "codex", "reason": f"saw {SECRET}"}]
        deep: Any = {"leaf": SECRET}
        for _ in range(70):
            deep = {"next": deep, "n": 1}
        for used in ("s-1", f"native {SECRET}", None):
            native: dict[str, Any] = {"harness_id": "openclaw", "attempt": 0,
                                      "session_id_used": used,
                                      "native": {"apiKey": "short", "pid": 7}}
            record = TurnRecord(
                run_id="r1", session_key="agent:main:a", session_id="s-1", agent_id="main",
                started_at=1.5, duration_ms=12.3456, terminal="failed",
                error=f"failed with {SECRET} and {private}", runtime="openclaw",
                selected_reason=f"reason {SECRET}",
                selections=({"attempt": 0, "model": "m", "candidates": candidates},
                            {"attempt": 1, "password": "pw-plain"}),
                timeline=(TimelineEvent(0.123, "attempt.start", None, {"model": private}),
                          TimelineEvent(1.0, f"lifecycle.{SECRET}", 2.345, {}),
                          TimelineEvent(2.0, "tool.start", None,
                                        {"tool": "x", "args": ["a", SECRET, 1, None]})),
                tool_calls=(ToolCallRecord("c1", "bash", {"cmd": f"echo {SECRET}",
                                                          "token": "tok", "deep": deep},
                                           "ok", 1.234, None, 0),
                            ToolCallRecord(f"c-{SECRET}", "read", f"raw {SECRET}", "error",
                                           2.0, 3.456, 1)),
                approvals=({"tool": "bash", "reason": f"needs {SECRET}"},),
                lease={"holder": "pid 1", "fence": 3}, native=native,
                delivery={"silent": False, "warnings": [f"w {SECRET}"], "x" * 300: "y" * 300},
                finalization="not-needed",
                fallbacks=(ModelFallback("a/b", error=f"key {SECRET}"),),
                usage=Usage(input=3, output=4),
            )
            stored = stored_json(record)
            assert same(stored, redacted_record(record.to_json()))
            assert same(stored, walked(record.to_json()))
            assert SECRET not in json.dumps(stored) and private not in json.dumps(stored)
    finally:
        unregister_known_secrets(token)


def test_kept_mappings_are_stored_as_a_walk_stores_them_whatever_became_known() -> None:
    """A selection entry and an attempt's start data the recorder shares between turns
    (read-only mappings, redacted once per set of known values) read as a walk of the
    record's JSON reads them, on the first turn and on the next, and a value made known
    between the two is masked in them."""
    from types import MappingProxyType

    from clawharness.attempt._turn_record import TimelineEvent, TurnRecord, stored_json

    private = "hunter2-private-value-0099"
    selection = MappingProxyType({
        "attempt": 0, "model": "m", "selected_reason": f"saw {private} and {SECRET}",
        "password": "pw-plain", "candidates": [{"id": "codex", "reason": f"r {private}"}]})
    start = MappingProxyType({"attempt": 0, "model": private, "harness": "openclaw"})

    def record() -> TurnRecord:
        return TurnRecord(
            run_id="r1", session_key="agent:main:a", session_id="s-1", agent_id="main",
            started_at=1.5, duration_ms=2.0, terminal="ok", error=None, runtime="openclaw",
            selected_reason="auto", selections=(selection,),
            timeline=(TimelineEvent(0.1, "attempt.start", None, start),), tool_calls=(),
            approvals=(), lease=None, native={"harness_id": "openclaw"}, delivery={},
            finalization="not-needed")

    for _ in range(2):
        stored = stored_json(record())
        assert same(stored, walked(record().to_json()))
        assert private in json.dumps(stored) and SECRET not in json.dumps(stored)
    token = register_known_secrets([private])
    try:
        stored = stored_json(record())
        assert same(stored, walked(record().to_json()))
        assert private not in json.dumps(stored) and SECRET not in json.dumps(stored)
    finally:
        unregister_known_secrets(token)
