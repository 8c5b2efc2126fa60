"""The typed tool-result helpers: JSON in, Python values out (`tools.results`)."""

from __future__ import annotations

from types import MappingProxyType

from clawharness.tools.results import (
    compact_json,
    extract_tool_error_message,
    format_tool_progress_output,
    is_tool_result_error,
    read_tool_result_status,
)


def test_compact_json_writes_numbers_as_the_original_and_nan_as_null() -> None:
    value = {"a": 1.0, "b": float("nan"), "c": [True, None], "d": 1e21, "e": 'é"'}
    assert compact_json(value) == '{"a":1,"b":null,"c":[true,null],"d":1e+21,"e":"é\\""}'


def test_an_empty_error_object_still_reports_a_failure() -> None:
    assert is_tool_result_error({"details": {"error": []}})
    assert is_tool_result_error({"details": {"error": {}}})
    assert not is_tool_result_error({"details": {"error": ""}})
    assert not is_tool_result_error({"details": {"error": 0}})
    assert not is_tool_result_error({"details": {"error": float("nan")}})
    assert is_tool_result_error({"details": {"error": "disk full"}})


def test_an_explicit_success_outweighs_an_error_like_status() -> None:
    assert is_tool_result_error({"details": {"status": "failed"}})
    assert not is_tool_result_error({"details": {"status": "failed", "ok": True}})
    assert is_tool_result_error({"details": {"status": "failed", "ok": True, "timedOut": True}})


def test_any_mapping_reads_like_the_json_object_it_stands_for() -> None:
    result = MappingProxyType({"details": MappingProxyType({"status": " Failed "})})
    assert read_tool_result_status(result) == "failed"
    assert is_tool_result_error(result)


def test_the_error_message_is_found_in_json_text_content() -> None:
    result = {"content": [{"type": "text", "text": '{"error": "disk full\\nmore"}'}]}
    assert extract_tool_error_message(result) == "disk full"


def test_structured_blocks_are_serialized_redacted_when_there_is_no_text() -> None:
    result = {"content": [{"type": "json", "value": {"state": "failed", "password": "hunter2"}}]}
    assert extract_tool_error_message(result) == (
        '{"type":"json","value":{"state":"failed","password":"***"}}'
    )
    assert extract_tool_error_message({"content": [[{"note": "x"}]]}) == '[{"note":"x"}]'


def test_progress_output_counts_an_emoji_as_two_units() -> None:
    assert format_tool_progress_output("aaaaaaaaa😀b", max_chars=10) == (
        "aaaaaaaaa\n...(truncated)..."
    )
    assert format_tool_progress_output("line1\r\nline2\r  ") == "line1\nline2"
