"""The tool-helper adapters: JavaScript values become the core's JSON, and results go back.

The core's tool helpers never see `undefined`, `Map`, `Set` or `Error`; these tests pin
how the adapter presents them, and which JavaScript errors the adapter (not the core)
raises.
"""

from __future__ import annotations

from typing import Any

import pytest

from clawharness.conformance.codec import encode
from clawharness.conformance.fns_tools import FUNCTIONS
from clawharness.conformance.jsvalue import UNDEFINED, JsError, JsMap, JsSet
from clawharness.conformance.tool_values import ErrorView, args_view, read_view, result_view


def test_a_reader_sees_undefined_as_absent_and_in_arrays_as_null() -> None:
    assert read_view({"a": UNDEFINED, "b": [UNDEFINED, 1]}) == {"b": [None, 1]}
    assert read_view(UNDEFINED) is None


def test_a_reader_sees_maps_and_sets_as_objects_without_fields() -> None:
    shared = JsMap({"text": "hidden"})
    view = read_view({"x": shared, "y": shared, "z": JsSet([1])})
    assert view == {"x": {}, "y": {}, "z": {}}
    assert view["x"] is view["y"]


def test_a_reader_can_read_an_errors_message_but_lists_only_its_props() -> None:
    view = read_view(JsError("TypeError", "boom", {"code": "E1"}))
    assert isinstance(view, ErrorView)
    assert view["message"] == "boom" and view["name"] == "TypeError"
    assert dict(view) == {"code": "E1"}


def test_sanitize_args_copies_a_repeated_map_as_one_empty_object() -> None:
    shared = JsMap({"k": "v"})
    view = args_view({"a": shared, "b": shared, "u": UNDEFINED})
    assert view["a"] == {} and view["a"] is view["b"] and view["u"] is UNDEFINED
    assert FUNCTIONS["sanitizeToolArgs"]({"a": shared, "b": shared}) == {"a": {}, "b": "[Circular]"}


def test_sanitize_result_leaves_a_nested_set_as_it_is() -> None:
    result = FUNCTIONS["sanitizeToolResult"]({"details": {"tags": JsSet(["a"])}})
    assert encode(result) == {"details": {"tags": {"$set": ["a"]}}}
    assert result_view(JsMap({"a": 1})) == {}


def test_an_image_of_unknown_size_keeps_bytes_undefined() -> None:
    out = FUNCTIONS["sanitizeToolResult"]({"content": [{"type": "image", "mimeType": "image/png"}]})
    assert encode(out) == {
        "content": [
            {"type": "image", "mimeType": "image/png", "bytes": {"$undefined": True}, "omitted": True}
        ]
    }


def test_progress_output_of_the_wrong_type_is_a_javascript_type_error_from_the_adapter() -> None:
    with pytest.raises(JsError) as raised:
        FUNCTIONS["formatToolProgressOutput"](5)
    assert (raised.value.name, raised.value.message) == (
        "TypeError",
        "output.replace is not a function",
    )


@pytest.mark.parametrize(
    ("max_chars", "expected"),
    [
        ("ten", "abcdefghij"),
        (float("nan"), "\n...(truncated)..."),
        (-3, "\n...(truncated)..."),
        (UNDEFINED, "abcdefghij"),
    ],
)
def test_progress_caps_that_are_not_positive_numbers(max_chars: Any, expected: str) -> None:
    assert FUNCTIONS["formatToolProgressOutput"]("abcdefghij", {"maxChars": max_chars}) == expected


def test_adapters_take_arguments_as_javascript_passes_them() -> None:
    assert FUNCTIONS["isToolResultError"]() is False
    assert FUNCTIONS["isToolResultError"]({"details": {"ok": False}}, "ignored") is True
    assert FUNCTIONS["extractToolErrorMessage"]() is UNDEFINED


def test_results_are_encoded_in_the_originals_shapes() -> None:
    names = FUNCTIONS["assignMcpCatalogSafeServerNames"](["my server!"])
    assert isinstance(names, JsMap) and dict(names) == {"my server!": "my-server-"}
    assert FUNCTIONS["splitSandboxBindSpec"]("/a:/b") == {"host": "/a", "container": "/b", "options": ""}
    assert FUNCTIONS["splitSandboxBindSpec"]("nope") is None
