"""The transcript contract: a finished attempt's reply must be in what the host stores."""

from __future__ import annotations

import pytest

from clawharness.attempt.transcript_contract import (
    check_transcript_contract,
    reply_texts_missing_from,
)
from clawharness.attempt.validate import AttemptResultRejectedError
from clawharness.plugin_sdk.agent_harness import (
    AttemptResult,
    AttemptTerminal,
    assistant_message,
    message_text,
    user_message,
)


def test_a_reply_only_in_assistant_texts_is_refused_naming_the_field_and_the_fix() -> None:
    result = AttemptResult(AttemptTerminal.ok(), "s1", assistant_texts=["hello"])
    with pytest.raises(AttemptResultRejectedError) as caught:
        check_transcript_contract(result)
    assert caught.value.field == "messagesSnapshot"
    text = str(caught.value)
    assert "'hello'" in text and "assistant_message" in text
    assert "docs/writing-a-harness.md" in text


def test_the_reply_builder_satisfies_the_contract() -> None:
    result = AttemptResult.reply("s1", "hello", agent_harness_id="echo")
    check_transcript_contract(result)
    assert result.assistant_texts == ["hello"]
    assert [message_text(m) for m in result.messages_snapshot] == ["hello"]
    assert result.last_assistant is result.messages_snapshot[0]


def test_a_reply_spread_over_a_longer_assistant_message_is_found() -> None:
    snapshot = [user_message("q"), assistant_message("part one. part two.")]
    assert reply_texts_missing_from(["part two.", "  ", "part one."], snapshot) == []
    assert reply_texts_missing_from(["q"], snapshot) == ["q"]  # a user message is no reply


def test_failed_attempts_are_never_refused_so_their_error_reaches_the_user() -> None:
    for kind in ("failed", "aborted", "timeout"):
        result = AttemptResult(AttemptTerminal(kind, error="boom"), "s1",  # type: ignore[arg-type]
                               assistant_texts=["partial"])
        check_transcript_contract(result)


def test_a_mirrored_transcript_is_checked_when_the_caller_saw_it() -> None:
    result = AttemptResult(AttemptTerminal.ok(), "s1", assistant_texts=["hi"],
                           transcript_mirrored=True)
    check_transcript_contract(result)  # the harness mirrored; nothing to compare with
    check_transcript_contract(result, [user_message("q"), assistant_message("hi")])
    with pytest.raises(AttemptResultRejectedError, match=r"mirrored through params\.mirror"):
        check_transcript_contract(result, [user_message("q")])
