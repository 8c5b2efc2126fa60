"""Host validation of attempt results: scenario 53, spawns, client calls, delivery facts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from clawharness.attempt.validate import (
    AttemptResultRejectedError,
    build_continuation,
    resolve_visible_replies,
    suppress_silent_payloads,
    validate_attempt_result,
)
from clawharness.harness.types import AttemptResult, AttemptTerminal
from clawharness.records.tool_calls import ToolCallMeta
from clawharness.records.usage import Usage


def result(**fields: Any) -> AttemptResult:
    return AttemptResult(AttemptTerminal.ok(), "session-1", **fields)


def test_scenario_53_host_owned_media_outside_tool_media_is_refused() -> None:
    bad = result(tool_media_urls=["file:///a.png"],
                 host_owned_tool_media_urls=["file:///a.png", "file:///b.png"])
    with pytest.raises(AttemptResultRejectedError) as caught:
        validate_attempt_result(bad)
    assert caught.value.field == "hostOwnedToolMediaUrls"
    assert "file:///b.png" in str(caught.value)


def test_tool_metas_and_usage_a_plugin_reports_as_json_become_records() -> None:
    reported = result(tool_metas=[{"toolName": "exec", "toolCallId": "c1", "isError": True,
                                   "error": "denied"}],
                      attempt_usage={"input_tokens": 7, "output_tokens": 2})
    checked = validate_attempt_result(reported)
    assert checked.tool_metas == [ToolCallMeta("exec", "c1", True, "denied")]
    assert checked.attempt_usage == Usage(input=7, output=2)
    assert reported.tool_metas[0] == {"toolName": "exec", "toolCallId": "c1", "isError": True,
                                      "error": "denied"}  # the harness's object is not changed
    typed = result(tool_metas=[ToolCallMeta("read")], attempt_usage=Usage.zero())
    assert validate_attempt_result(typed) is typed  # already records: nothing copied


@pytest.mark.parametrize(("fields", "named"), [
    ({"tool_metas": ["exec"]}, "toolMetas"),
    ({"attempt_usage": 12}, "attemptUsage"),
])
def test_tool_metas_or_usage_of_another_type_are_refused(fields: dict[str, Any],
                                                         named: str) -> None:
    with pytest.raises(AttemptResultRejectedError) as caught:
        validate_attempt_result(result(**fields))
    assert caught.value.field == named


def test_host_owned_media_that_is_a_subset_is_accepted() -> None:
    good = result(tool_media_urls=["file:///a.png", "file:///b.png"],
                  host_owned_tool_media_urls=["file:///b.png"])
    assert validate_attempt_result(good).host_owned_tool_media_urls == ["file:///b.png"]


def test_accepted_spawns_keep_completion_intent_and_missing_means_false() -> None:
    checked = validate_attempt_result(result(accepted_session_spawns=[
        {"runId": "r1", "childSessionKey": "agent:main:sub:1", "expectsCompletionMessage": True},
        {"runId": "r2", "childSessionKey": "agent:main:sub:2"},
        {"runId": "r3", "childSessionKey": "agent:main:sub:3", "expectsCompletionMessage": "yes"},
        {"runId": " ", "childSessionKey": "incomplete"},
    ]))
    assert [(s["runId"], s["expectsCompletionMessage"]) for s in checked.accepted_session_spawns] == [
        ("r1", True), ("r2", False), ("r3", False)
    ]


def test_validation_does_not_modify_the_harness_result() -> None:
    original = result(accepted_session_spawns=[{"runId": "r", "childSessionKey": "c"}])
    validate_attempt_result(original)
    assert original.accepted_session_spawns == [{"runId": "r", "childSessionKey": "c"}]


def test_client_tool_calls_are_none_or_non_empty() -> None:
    assert validate_attempt_result(result(client_tool_calls=[])).client_tool_calls is None
    assert validate_attempt_result(result()).client_tool_calls is None
    calls = [{"name": "pick_file", "arguments": {}}]
    assert validate_attempt_result(result(client_tool_calls=calls)).client_tool_calls == calls
    with pytest.raises(AttemptResultRejectedError):
        validate_attempt_result(result(client_tool_calls=["not-a-call"]))  # type: ignore[list-item]


@dataclass
class Harness:
    delivery_defaults: Any = None


def test_visible_replies_prefer_the_new_name_over_the_deprecated_one() -> None:
    both = Harness({"visibleReplies": "automatic", "sourceVisibleReplies": "message_tool"})
    assert resolve_visible_replies(both).value == "automatic"
    assert resolve_visible_replies(both).source == "harness"


def test_the_deprecated_source_visible_replies_is_still_honoured() -> None:
    legacy = Harness({"sourceVisibleReplies": "message_tool"})
    resolved = resolve_visible_replies(legacy)
    assert (resolved.value, resolved.source) == ("message_tool", "harness-deprecated")


def test_explicit_message_config_wins_over_harness_defaults() -> None:
    harness = Harness({"visibleReplies": "message_tool"})
    assert resolve_visible_replies(harness, "automatic").source == "explicit"
    assert resolve_visible_replies(Harness(), None).value == "automatic"
    assert resolve_visible_replies(Harness({"visibleReplies": "bogus"})).source == "default"


def test_silent_payloads_are_suppressed_but_media_survives() -> None:
    payloads = [{"text": " NO_REPLY "}, {"text": "NO_REPLY", "mediaUrl": "file:///a.png"},
                {"text": "done. NO_REPLY"}, {"text": '{"action":"NO_REPLY"}'}]
    kept = suppress_silent_payloads(payloads)
    assert kept == [{"text": "NO_REPLY", "mediaUrl": "file:///a.png"}, {"text": "done. NO_REPLY"}]


def test_continuation_carries_the_prompt_and_settled_snapshots_in_order() -> None:
    first = result(messages_snapshot=[
        {"role": "user", "content": [{"type": "text", "text": "write the note"}]},
        {"role": "assistant", "content": [{"type": "toolCall", "id": "t1", "name": "write"}]},
        {"role": "toolResult", "toolCallId": "t1", "content": [{"type": "text", "text": "ok"}]},
    ])
    second = [{"role": "assistant", "content": [{"type": "text", "text": "partial"}]}]
    continuation = build_continuation("write the note", [first, second])
    assert continuation["prompt"] == "write the note"
    assert [m["role"] for m in continuation["messages"]] == [
        "user", "assistant", "toolResult", "assistant"
    ]
    # no extra user turn is synthesised for the retry itself
    assert sum(1 for m in continuation["messages"] if m["role"] == "user") == 1
    continuation["messages"][1]["content"].append({"type": "text", "text": "mutated"})
    assert len(first.messages_snapshot[1]["content"]) == 1
