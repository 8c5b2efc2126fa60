"""User-input delivery: library and terminal channels, timeouts, normalised answers."""

from __future__ import annotations

import asyncio
import dataclasses
import io
from typing import Any

import pytest
from rich.console import Console

import clawharness.harness.user_input_delivery as delivery
from clawharness.harness.user_input import (
    ToolInputError,
    UserInputAnswers,
    UserInputOption,
    UserInputPromptOptions,
    UserInputQuestion,
    build_agent_harness_user_input_answers,
    format_agent_harness_user_input_prompt,
    parse_user_input_questions,
)
from clawharness.harness.user_input_delivery import (
    PendingQuestions,
    TerminalUserInputChannel,
    UserInputChannel,
    UserInputPrompt,
    deliver_user_input_request,
)

QUESTIONS: list[dict[str, Any]] = [{
    "id": "color", "header": "Color", "question": "Which color?",
    "options": [{"label": "Red"}, {"label": "Blue", "description": "calm"}],
}]


class Recording:
    def __init__(self, reply: str | None) -> None:
        self.reply = reply
        self.prompts: list[UserInputPrompt] = []

    async def ask(self, prompt: UserInputPrompt) -> str | None:
        self.prompts.append(prompt)
        return self.reply


async def test_a_reply_is_normalised_back_into_declared_options() -> None:
    channel = Recording("2")
    assert isinstance(channel, UserInputChannel)
    outcome = await deliver_user_input_request(channel, QUESTIONS, run_id="r1")
    assert outcome.status == "answered"
    assert outcome.answers == UserInputAnswers({"color": ("Blue",)})
    assert outcome.answers.to_wire() == {"answers": {"color": {"answers": ["Blue"]}}}
    (prompt,) = channel.prompts
    assert "1. Red" in prompt.text and "2. Blue - calm" in prompt.text
    assert prompt.timeout_seconds == 900 and prompt.run_id == "r1"


async def test_the_question_timeout_follows_the_shared_contract() -> None:
    channel = Recording("red")
    await deliver_user_input_request(channel, QUESTIONS, timeout_seconds=5)
    await deliver_user_input_request(channel, QUESTIONS, timeout_seconds=10_000)
    assert [p.timeout_seconds for p in channel.prompts] == [30, 3600]
    with pytest.raises(ToolInputError):
        await deliver_user_input_request(channel, QUESTIONS, timeout_seconds=1.5)
    with pytest.raises(ToolInputError):
        await deliver_user_input_request(channel, QUESTIONS, timeout_seconds="10")
    # None (a runtime that sent no timeout, or null) waits the default.
    await deliver_user_input_request(channel, QUESTIONS, timeout_seconds=None)
    assert channel.prompts[-1].timeout_seconds == 900


async def test_no_channel_or_no_answer_resumes_with_empty_answers() -> None:
    assert (await deliver_user_input_request(None, QUESTIONS)).status == "unavailable"
    silent = await deliver_user_input_request(Recording(None), QUESTIONS)
    assert silent.status == "unavailable" and silent.answers == UserInputAnswers()


async def test_pending_questions_wait_for_the_embedding_app() -> None:
    pending = PendingQuestions()
    task = asyncio.create_task(deliver_user_input_request(pending, QUESTIONS, question_id="q1"))
    asked = await asyncio.wait_for(pending.next_question(), timeout=2)
    assert asked.question_id == "q1" and pending.pending() == (asked,)
    assert not pending.answer("unknown", "Red")
    assert pending.answer("q1", "red")
    outcome = await asyncio.wait_for(task, timeout=2)
    assert outcome.answers == UserInputAnswers({"color": ("Red",)})
    assert pending.pending() == ()
    assert not pending.answer("q1", "again")


async def test_an_unanswered_question_times_out_and_is_withdrawn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the real floor is 30 s; shrink it so the timeout path runs in milliseconds
    monkeypatch.setattr(delivery, "normalize_question_timeout_seconds", lambda _raw: 0.05)
    pending = PendingQuestions()
    outcome = await asyncio.wait_for(
        deliver_user_input_request(pending, QUESTIONS, question_id="q-late"), timeout=2
    )
    assert outcome.status == "timeout" and outcome.answers == UserInputAnswers()
    assert pending.pending() == ()
    assert not pending.answer("q-late", "Red")


async def test_a_cancelled_question_yields_no_answer() -> None:
    pending = PendingQuestions()
    task = asyncio.create_task(deliver_user_input_request(pending, QUESTIONS, question_id="qc"))
    await asyncio.wait_for(pending.next_question(), timeout=2)
    assert pending.cancel("qc")
    assert (await asyncio.wait_for(task, timeout=2)).status == "unavailable"


async def test_the_terminal_channel_reads_a_line_when_a_tty_is_attached() -> None:
    out = io.StringIO()
    channel = TerminalUserInputChannel(console=Console(file=out, force_terminal=False),
                                       stream=io.StringIO("Red\n"), is_tty=lambda: True)
    outcome = await deliver_user_input_request(channel, QUESTIONS)
    assert outcome.answers == UserInputAnswers({"color": ("Red",)})
    assert "Which color?" in out.getvalue()


async def test_the_terminal_channel_answers_none_without_a_tty() -> None:
    channel = TerminalUserInputChannel(stream=io.StringIO("Red\n"), is_tty=lambda: False)
    assert (await deliver_user_input_request(channel, QUESTIONS)).status == "unavailable"


def test_runtime_question_json_is_read_once_into_typed_questions() -> None:
    (question,) = parse_user_input_questions([*QUESTIONS, "not a question"])
    assert question == UserInputQuestion(
        id="color", header="Color", question="Which color?",
        options=(UserInputOption("Red"), UserInputOption("Blue", "calm")),
    )


def test_several_questions_are_numbered_and_answered_by_key_or_position() -> None:
    questions = (
        UserInputQuestion("name", "Name", "Your name?", is_other=True),
        UserInputQuestion("tags", "Tags", "Pick tags", multi_select=True,
                          options=(UserInputOption("a"), UserInputOption("b"))),
        UserInputQuestion("pin", "PIN", "Enter PIN", is_secret=True),
    )
    text = format_agent_harness_user_input_prompt(
        questions, UserInputPromptOptions(intro="Need:", secret_warning="careful"))
    assert text == ("Need:\n\n1. Name\nYour name?\nOther: reply with your own answer.\n\n"
                    "2. Tags\nPick tags\n1. a\n2. b\n\n3. PIN\nEnter PIN\ncareful")
    answers = build_agent_harness_user_input_answers(questions, "Bob\ntags: 1, b, 1\n")
    assert answers.answers == {"name": ("Bob",), "tags": ("a", "b"), "pin": ()}


def test_a_question_with_options_refuses_free_text_unless_other_is_allowed() -> None:
    closed = UserInputQuestion("ok", options=(UserInputOption("Yes"), UserInputOption("No")))
    assert build_agent_harness_user_input_answers((closed,), "maybe").answers == {"ok": ()}
    assert build_agent_harness_user_input_answers((closed,), " no ").answers == {"ok": ("No",)}
    open_ = dataclasses.replace(closed, is_other=True)
    assert build_agent_harness_user_input_answers((open_,), "maybe").answers == {"ok": ("maybe",)}
