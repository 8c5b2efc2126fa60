"""Size and nesting limits on parsed inputs, and the bounded JSON reader."""

from __future__ import annotations

import json

import pytest

from clawharness.errors import ClawHarnessError, InputLimitError
from clawharness.limits import (
    MAX_JSON_DEPTH,
    MAX_TOOL_ARGUMENTS_CHARS,
    json_nesting_exceeds,
    loads_bounded,
    value_nesting_exceeds,
)
from clawharness.providers.base import parse_tool_arguments


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_a_frame_within_the_limits_parses() -> None:
    assert loads_bounded('{"a": [1, {"b": "[[[[{{{{"}]}', what="a frame", max_size=100) == \
        {"a": [1, {"b": "[[[[{{{{"}]}
    assert loads_bounded(nested(MAX_JSON_DEPTH), what="a frame", max_size=10_000)


def test_a_frame_over_the_size_limit_names_itself_and_the_limit() -> None:
    with pytest.raises(InputLimitError, match=r"a frame: 101 characters, over the limit of 100"):
        loads_bounded("x" * 101, what="a frame", max_size=100)


@pytest.mark.parametrize("depth", [MAX_JSON_DEPTH + 1, 5_000, 100_000])
def test_a_frame_nested_too_deep_is_refused_not_a_recursion_error(depth: int) -> None:
    # json.loads alone raises RecursionError from ~1,000 levels
    with pytest.raises(InputLimitError, match=f"nested deeper than {MAX_JSON_DEPTH} levels"):
        loads_bounded(nested(depth), what="a frame", max_size=10**7)


def test_an_input_limit_error_is_a_value_error_and_a_clawharness_error() -> None:
    # readers that drop malformed input with `except ValueError` drop these too
    assert issubclass(InputLimitError, ValueError)
    assert issubclass(InputLimitError, ClawHarnessError)
    assert InputLimitError.code == "input_too_large"


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    text = json.dumps({"code": "[" * 1000 + "{" * 1000, "escaped": '\\"[[[[\\\\'})
    assert not json_nesting_exceeds(text, 2)
    assert json_nesting_exceeds(json.dumps([[[{"a": "x"}]]]), 3)
    assert not json_nesting_exceeds(json.dumps([[[{"a": "x"}]]]), 4)


def test_value_nesting_is_measured_without_recursion() -> None:
    deep: list[object] = []
    cursor = deep
    for _ in range(50_000):
        cursor.append([])
        cursor = cursor[0]  # type: ignore[assignment]
    assert value_nesting_exceeds(deep, MAX_JSON_DEPTH)
    assert not value_nesting_exceeds({"a": [1, {"b": 2}]}, 3)


def test_tool_arguments_nested_too_deep_are_an_error_the_model_reads() -> None:
    # before: RecursionError escaped from the provider's stream and failed the turn
    arguments, error = parse_tool_arguments(json.dumps({"path": "x"})[:-1] + ', "v": '
                                            + nested(5_000) + "}")
    assert arguments == {}
    assert error == f"tool arguments: nested deeper than {MAX_JSON_DEPTH} levels"


def test_tool_arguments_over_the_size_limit_are_an_error_the_model_reads() -> None:
    raw = json.dumps({"content": "x" * MAX_TOOL_ARGUMENTS_CHARS})
    arguments, error = parse_tool_arguments(raw)
    assert arguments == {}
    assert error is not None and "over the limit of 8,388,608 characters" in error
