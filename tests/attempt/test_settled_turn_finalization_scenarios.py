"""Settled-turn finalization: the narrow result contract (scenarios 34, 35) and the
projection of a full attempt result (scenarios 36, 37)."""

from __future__ import annotations

from typing import Any

import pytest

from clawharness.attempt.finalize_projection import (
    EmptySettledTurnFinalizationError,
    SettledTurnFinalizationRejectedError,
    assert_settled_turn_finalization_result,
    project_settled_turn_finalization_attempt_result,
)


def _assistant(text: str = "Final answer.", stop_reason: str = "stop") -> dict[str, Any]:
    return {
        "role": "assistant",
        "stopReason": stop_reason,
        "content": [{"type": "text", "text": text}],
    }


def _attempt(**overrides: Any) -> dict[str, Any]:
    attempt: dict[str, Any] = {
        "terminal": {"kind": "ok"},
        "toolMetas": [],
        "itemLifecycle": {"startedCount": 0, "completedCount": 0, "activeCount": 0},
        "replayMetadata": {"hadPotentialSideEffects": False, "replaySafe": True},
        "didSendViaMessagingTool": False,
        "messagingToolSentTexts": [],
        "messagingToolSentMediaUrls": [],
        "messagingToolSentTargets": [],
        "currentAttemptCompletedAssistant": _assistant(),
    }
    attempt.update(overrides)
    return attempt


def test_a_clean_result_passes_unchanged() -> None:
    result = {"assistant": _assistant(), "usage": {"input": 3}}
    assert assert_settled_turn_finalization_result(result) is result


def test_scenario_34_an_extra_result_field_is_rejected() -> None:
    with pytest.raises(SettledTurnFinalizationRejectedError) as caught:
        assert_settled_turn_finalization_result({"assistant": _assistant(), "toolMediaUrls": ["x"]})
    assert "unsupported result field: toolMediaUrls" in str(caught.value)


def test_scenario_35_a_truncated_stop_is_rejected() -> None:
    with pytest.raises(
        SettledTurnFinalizationRejectedError, match="unsuccessful stop reason: length"
    ):
        assert_settled_turn_finalization_result({"assistant": _assistant(stop_reason="length")})


@pytest.mark.parametrize("text", ["NO_REPLY", "   ", "no_reply."])
def test_scenario_35_silent_or_blank_text_is_an_empty_finalization(text: str) -> None:
    result = {"assistant": _assistant(text)}
    with pytest.raises(EmptySettledTurnFinalizationError) as caught:
        assert_settled_turn_finalization_result(result)
    assert caught.value.result is result


def test_a_reply_that_merely_mentions_the_token_is_accepted() -> None:
    assert_settled_turn_finalization_result({"assistant": _assistant("NO_REPLY but more")})


def test_a_tool_call_block_is_rejected_even_with_stop() -> None:
    assistant = {
        "role": "assistant",
        "stopReason": "stop",
        "content": [{"type": "toolCall", "id": "1"}],
    }
    with pytest.raises(SettledTurnFinalizationRejectedError, match="returned a tool call"):
        assert_settled_turn_finalization_result({"assistant": assistant})


def test_scenario_36_messaging_activity_is_capability_activity() -> None:
    with pytest.raises(SettledTurnFinalizationRejectedError, match="reported capability activity"):
        project_settled_turn_finalization_attempt_result(_attempt(messagingToolSentTexts=["hi"]))


def test_scenario_37_a_tool_call_rejected_before_execution_is_forgiven() -> None:
    attempt = _attempt(
        toolMetas=[{"toolName": "exec", "isError": True}],
        itemLifecycle={"startedCount": 1, "completedCount": 1, "activeCount": 0},
        lastToolError={"toolName": "exec", "executionStarted": False},
        attemptUsage={"input": 5, "output": 2},
        lastAssistantTextMessageIndex=4,
    )
    assert project_settled_turn_finalization_attempt_result(attempt) == {
        "assistant": _assistant(),
        "usage": {"input": 5, "output": 2},
        "assistantMessageIndex": 4,
    }


@pytest.mark.parametrize(
    "change",
    [
        {"lastToolError": {"toolName": "exec", "executionStarted": True}},
        {"itemLifecycle": {"startedCount": 1, "completedCount": 0, "activeCount": 1}},
        {"toolMetas": [{"toolName": "exec", "isError": True, "asyncStarted": True}]},
        {"replayMetadata": {"hadPotentialSideEffects": False, "replaySafe": False}},
    ],
)
def test_scenario_37_the_exemption_needs_every_condition(change: dict[str, Any]) -> None:
    attempt = _attempt(
        toolMetas=[{"toolName": "exec", "isError": True}],
        itemLifecycle={"startedCount": 1, "completedCount": 1, "activeCount": 0},
        lastToolError={"toolName": "exec", "executionStarted": False},
    )
    attempt.update(change)
    with pytest.raises(SettledTurnFinalizationRejectedError, match="reported capability activity"):
        project_settled_turn_finalization_attempt_result(attempt)


def test_a_failed_terminal_is_not_a_successful_finalization() -> None:
    attempt = _attempt(terminal={"kind": "timeout", "phase": "prompt", "source": "idle"})
    with pytest.raises(SettledTurnFinalizationRejectedError, match="did not complete successfully"):
        project_settled_turn_finalization_attempt_result(attempt)


def test_legacy_flags_are_normalised_when_no_terminal_is_given() -> None:
    attempt = _attempt(aborted=True)
    del attempt["terminal"]
    with pytest.raises(SettledTurnFinalizationRejectedError, match="did not complete successfully"):
        project_settled_turn_finalization_attempt_result(attempt)


def test_an_owned_transcript_carries_its_idempotency_key_instead_of_an_index() -> None:
    attempt = _attempt(
        assistantTranscriptOwned=True,
        assistantTranscriptIdempotencyKey="k-1",
        lastAssistantTextMessageIndex=2,
    )
    assert project_settled_turn_finalization_attempt_result(attempt) == {
        "assistant": _assistant(),
        "assistantTranscriptOwned": True,
        "assistantTranscriptIdempotencyKey": "k-1",
    }
