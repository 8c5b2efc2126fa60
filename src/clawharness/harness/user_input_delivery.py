"""Deliver a harness's request for user input through the host's blocking reply path.

A native runtime may pause a turn to ask the user something. The harness keeps its own
protocol parsing and pending-request lifecycle; the host renders the questions
(`format_agent_harness_user_input_prompt`), asks through a `UserInputChannel`, waits at
most the normalised question timeout, and parses the reply back into per-question
answers (`build_agent_harness_user_input_answers`). The runtime's question JSON is read
once, here, into `UserInputQuestion` records.

Two channels ship here: `TerminalUserInputChannel` (a rich prompt; without a TTY it
answers None at once) and `PendingQuestions` (for an embedding application: the
question waits until the app calls `answer(question_id, text)`).
"""

from __future__ import annotations

import asyncio
import sys
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol, TextIO, runtime_checkable

from rich.console import Console
from rich.prompt import Prompt

from clawharness._json import JsonValue
from clawharness.harness.user_input import (
    UserInputAnswers,
    UserInputPromptOptions,
    UserInputQuestion,
    build_agent_harness_user_input_answers,
    empty_agent_harness_user_input_answers,
    format_agent_harness_user_input_prompt,
    normalize_question_timeout_seconds,
    parse_user_input_questions,
)

__all__ = [
    "PendingQuestions",
    "TerminalUserInputChannel",
    "UserInputChannel",
    "UserInputDelivery",
    "UserInputPrompt",
    "deliver_user_input_request",
]


@dataclass(frozen=True, slots=True)
class UserInputPrompt:
    """One question set as the user sees it, with what is needed to answer it."""

    question_id: str
    text: str
    questions: tuple[UserInputQuestion, ...]
    timeout_seconds: float
    run_id: str | None = None
    session_key: str | None = None


@runtime_checkable
class UserInputChannel(Protocol):
    """Where a question goes: returns the user's reply text, or None when no one answers."""

    async def ask(self, prompt: UserInputPrompt) -> str | None: ...


@dataclass(frozen=True, slots=True)
class UserInputDelivery:
    """The outcome; `answers.to_wire()` is what a native runtime expects back."""

    status: Literal["answered", "timeout", "unavailable"]
    answers: UserInputAnswers
    reply_text: str | None = None


async def deliver_user_input_request(
    channel: UserInputChannel | None,
    questions: Sequence[JsonValue],
    *,
    timeout_seconds: JsonValue = None,
    format_options: UserInputPromptOptions | None = None,
    run_id: str | None = None,
    session_key: str | None = None,
    question_id: str | None = None,
) -> UserInputDelivery:
    """Ask `questions` (the runtime's question JSON) through `channel` and parse the reply.

    `timeout_seconds` follows the shared question contract (integer, clamped to
    30..3600, 900 when None; a non-integer raises `ToolInputError`). No channel, no
    answer or a timeout all yield empty answers, so the harness can resume its runtime.
    """
    timeout = normalize_question_timeout_seconds(timeout_seconds)
    if channel is None:
        return UserInputDelivery("unavailable", empty_agent_harness_user_input_answers())
    parsed = parse_user_input_questions(questions)
    prompt = UserInputPrompt(
        question_id=question_id or f"q-{uuid.uuid4().hex[:12]}",
        text=format_agent_harness_user_input_prompt(parsed, format_options),
        questions=parsed,
        timeout_seconds=float(timeout),
        run_id=run_id,
        session_key=session_key,
    )
    try:
        async with asyncio.timeout(timeout):
            reply = await channel.ask(prompt)
    except TimeoutError:
        return UserInputDelivery("timeout", empty_agent_harness_user_input_answers())
    if reply is None:
        return UserInputDelivery("unavailable", empty_agent_harness_user_input_answers())
    answers = build_agent_harness_user_input_answers(parsed, reply)
    return UserInputDelivery("answered", answers, reply)


class TerminalUserInputChannel:
    """Ask on the terminal with a rich prompt; None at once when stdin is not a TTY.

    The blocking read runs in a worker thread. A timed-out question stops waiting for
    it, but a thread already blocked in `readline` ends only when a line arrives.
    """

    def __init__(
        self,
        *,
        console: Console | None = None,
        stream: TextIO | None = None,
        is_tty: Callable[[], bool] | None = None,
    ) -> None:
        self._console = console or Console(stderr=True)
        self._stream = stream
        self._is_tty = is_tty or (lambda: sys.stdin.isatty())

    async def ask(self, prompt: UserInputPrompt) -> str | None:
        if not self._is_tty():
            return None
        self._console.print(prompt.text, markup=False, highlight=False)

        def read() -> str:
            return Prompt.ask("Answer", console=self._console, stream=self._stream)

        try:
            reply = await asyncio.to_thread(read)
        except EOFError:
            return None
        return reply if reply.strip() else None


class PendingQuestions:
    """A library channel: questions wait until the embedding app answers them."""

    def __init__(self) -> None:
        self._waiting: dict[str, tuple[UserInputPrompt, asyncio.Future[str | None]]] = {}
        self._arrivals: asyncio.Queue[UserInputPrompt] = asyncio.Queue()

    async def ask(self, prompt: UserInputPrompt) -> str | None:
        if prompt.question_id in self._waiting:
            raise ValueError(f"question {prompt.question_id} is already pending")
        future: asyncio.Future[str | None] = asyncio.get_running_loop().create_future()
        self._waiting[prompt.question_id] = (prompt, future)
        self._arrivals.put_nowait(prompt)
        try:
            return await future
        finally:
            # a timeout or cancellation withdraws the question; a late answer is refused
            self._waiting.pop(prompt.question_id, None)

    def pending(self) -> tuple[UserInputPrompt, ...]:
        """Questions still waiting for an answer, oldest first."""
        return tuple(prompt for prompt, _ in self._waiting.values())

    async def next_question(self) -> UserInputPrompt:
        """Wait for the next question to be asked (it may have been withdrawn since)."""
        return await self._arrivals.get()

    def answer(self, question_id: str, text: str) -> bool:
        """Answer a pending question; False when it is unknown, withdrawn or answered."""
        entry = self._waiting.get(question_id)
        if entry is None or entry[1].done():
            return False
        entry[1].set_result(text)
        return True

    def cancel(self, question_id: str) -> bool:
        """Withdraw a pending question without an answer."""
        entry = self._waiting.get(question_id)
        if entry is None or entry[1].done():
            return False
        entry[1].set_result(None)
        return True
