"""A turn record's stored form is vouched plain JSON (`PlainJson`: the store writes it
without reading its JSON back) only when it is: a NaN, an infinity or an object of
another type anywhere in it leaves it a plain dict, which the store checks as any value
(and refuses, as before, when it holds what JSON cannot)."""

from __future__ import annotations

import enum
import json
import math
import uuid
from typing import Any

import pytest

from clawharness._json_text import PlainJson, dumps_strict
from clawharness.attempt._turn_record import (
    TimelineEvent,
    ToolCallRecord,
    TurnRecord,
    redacted_record,
    stored_json,
)
from clawharness.errors import StoreError
from clawharness.records.usage import Usage
from clawharness.redaction import odd_values_seen
from clawharness.store.records import dump_json


class _Color(enum.Enum):
    RED = 1


def _record(*, arguments: Any = None, data: Any = None, duration: float = 1.5,
            started_at: Any = 1.0, native: Any = None, lease: Any = None,
            candidates: Any = None) -> TurnRecord:
    return TurnRecord(
        run_id="r1", session_key="agent:main:a", session_id="s-1", agent_id="main",
        started_at=started_at, duration_ms=12.3456, terminal="ok", error=None,
        runtime="openclaw", selected_reason="auto",
        selections=({"attempt": 0, "model": "m",
                     "candidates": candidates if candidates is not None else [
                         {"id": "acp", "supported": False, "priority": None}]},),
        timeline=(TimelineEvent(0.1, "attempt.start", None, {"model": "m"}),
                  TimelineEvent(1.0, "tool.end", duration, data or {"tool": "read"})),
        tool_calls=(ToolCallRecord("c1", "read", arguments if arguments is not None
                                   else {"path": "a.txt", "n": 2.5}, "ok", 0.5, 0.25, 0),),
        approvals=(), lease=lease if lease is not None else {"holder": "pid 1", "fence": 3},
        native=native if native is not None else {"harness_id": "openclaw",
                                                  "session_id_used": "s-1"},
        delivery={"silent": False, "warnings": []}, finalization="not-needed",
        usage=Usage(input=3, output=4))


def test_an_ordinary_record_is_vouched_plain_and_stored_as_before() -> None:
    stored = stored_json(_record())
    assert type(stored) is PlainJson
    assert json.loads(dumps_strict(stored)) == redacted_record(_record().to_json())
    assert dumps_strict(stored) == dumps_strict(dict(stored))


@pytest.mark.parametrize("record", [
    _record(arguments={"x": math.nan}),
    _record(arguments=[1, -math.inf]),
    _record(data={"tool": "read", "id": uuid.UUID(int=1)}),
    _record(data={"color": _Color.RED}),
    _record(duration=math.inf),
    _record(started_at=math.nan),
    _record(native={"harness_id": "openclaw", "session_id_used": "s-1", "pid": math.nan}),
    _record(lease={"holder": "pid 1", "fence": math.nan}),
    _record(candidates=[{"id": "acp", "score": math.inf}]),
])
def test_a_record_with_what_json_refuses_is_not_vouched_and_is_refused(
        record: TurnRecord) -> None:
    stored = stored_json(record)
    assert type(stored) is dict
    with pytest.raises(StoreError):
        dump_json(stored, "turn record")


def test_a_kept_mapping_with_what_json_refuses_is_never_vouched() -> None:
    """A read-only selection or start data the recorder shares between turns is redacted
    once; a NaN in it leaves every record that holds it unvouched, not only the first."""
    from types import MappingProxyType

    selection = MappingProxyType({"attempt": 0, "model": "m", "score": math.nan,
                                  "candidates": []})
    start = MappingProxyType({"attempt": 0, "model": "m", "score": math.inf})
    for record in (_record()._replace(selections=(selection,)),
                   _record()._replace(timeline=(TimelineEvent(0.1, "attempt.start", None,
                                                              start),))):
        for _ in range(2):
            stored = stored_json(record)
            assert type(stored) is dict
            with pytest.raises(StoreError):
                dump_json(stored, "turn record")


def test_times_are_rounded_as_round_rounds_them() -> None:
    """The record's times go to two decimals by a cheaper way than `round` where it
    surely agrees: the same float (sign of a zero too) or int for any value."""
    import random
    import struct

    from clawharness.attempt._turn_record import _round2

    rng = random.Random(7)
    values: list[Any] = [0.0, -0.0, 5e-324, 0.005, 0.015, 0.125, 1.005, 2.675, 2.0**40,
                         2.0**40 - 1.0, 1e15, math.nan, math.inf, -math.inf, -1.555, 3, True]
    for _ in range(20000):
        whole = rng.randrange(10**9)
        values += [whole / 100 + 0.005, math.nextafter(whole / 1000, math.inf),
                   math.nextafter(whole / 1000, -math.inf),
                   rng.uniform(0, 10.0**rng.randrange(-5, 14)),
                   struct.unpack("d", struct.pack("Q", rng.getrandbits(64)))[0]]
    for value in values:
        assert repr(_round2(value)) == repr(round(value, 2)), value
        assert type(_round2(value)) is type(round(value, 2))


def test_walks_count_what_they_pass_on_that_is_not_plain() -> None:
    from clawharness.redaction import redact_secrets_in

    before = odd_values_seen()
    redact_secrets_in({"a": [1, 2.5, "x", None, True], "b": {"c": (1,)}})
    assert odd_values_seen() == before
    redact_secrets_in({"a": [math.nan]})
    redact_secrets_in({"a": object()})
    redact_secrets_in(math.inf)
    assert odd_values_seen() == before + 3
