"""`clawharness._json_text.dumps_strict`: what `json` (compact, non-ASCII as is, no NaN)
would write, or an equal value's text, and `json`'s errors for what it refuses."""

from __future__ import annotations

import dataclasses
import datetime
import enum
import json
import math
import uuid
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clawharness._json_text import dumps_sorted, dumps_strict, surely_within

_JSON = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False)


class _Color(enum.Enum):
    RED = 1


class _Level(enum.IntEnum):
    HIGH = 3


class _Name(str):
    pass


class _Ratio(float):
    pass


@dataclasses.dataclass
class _Point:
    x: int


def _deep(levels: int) -> Any:
    value: Any = 1
    for _ in range(levels):
        value = [value]
    return value


@pytest.mark.parametrize("value", [
    {"role": "user", "content": [{"type": "text", "text": "héllo 😀 \x00\t\"\\"}]},
    [1, -0.0, 1e16, 5e-324, 1.7976931348623157e308, True, False, None, ""],
    {"big": 2**64, "small": -(2**63) - 1},   # beyond 64 bits: orjson refuses
    {1: "a", None: "b", 2.5: "c"},            # keys json turns into strings
    {_Name("k"): _Name("v")},                  # str subclasses
    [_Level.HIGH, _Ratio(0.5)],                # an int subclass, a float subclass
    (1, [2, (3,)]),                            # tuples: arrays, as json writes them
    "\ud800",                                  # a lone surrogate
    _deep(300),                                # deeper than orjson goes
])
def test_what_json_writes_reads_back_the_same(value: Any) -> None:
    assert json.loads(dumps_strict(value)) == json.loads(_JSON.encode(value))


@pytest.mark.parametrize("value", [
    float("nan"), {"x": [1, float("inf")]}, -math.inf,   # json: ValueError
    uuid.UUID(int=1), _Color.RED, _Point(1), datetime.date(2026, 1, 1),  # TypeError
    {"x": object()}, b"bytes", {1, 2},
])
def test_what_json_refuses_is_refused_with_its_error(value: Any) -> None:
    with pytest.raises((TypeError, ValueError)) as expected:
        _JSON.encode(value)
    with pytest.raises(expected.type):
        dumps_strict(value)


_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda children: st.lists(children) | st.dictionaries(st.text(), children),
    max_leaves=30)


#: generation time is not what these check: a shared 2-core CI machine can stall a draw
#: past Hypothesis's timing health check and deadline
CI_SAFE = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@CI_SAFE
@given(_values)
def test_plain_json_values_read_back_equal_and_as_json_does(value: Any) -> None:
    text = dumps_strict(value)
    assert json.loads(text) == value
    assert json.loads(text) == json.loads(_JSON.encode(value))


_SORTED = json.JSONEncoder(sort_keys=True, separators=(",", ":"), default=str)


@pytest.mark.parametrize(("a", "b"), [
    ({"b": 1, "a": [1, 2]}, {"a": [1, 2], "b": 1}),        # key order does not count
    ({"x": (1, 2)}, {"x": [1, 2]}),                         # json writes both as arrays
    ({"x": _Point(1)}, {"x": str(_Point(1))}),               # what is not JSON: its str()
    ({"x": _Color.RED}, {"x": "_Color.RED"}),
])
def test_sorted_bytes_are_equal_where_json_texts_are(a: Any, b: Any) -> None:
    assert _SORTED.encode(a) == _SORTED.encode(b)
    assert dumps_sorted(a) == dumps_sorted(b)


@pytest.mark.parametrize(("a", "b"), [
    ({"x": float("nan")}, {"x": None}),                     # orjson alone: both null
    ({"x": _Color.RED}, {"x": 1}),                           # orjson alone: by value
    ({"x": uuid.UUID(int=1)}, {"x": [str(uuid.UUID(int=1))]}),
    ({"x": "é"}, {"x": "e"}),
    ({"x": "\ud800"}, {"x": "\ud801"}),                      # lone surrogates: passed
])
def test_sorted_bytes_differ_where_json_texts_do(a: Any, b: Any) -> None:
    assert _SORTED.encode(a) != _SORTED.encode(b)
    assert dumps_sorted(a) != dumps_sorted(b)


@CI_SAFE
@given(_values)
def test_sorted_bytes_of_plain_values_are_json_sorted(value: Any) -> None:
    assert json.loads(dumps_sorted(value)) == json.loads(_SORTED.encode(value))


_SPACED = json.JSONEncoder(ensure_ascii=False, default=str)


@CI_SAFE
@given(_values, st.integers(min_value=0, max_value=400))
def test_surely_within_is_never_wrong(value: Any, chars: int) -> None:
    if surely_within(value, chars):
        assert len(_SPACED.encode(value)) <= chars


@pytest.mark.parametrize("value", [
    {"x": float("nan")}, {"x": uuid.UUID(int=1)}, {"x": _Color.RED}, {"x": _Point(1)},
    {1: "a"}, (1, 2),
])
def test_surely_within_is_unsure_of_what_is_not_plain_json(value: Any) -> None:
    assert not surely_within(value, 10_000)
    assert surely_within({"path": "data.txt", "n": [1, 2.5, None, True]}, 10_000)
