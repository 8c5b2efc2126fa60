"""The turn inspector's record as a value, and its stored form (`attempt.inspector`).

`TurnRecord` (with its timeline events and tool calls) is what one turn did;
`stored_json` is what the store keeps of it: the record's JSON with every string that
is not an identity passed through the secret redaction, built in one pass.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Final, NamedTuple

from clawharness._json import JsonValue
from clawharness._json_text import PlainJson
from clawharness.records.turn_result import ModelFallback
from clawharness.records.usage import Usage
from clawharness.redaction import (
    odd_values_seen,
    redact_entry,
    redact_secrets_in,
    redact_walked,
)
from clawharness.redaction.fields import is_sensitive_field_key
from clawharness.redaction.known import known_generation

__all__ = ["IDENTITY", "MAX_CACHED_LISTS", "OWN_KEYS", "TimelineEvent", "ToolCallRecord",
           "TurnRecord", "redacted_record", "stored_json", "usage_wire"]

#: how many redacted candidate lists and kept mappings (and, in `inspector`, selections) are kept
MAX_CACHED_LISTS: Final = 256


#: (the records are named tuples, not frozen dataclasses: a turn makes several, and a
#: frozen dataclass sets each field through `object.__setattr__`, about twice the cost)
_NO_DATA: Final[Mapping[str, Any]] = MappingProxyType({})


class TimelineEvent(NamedTuple):
    at_ms: float
    kind: str
    duration_ms: float | None = None
    data: Mapping[str, Any] = _NO_DATA

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"at_ms": round(self.at_ms, 2), "kind": self.kind}
        if self.duration_ms is not None:
            out["duration_ms"] = round(self.duration_ms, 2)
        if self.data:
            out["data"] = dict(self.data)
        return out


class ToolCallRecord(NamedTuple):
    tool_call_id: str
    name: str
    arguments: Any
    outcome: str  # ok | error | unfinished
    started_at_ms: float
    duration_ms: float | None = None
    attempt: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"tool_call_id": self.tool_call_id, "name": self.name,
                "arguments": self.arguments, "outcome": self.outcome,
                "started_at_ms": round(self.started_at_ms, 2),
                "duration_ms": None if self.duration_ms is None else round(self.duration_ms, 2),
                "attempt": self.attempt}


class TurnRecord(NamedTuple):
    """One turn, as the inspector shows it."""

    run_id: str
    session_key: str
    session_id: str
    agent_id: str
    started_at: float
    duration_ms: float
    terminal: str
    error: str | None
    runtime: str
    selected_reason: str
    selections: tuple[Mapping[str, Any], ...]
    timeline: tuple[TimelineEvent, ...]
    tool_calls: tuple[ToolCallRecord, ...]
    approvals: tuple[Mapping[str, Any], ...]
    lease: Mapping[str, Any] | None
    native: Mapping[str, Any]
    delivery: Mapping[str, Any]
    finalization: str
    fallbacks: tuple[ModelFallback, ...] = ()
    usage: Usage | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id, "session_key": self.session_key,
            "session_id": self.session_id, "agent_id": self.agent_id,
            "started_at": self.started_at, "duration_ms": round(self.duration_ms, 2),
            "terminal": self.terminal, "error": self.error, "runtime": self.runtime,
            "selected_reason": self.selected_reason,
            "selections": [dict(s) for s in self.selections],
            "timeline": [e.to_json() for e in self.timeline],
            "tool_calls": [t.to_json() for t in self.tool_calls],
            "approvals": [dict(a) for a in self.approvals],
            "lease": None if self.lease is None else dict(self.lease),
            "native": dict(self.native), "delivery": dict(self.delivery),
            "finalization": self.finalization,
            "fallbacks": [f.to_wire() for f in self.fallbacks],
            "usage": usage_wire(self.usage),
        }


def usage_wire(usage: Usage | None) -> dict[str, JsonValue] | None:
    """The turn's usage in the transcript's spelling, with its cost (`cost.total`, USD)
    when it has one."""
    if usage is None:
        return None
    out = usage.to_wire()
    if usage.cost is not None:
        out["cost"] = {"total": usage.cost.total}
    return out


#: who and what the record is about: identities, never secrets (and `session_key` would
#: read as a secret-named field); `lease` is the writer lease the host itself took (its
#: holder names this process and the turn, its fence is a number)
IDENTITY: Final = frozenset({"run_id", "session_key", "session_id", "agent_id", "lease"})


def redacted_record(record: dict[str, Any]) -> dict[str, Any]:
    """A record as stored: every other string passes the secret redaction (tool
    arguments, failure messages, approval reasons, timeline data).

    Two parts are not walked again each turn: a selection's candidates (the same list
    for every turn of a kept decision, `inspector._selection`: redacted once per
    list and set of known values), and the session id the attempt used when it is the turn's own
    (`session_id`, an identity stored as it is)."""
    identity: dict[str, Any] = {}
    rest: dict[str, Any] = {}
    for key, value in record.items():
        (identity if key in IDENTITY else rest)[key] = value
    selections: Any = rest.get("selections")
    candidates: list[tuple[int, Any]] = []
    if type(selections) is list:
        rest["selections"] = [_without(s, "candidates", candidates, i)
                              for i, s in enumerate(selections)]
    native: Any = rest.get("native")
    own: list[tuple[int, Any]] = []
    if (type(native) is dict and native.get("session_id_used") is not None
            and native.get("session_id_used") == identity.get("session_id")):
        rest["native"] = _without(native, "session_id_used", own, 0)
    out = redact_secrets_in(rest)
    if candidates:
        generation = known_generation()
        stored = out["selections"]
        for i, listed in candidates:
            stored[i] = _with(selections[i], stored[i], "candidates",
                              _redacted_candidates(listed, generation))
    if own:
        out["native"] = _with(native, out["native"], "session_id_used", own[0][1])
    return {**identity, **out}


#: the keys of a record and of its timeline events and tool calls `stored_json` writes
#: itself (none is secret-named, so a walk would not mask their strings whatever they
#: look like; `tests/attempt/test_turn_record_redaction.py` holds it to that)
OWN_KEYS: Final = frozenset({
    "started_at", "duration_ms", "terminal", "error", "runtime", "selected_reason",
    "selections", "timeline", "tool_calls", "approvals", "native", "delivery",
    "finalization", "fallbacks", "usage", "at_ms", "kind", "data", "tool_call_id", "name",
    "arguments", "outcome", "started_at_ms", "attempt", "session_id_used"})
assert not any(is_sensitive_field_key(k) for k in OWN_KEYS)


def stored_json(record: TurnRecord) -> dict[str, Any]:
    """`redacted_record(record.to_json())`, made in one pass: the record's own frame (its
    fields, timeline events and tool calls, whose keys are never secret-named) is built
    already redacted, and only the values inside it are walked (timeline data, tool
    arguments, ...), at the depth a walk of the whole would reach them.

    A `PlainJson` when it surely is plain JSON (the store then writes it without reading
    its JSON back): the walks met nothing else (`odd_values_seen`), the kept candidates
    neither, and the frame's own values are strings, ints and finite floats."""
    odd = odd_values_seen()
    generation = known_generation()
    session_id = record.session_id
    # the frame's numbers, summed: NaN when one is NaN or an infinity (or they overflow)
    started = record.started_at
    numbers = (started if type(started) is float or type(started) is int else math.nan
               ) + record.duration_ms
    framed = True
    timeline: list[Any] = []
    for at_ms, kind, duration_ms, data in record.timeline:
        numbers += at_ms
        item: dict[str, Any] = {"at_ms": _round2(at_ms),
                                "kind": redact_walked(kind, 3, generation)}
        if duration_ms is not None:
            numbers += duration_ms
            item["duration_ms"] = _round2(duration_ms)
        if type(data) is MappingProxyType and data:
            item["data"], plain = _kept(data, 3, generation, _walked)
            framed = framed and plain
        elif data:
            item["data"] = redact_walked(data, 3, generation)
        timeline.append(item)
    tools: list[Any] = []
    for call_id, name, arguments, outcome, started_ms, duration_ms, attempt in (
            record.tool_calls):
        tools.append({"tool_call_id": redact_walked(call_id, 3, generation),
                      "name": redact_walked(name, 3, generation),
                      "arguments": redact_walked(arguments, 3, generation),
                      "outcome": redact_walked(outcome, 3, generation),
                      "started_at_ms": _round2(started_ms),
                      "duration_ms": None if duration_ms is None else _round2(duration_ms),
                      "attempt": attempt})
        numbers += started_ms + (duration_ms or 0.0)
        framed = framed and type(attempt) is int
    selections: list[Any] = []
    for selection in record.selections:
        if type(selection) is MappingProxyType:
            redacted, plain = _kept(selection, 2, generation, _selection)
        else:
            redacted, plain = _selection(selection, 2, generation)
        framed = framed and plain
        selections.append(redacted)
    native = {k: v if k == "session_id_used" and v is not None and v == session_id
              else redact_entry(k, v, 1, generation) for k, v in record.native.items()}
    lease = record.lease
    error = record.error
    approvals = record.approvals
    fallbacks = record.fallbacks
    usage = record.usage
    run_id, session_key, agent_id = record.run_id, record.session_key, record.agent_id
    out = {
        "run_id": run_id, "session_key": session_key, "session_id": session_id,
        "agent_id": agent_id, "lease": None if lease is None else dict(lease),
        "started_at": started, "duration_ms": _round2(record.duration_ms),
        "terminal": redact_walked(record.terminal, 1, generation),
        "error": None if error is None else redact_walked(error, 1, generation),
        "runtime": redact_walked(record.runtime, 1, generation),
        "selected_reason": redact_walked(record.selected_reason, 1, generation),
        "selections": selections, "timeline": timeline, "tool_calls": tools,
        # (none asked and no fallback in most turns: nothing to walk then)
        "approvals": redact_walked([dict(a) for a in approvals], 1, generation)
        if approvals else [],
        "native": native,
        "delivery": redact_walked(record.delivery, 1, generation),
        "finalization": redact_walked(record.finalization, 1, generation),
        "fallbacks": redact_walked([f.to_wire() for f in fallbacks], 1, generation)
        if fallbacks else [],
        "usage": None if usage is None else redact_walked(usage_wire(usage), 1, generation),
    }
    if (framed and odd_values_seen() == odd and not numbers - numbers
            and type(run_id) is str and type(session_key) is str
            and type(session_id) is str and type(agent_id) is str
            and type(native.get("session_id_used", "")) in _KEPT
            and (lease is None or _LEASE_KINDS.issuperset(map(type, lease.values())))):
        return PlainJson(out)
    return out


def _round2(value: float) -> float:
    """`round(value, 2)`, made from the value times 100 rounded to a whole number when
    that is surely the same (about a third of the cost: a record has a dozen times).

    Below 2**40 the product is off the exact one by under 2**-13, so when it is more than
    0.499 from a half the exact one rounds to the same whole number `n`, and `n / 100`
    (one correctly rounded division) is the float nearest `n` hundredths, as `round`'s
    is; a negative value (`-0.0`), NaN, an infinity and an int go to `round` itself."""
    if type(value) is float:
        scaled = value * 100.0
        if 0.0 < scaled < 1099511627776.0:
            whole = round(scaled)
            if -0.499 < scaled - whole < 0.499:
                return whole / 100
    return round(value, 2)


_ABSENT: Final = object()
#: what a native session id kept as it was (the turn's own) is when plain
_KEPT: Final = frozenset({str, type(None)})
#: what the lease (stored as it is) holds when plain
_LEASE_KINDS: Final = frozenset({str, int})


def _without(value: Any, key: str, taken: list[tuple[int, Any]], index: int) -> Any:
    """`value` without `key` (noted in `taken` under `index`), when it is a dict with it."""
    if type(value) is not dict or key not in value:
        return value
    taken.append((index, value[key]))
    return {k: v for k, v in value.items() if k != key}


def _with(original: Mapping[str, Any], redacted: dict[str, Any], key: str,
          item: Any) -> dict[str, Any]:
    """`redacted` with `key` put back as `item`, in `original`'s order of keys."""
    return {k: item if k == key else redacted[k] for k in original}


#: the redacted copy of each kept decision's candidates list, by the list's identity, and
#: whether it is plain JSON (its walk met nothing else: `odd_values_seen`)
_CANDIDATES: dict[int, tuple[Any, int, Any, bool]] = {}


def _selection(selection: Mapping[str, Any], depth: int,
               generation: int) -> tuple[Any, bool]:
    """A selection entry found at `depth` redacted, and whether it is plain JSON; its
    candidates list redacted once per list."""
    listed = selection.get("candidates", _ABSENT)
    if listed is _ABSENT:
        return _walked(selection, depth, generation)
    odd = odd_values_seen()
    rest = redact_walked({k: v for k, v in selection.items() if k != "candidates"},
                         depth, generation)
    plain = odd_values_seen() == odd
    candidates, listed_plain = _candidates_and_plain(listed, generation)
    return _with(selection, rest, "candidates", candidates), plain and listed_plain


#: the redacted copy of each kept mapping (a `MappingProxyType`: the recorder makes a
#: selection entry and an attempt's start data once per decision, attempt and model, and
#: shares them read-only between turns), by its identity, with the depth it is found at,
#: the known values' generation, and whether it is plain JSON
_KEPT_MAPPINGS: dict[int, tuple[Any, int, int, Any, bool]] = {}


def _kept(value: Mapping[str, Any], depth: int, generation: int,
          redact: Callable[[Mapping[str, Any], int, int], tuple[Any, bool]]
          ) -> tuple[Any, bool]:
    """`redact(value, depth, generation)` for a kept mapping: made once per generation."""
    known = _KEPT_MAPPINGS.get(id(value))
    if (known is not None and known[0] is value and known[1] == depth
            and known[2] == generation):
        return known[3], known[4]
    redacted, plain = redact(value, depth, generation)
    if len(_KEPT_MAPPINGS) >= MAX_CACHED_LISTS:
        _KEPT_MAPPINGS.clear()
    _KEPT_MAPPINGS[id(value)] = (value, depth, generation, redacted, plain)
    return redacted, plain


def _walked(value: Any, depth: int, generation: int) -> tuple[Any, bool]:
    """`redact_walked(value, depth, generation)`, and whether it is plain JSON."""
    odd = odd_values_seen()
    redacted = redact_walked(value, depth, generation)
    return redacted, odd_values_seen() == odd


def _redacted_candidates(listed: Any, generation: int) -> Any:
    return _candidates_and_plain(listed, generation)[0]


def _candidates_and_plain(listed: Any, generation: int) -> tuple[Any, bool]:
    known = _CANDIDATES.get(id(listed))
    if known is not None and known[0] is listed and known[1] == generation:
        return known[2], known[3]
    odd = odd_values_seen()
    redacted = redact_secrets_in(listed)
    plain = odd_values_seen() == odd
    if len(_CANDIDATES) >= MAX_CACHED_LISTS:
        _CANDIDATES.clear()
    _CANDIDATES[id(listed)] = (listed, generation, redacted, plain)
    return redacted, plain
