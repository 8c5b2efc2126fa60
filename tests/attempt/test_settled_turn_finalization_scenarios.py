"""Settled-turn finalization: the narrow result contract (scenarios 34, 35) and the
projection of a full attempt (scenarios 36, 37)."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from clawharness.attempt.finalize_projection import (
    FinalizationAttemptFacts,
    FinalizationToolMeta,
    ItemLifecycle,
    ReplayMetadata,
    project_settled_turn_finalization_attempt_result,
)
from clawharness.attempt.finalize_result import (
    EmptySettledTurnFinalizationError,
    SettledTurnFinalizationRejectedError,
    SettledTurnFinalizationResult,
    extract_assistant_visible_text,
    parse_settled_turn_finalization_result,
)
from clawharness.attempt.terminal import LegacyTerminalFlags, Terminal


def _assistant(text: str = "Final answer.", stop_reason: str = "stop") -> dict[str, Any]:
    return {
        "role": "assistant",
        "stopReason": stop_reason,
        "content": [{"type": "text", "text": text}],
    }


def _attempt(**overrides: Any) -> FinalizationAttemptFacts:
    clean = FinalizationAttemptFacts(
        terminal=Terminal.ok(),
        item_lifecycle=ItemLifecycle(0, 0, 0),
        replay_metadata=ReplayMetadata(had_potential_side_effects=False, replay_safe=True),
        completed_assistant=_assistant(),
    )
    return dataclasses.replace(clean, **overrides)


def test_a_clean_result_parses_into_the_narrow_record() -> None:
    result = parse_settled_turn_finalization_result(
        {"assistant": _assistant(), "usage": {"input": 3}, "assistantMessageIndex": 2})
    assert result == SettledTurnFinalizationResult(
        assistant=_assistant(), usage={"input": 3}, assistant_message_index=2)


def test_scenario_34_an_extra_result_field_is_rejected() -> None:
    with pytest.raises(SettledTurnFinalizationRejectedError) as caught:
        parse_settled_turn_finalization_result({"assistant": _assistant(), "toolMediaUrls": ["x"]})
    assert "unsupported result field: toolMediaUrls" in str(caught.value)


def test_scenario_35_a_truncated_stop_is_rejected() -> None:
    with pytest.raises(
        SettledTurnFinalizationRejectedError, match="unsuccessful stop reason: length"
    ):
        parse_settled_turn_finalization_result({"assistant": _assistant(stop_reason="length")})


@pytest.mark.parametrize("index", [-1, 1.5, "3", None, True, 2**53])
def test_an_index_that_is_not_a_whole_json_number_is_rejected(index: Any) -> None:
    with pytest.raises(SettledTurnFinalizationRejectedError, match="invalid assistant message"):
        parse_settled_turn_finalization_result(
            {"assistant": _assistant(), "assistantMessageIndex": index})


@pytest.mark.parametrize("text", ["NO_REPLY", "   ", "no_reply.", "<think>only thinking</think>"])
def test_scenario_35_silent_or_blank_text_is_an_empty_finalization(text: str) -> None:
    with pytest.raises(EmptySettledTurnFinalizationError) as caught:
        parse_settled_turn_finalization_result({"assistant": _assistant(text)})
    assert caught.value.result.assistant == _assistant(text)


def test_a_reply_that_merely_mentions_the_token_is_accepted() -> None:
    parse_settled_turn_finalization_result({"assistant": _assistant("NO_REPLY but more")})


def test_a_tool_call_block_is_rejected_even_with_stop() -> None:
    assistant = {
        "role": "assistant",
        "stopReason": "stop",
        "content": [{"type": "toolCall", "id": "1"}],
    }
    with pytest.raises(SettledTurnFinalizationRejectedError, match="returned a tool call"):
        parse_settled_turn_finalization_result({"assistant": assistant})


def test_visible_text_prefers_final_answer_blocks_and_hides_reasoning() -> None:
    message = {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "thinking aloud",
             "textSignature": '{"v": 1, "phase": "commentary"}'},
            {"type": "text", "text": "<thinking>hidden</thinking>The answer.",
             "textSignature": '{"v": 1, "phase": "final_answer"}'},
        ],
    }
    assert extract_assistant_visible_text(message) == "The answer."
    assert extract_assistant_visible_text({"content": "plain <final>text</final>"}) == "plain text"


def test_scenario_36_messaging_activity_is_capability_activity() -> None:
    with pytest.raises(SettledTurnFinalizationRejectedError, match="reported capability activity"):
        project_settled_turn_finalization_attempt_result(
            _attempt(messaging_tool_sent_texts=("hi",)))


def test_an_attempt_without_replay_facts_is_not_known_to_be_safe() -> None:
    with pytest.raises(SettledTurnFinalizationRejectedError, match="reported capability activity"):
        project_settled_turn_finalization_attempt_result(_attempt(replay_metadata=None))


def _rejected_call(**overrides: Any) -> FinalizationAttemptFacts:
    return _attempt(
        tool_metas=(FinalizationToolMeta(is_error=True),),
        item_lifecycle=ItemLifecycle(1, 1, 0),
        had_last_tool_error=True,
        last_tool_error_execution_started=False,
        **overrides,
    )


def test_scenario_37_a_tool_call_rejected_before_execution_is_forgiven() -> None:
    attempt = _rejected_call(attempt_usage={"input": 5, "output": 2},
                             has_last_assistant_text_message_index=True,
                             last_assistant_text_message_index=4)
    assert project_settled_turn_finalization_attempt_result(attempt) == (
        SettledTurnFinalizationResult(assistant=_assistant(), usage={"input": 5, "output": 2},
                                      assistant_message_index=4))


@pytest.mark.parametrize(
    "change",
    [
        {"last_tool_error_execution_started": True},
        {"item_lifecycle": ItemLifecycle(1, 0, 1)},
        {"tool_metas": (FinalizationToolMeta(is_error=True, async_started=True),)},
        {"replay_metadata": ReplayMetadata(had_potential_side_effects=False, replay_safe=False)},
    ],
)
def test_scenario_37_the_exemption_needs_every_condition(change: dict[str, Any]) -> None:
    attempt = dataclasses.replace(_rejected_call(), **change)
    with pytest.raises(SettledTurnFinalizationRejectedError, match="reported capability activity"):
        project_settled_turn_finalization_attempt_result(attempt)


def test_a_failed_terminal_is_not_a_successful_finalization() -> None:
    attempt = _attempt(terminal=Terminal.timeout("prompt", "idle"))
    with pytest.raises(SettledTurnFinalizationRejectedError, match="did not complete successfully"):
        project_settled_turn_finalization_attempt_result(attempt)


def test_legacy_flags_are_normalised_when_no_terminal_is_given() -> None:
    attempt = _attempt(terminal=None, legacy_flags=LegacyTerminalFlags(aborted=True))
    with pytest.raises(SettledTurnFinalizationRejectedError, match="did not complete successfully"):
        project_settled_turn_finalization_attempt_result(attempt)


def test_a_compaction_during_finalization_fails_it() -> None:
    with pytest.raises(SettledTurnFinalizationRejectedError, match="did not complete successfully"):
        project_settled_turn_finalization_attempt_result(_attempt(compaction_count=1))


def test_no_completed_assistant_is_refused() -> None:
    with pytest.raises(SettledTurnFinalizationRejectedError, match="no completed assistant"):
        project_settled_turn_finalization_attempt_result(_attempt(completed_assistant=None))


def test_an_owned_transcript_carries_its_idempotency_key_instead_of_an_index() -> None:
    attempt = _attempt(
        assistant_transcript_owned=True,
        assistant_transcript_idempotency_key="k-1",
        has_last_assistant_text_message_index=True,
        last_assistant_text_message_index=2,
    )
    assert project_settled_turn_finalization_attempt_result(attempt) == (
        SettledTurnFinalizationResult(assistant=_assistant(), assistant_transcript_owned=True,
                                      assistant_transcript_idempotency_key="k-1"))
