"""Approvals and questions asked inline in a chat, and piped input."""

from __future__ import annotations

import io
from collections.abc import Iterable

import pytest
from rich.console import Console

from clawharness.cli.chat_input import (
    BUDGET_EXTEND,
    ChatApprovalGate,
    ChatQuestions,
    PipedLineReader,
)
from clawharness.harness.capabilities import ApprovalRequest
from clawharness.harness.user_input_delivery import UserInputPrompt


class _Answers:
    """A reader that answers questions from a list (an item may be KeyboardInterrupt)."""

    def __init__(self, answers: Iterable[str | type[KeyboardInterrupt] | None], *,
                 interactive: bool = True) -> None:
        self.interactive = interactive
        self._answers = list(answers)
        self.asked: list[tuple[str, bool]] = []

    async def read(self) -> str | None:
        return None

    async def ask(self, question: str, *, multiline: bool = False) -> str | None:
        self.asked.append((question, multiline))
        answer = self._answers.pop(0)
        if answer is KeyboardInterrupt:
            raise KeyboardInterrupt
        assert answer is None or isinstance(answer, str)
        return answer


def _request(tool: str = "exec", command: str = "uname -a") -> ApprovalRequest:
    return ApprovalRequest(run_id="r", session_key="agent:main:t", tool_name=tool,
                           arguments={"command": command}, reason="not on the allowlist",
                           cwd="/work")


def _console() -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=120, color_system=None), out


async def test_the_operator_is_shown_the_command_and_answers_once() -> None:
    reader = _Answers(["o"])
    console, out = _console()
    gate = ChatApprovalGate(reader, console, set(), lambda: None)
    assert await gate.decide(_request()) == "allow-once"
    assert "uname -a" in out.getvalue() and "not on the allowlist" in out.getvalue()
    assert len(reader.asked) == 1


async def test_always_is_remembered_for_later_turns_of_the_session() -> None:
    grants: set[str] = set()
    reader = _Answers(["a"])
    console, _ = _console()
    first = ChatApprovalGate(reader, console, grants, lambda: None)
    assert await first.decide(_request()) == "allow-always"
    # a later turn builds a new gate over the same grants: it does not ask again
    later = ChatApprovalGate(reader, console, grants, lambda: None)
    assert await later.decide(_request(command="uname -r")) == "allow-always"
    assert len(reader.asked) == 1 and grants == {"exec"}


@pytest.mark.parametrize("answer", ["d", "no", "", "whatever"])
async def test_anything_but_yes_or_always_denies(answer: str) -> None:
    gate = ChatApprovalGate(_Answers([answer]), _console()[0], set(), lambda: None)
    assert await gate.decide(_request()) == "deny"


async def test_ctrl_c_at_the_question_denies_and_aborts_the_turn() -> None:
    interrupted: list[bool] = []
    gate = ChatApprovalGate(_Answers([KeyboardInterrupt]), _console()[0], set(),
                            lambda: interrupted.append(True))
    assert await gate.decide(_request()) == "deny"
    assert interrupted == [True]


async def test_end_of_input_at_the_question_is_no_answer() -> None:
    gate = ChatApprovalGate(_Answers([None]), _console()[0], set(), lambda: None)
    assert await gate.decide(_request()) is None


async def test_without_a_terminal_an_approval_is_refused_and_says_why() -> None:
    reader = _Answers([], interactive=False)
    console, out = _console()
    gate = ChatApprovalGate(reader, console, set(), lambda: None)
    assert await gate.decide(_request()) is None
    assert reader.asked == []
    assert "no terminal to ask" in out.getvalue()


def _prompt(count: int) -> UserInputPrompt:
    questions = tuple({"id": f"q{i}", "question": f"Question {i}?"} for i in range(count))
    return UserInputPrompt(question_id="qid", text="Agent needs input:\nQuestion 0?",
                           questions=questions, timeout_seconds=60)


async def test_a_harness_question_is_shown_and_answered_inline() -> None:
    reader = _Answers(["blue"])
    console, out = _console()
    channel = ChatQuestions(reader, console, lambda: None)
    assert await channel.ask(_prompt(1)) == "blue"
    assert "Question 0?" in out.getvalue()
    assert reader.asked[0][1] is False  # one question: a single line


async def test_several_questions_take_a_multi_line_answer() -> None:
    reader = _Answers(["red\nsmall"])
    channel = ChatQuestions(reader, _console()[0], lambda: None)
    assert await channel.ask(_prompt(2)) == "red\nsmall"
    assert reader.asked[0][1] is True


async def test_a_blank_answer_or_no_terminal_is_no_answer() -> None:
    assert await ChatQuestions(_Answers(["  "]), _console()[0], lambda: None).ask(_prompt(1)) is None
    piped = _Answers([], interactive=False)
    assert await ChatQuestions(piped, _console()[0], lambda: None).ask(_prompt(1)) is None
    assert piped.asked == []


async def test_piped_lines_are_read_in_order_and_the_end_stays_the_end() -> None:
    reader = PipedLineReader(io.StringIO("one\r\ntwo\n\nthree"))
    assert [await reader.read() for _ in range(4)] == ["one", "two", "", "three"]
    assert await reader.read() is None
    assert await reader.read() is None
    assert await reader.ask("Allow?") is None


def _extend_request() -> ApprovalRequest:
    return ApprovalRequest(
        run_id="r", session_key="agent:main:t", tool_name=BUDGET_EXTEND,
        arguments={"budget": "day:2026-12-07", "measure": "usd", "by": "$2.00"},
        reason="the daily budget (day:2026-12-07) has no room for this turn ($9.99 of "
               "$10.00 used): extend it by $2.00?", cwd="/work")


@pytest.mark.parametrize(("answer", "decision"), [("y", "allow-once"), ("yes", "allow-once"),
                                                  ("a", "deny"), ("", "deny")])
async def test_a_budget_extension_is_asked_yes_or_no_and_never_remembered(
        answer: str, decision: str) -> None:
    grants: set[str] = set()
    reader = _Answers([answer, answer])
    console, out = _console()
    gate = ChatApprovalGate(reader, console, grants, lambda: None)
    assert await gate.decide(_extend_request()) == decision
    assert "extend it by $2.00?" in out.getvalue() and "wants to run" not in out.getvalue()
    assert reader.asked[0][0].startswith("Extend it? [y]es / [n]o")
    # the next extension is asked again: nothing was granted for the session
    assert await gate.decide(_extend_request()) == decision
    assert len(reader.asked) == 2 and grants == set()


def test_the_chat_knows_the_budget_extension_by_the_name_turns_ask_with() -> None:
    from clawharness.attempt.budget_step import EXTEND_TOOL

    assert BUDGET_EXTEND == EXTEND_TOOL

