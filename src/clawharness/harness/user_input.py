"""Questions a harness asks the user mid-turn, and the answers parsed from a reply.

A native runtime may pause to ask the user something (pick an option, enter a name).
The harness renders the questions as plain text for any channel, then turns the user's
free-form reply back into per-question answers: by option number or label, by
`key: value` lines, or by position, one line per question.

Questions arrive as JSON from the native runtime; `parse_user_input_questions` reads
them once into `UserInputQuestion` records.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from clawharness._json import JsonObject, JsonValue
from clawharness._text import BLANK_CLASS, trim
from clawharness.errors import ToolError

__all__ = [
    "DEFAULT_QUESTION_TIMEOUT_SECONDS",
    "MAX_QUESTION_TIMEOUT_SECONDS",
    "MIN_QUESTION_TIMEOUT_SECONDS",
    "QUESTION_TIMEOUT_NOT_INTEGER",
    "ToolInputError",
    "UserInputAnswers",
    "UserInputOption",
    "UserInputPromptOptions",
    "UserInputQuestion",
    "build_agent_harness_user_input_answers",
    "empty_agent_harness_user_input_answers",
    "format_agent_harness_user_input_prompt",
    "normalize_agent_harness_user_input_answer",
    "normalize_question_timeout_seconds",
    "parse_user_input_questions",
]

#: how long a human question waits when the caller names no timeout
DEFAULT_QUESTION_TIMEOUT_SECONDS = 900
#: the shortest wait a caller may ask for
MIN_QUESTION_TIMEOUT_SECONDS = 30
#: the longest wait a caller may ask for
MAX_QUESTION_TIMEOUT_SECONDS = 3600
#: the refusal of a timeout that is not an integer number of seconds
QUESTION_TIMEOUT_NOT_INTEGER: Final = "timeoutSeconds must be an integer"

_DEFAULT_INTRO = "Agent needs input:"
_DEFAULT_SECRET_WARNING = "This channel may show your reply to other participants."
_DEFAULT_OTHER_LABEL = "Other: reply with your own answer."
_S = BLANK_CLASS
# `key: value` (or `=`, `-`); the value stops at no line terminator of any kind
_KEYED_LINE = re.compile(f"^{_S}*([^:=-]+?){_S}*[:=-]{_S}*([^\\n\\r\\u2028\\u2029]+?){_S}*\\Z",
                         re.ASCII)
_DIGITS = re.compile(r"^[0-9]+\Z")
_LINE_BREAK = re.compile(r"\r?\n")
_LIST_SEPARATOR = re.compile(r"[,;\n]")


class ToolInputError(ToolError):
    """A tool or question request carried invalid input (HTTP status 400)."""

    code = "tool_input_invalid"
    status = 400


@dataclass(frozen=True, slots=True)
class UserInputOption:
    """One choice a question offers. `label` is None when the runtime sent none."""

    label: str | None
    description: str | None = None


@dataclass(frozen=True, slots=True)
class UserInputQuestion:
    """One question: free text, or a pick from `options` (several with `multi_select`)."""

    id: str
    header: str = ""
    question: str = ""
    options: tuple[UserInputOption, ...] = ()
    multi_select: bool = False
    #: free text is accepted besides the options
    is_other: bool = False
    #: the answer is sensitive (a PIN, a token)
    is_secret: bool = False


@dataclass(frozen=True, slots=True)
class UserInputPromptOptions:
    """How a prompt is rendered; None keeps the default copy."""

    intro: str | None = None
    secret_warning: str | None = None
    other_label: str | None = None
    #: applied to every header, question, label and description (e.g. channel escaping)
    format_text: Callable[[str], str] | None = None


@dataclass(frozen=True, slots=True)
class UserInputAnswers:
    """The parsed answers: question id -> the answers picked or typed, in order."""

    answers: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def to_wire(self) -> JsonObject:
        """The native runtimes' shape: `{"answers": {id: {"answers": [...]}}}`."""
        return {"answers": {qid: {"answers": list(values)} for qid, values in self.answers.items()}}


def _text(value: JsonValue, default: str = "") -> str:
    return value if isinstance(value, str) else default


def _option(value: JsonValue) -> UserInputOption:
    if not isinstance(value, dict):
        return UserInputOption(None)
    label = value.get("label")
    description = value.get("description")
    return UserInputOption(label if isinstance(label, str) else None,
                           description if isinstance(description, str) and description else None)


def parse_user_input_questions(raw: Sequence[JsonValue]) -> tuple[UserInputQuestion, ...]:
    """Read a runtime's question list (`{id, header, question, options, multiSelect, isOther,
    isSecret}` objects); entries that are not objects are skipped."""
    questions: list[UserInputQuestion] = []
    for entry in raw:
        if not isinstance(entry, dict):
            continue
        options = entry.get("options")
        questions.append(UserInputQuestion(
            id=_text(entry.get("id")),
            header=_text(entry.get("header")),
            question=_text(entry.get("question")),
            options=tuple(_option(o) for o in options) if isinstance(options, list) else (),
            multi_select=entry.get("multiSelect") is True,
            is_other=entry.get("isOther") is True,
            is_secret=entry.get("isSecret") is True,
        ))
    return tuple(questions)


def empty_agent_harness_user_input_answers() -> UserInputAnswers:
    """An answer set with no answers."""
    return UserInputAnswers()


def format_agent_harness_user_input_prompt(
    questions: Sequence[UserInputQuestion], options: UserInputPromptOptions | None = None
) -> str:
    """Render questions as plain text: numbered when several, options listed per question."""
    opts = options or UserInputPromptOptions()
    fmt: Callable[[str], str] = opts.format_text or (lambda text: text)
    lines: list[str] = [_DEFAULT_INTRO if opts.intro is None else opts.intro]
    for index, question in enumerate(questions):
        header = fmt(question.header)
        lines.append("")
        lines.append(f"{index + 1}. {header}" if len(questions) > 1 else header)
        lines.append(fmt(question.question))
        if question.is_secret:
            lines.append(_DEFAULT_SECRET_WARNING if opts.secret_warning is None
                         else opts.secret_warning)
        for option_index, option in enumerate(question.options):
            suffix = f" - {fmt(option.description)}" if option.description else ""
            lines.append(f"{option_index + 1}. {fmt(option.label or '')}{suffix}")
        if question.is_other:
            lines.append(_DEFAULT_OTHER_LABEL if opts.other_label is None else opts.other_label)
    return "\n".join(lines)


def _declared_option(answer: str, question: UserInputQuestion) -> str | None:
    trimmed = trim(answer)
    options = question.options
    # Replies number options from one, as the prompt does.
    index = int(trimmed) - 1 if _DIGITS.match(trimmed) else -1
    if 0 <= index < len(options):
        return options[index].label or None
    wanted = trimmed.lower()
    for option in options:
        if option.label is not None and option.label.lower() == wanted:
            return option.label or None
    return None


def normalize_agent_harness_user_input_answer(answer: str, question: UserInputQuestion) -> str | None:
    """The declared option an answer names, the free text when allowed, else None."""
    trimmed = trim(answer)
    declared = _declared_option(trimmed, question)
    if declared:
        return declared
    if question.options and not question.is_other:
        return None
    return trimmed or None


def _normalize_answers(answer: str, question: UserInputQuestion) -> tuple[str, ...]:
    if not question.multi_select:
        normalized = normalize_agent_harness_user_input_answer(answer, question)
        return (normalized,) if normalized else ()
    # A declared label may itself contain a list separator, so match it whole first.
    declared = _declared_option(answer, question)
    if declared:
        return (declared,)
    picked: list[str] = []
    for part in _LIST_SEPARATOR.split(answer):
        normalized = normalize_agent_harness_user_input_answer(part, question)
        if normalized and normalized not in picked:
            picked.append(normalized)
    return tuple(picked)


def _keyed_answers(input_text: str) -> dict[str, str]:
    answers: dict[str, str] = {}
    for line in _LINE_BREAK.split(input_text):
        match = _KEYED_LINE.match(line)
        if not match:
            continue
        key = trim(match.group(1)).lower()
        value = trim(match.group(2))
        if key and value:
            answers[key] = value
    return answers


def build_agent_harness_user_input_answers(
    questions: Sequence[UserInputQuestion], input_text: str
) -> UserInputAnswers:
    """Parse a user's reply into per-question answers."""
    if len(questions) == 1:
        question = questions[0]
        return UserInputAnswers({question.id: _normalize_answers(input_text, question)})
    answers: dict[str, tuple[str, ...]] = {}
    keyed = _keyed_answers(input_text)
    # Unkeyed replies are positional; blank lines keep later answers on their questions.
    fallback_lines = [trim(line) for line in _LINE_BREAK.split(input_text)]
    for index, question in enumerate(questions):
        answer: str | None = None
        for candidate in (question.id.lower(), question.header.lower(),
                          question.question.lower(), str(index + 1)):
            if candidate in keyed:
                answer = keyed[candidate]
                break
        if answer is None:
            answer = fallback_lines[index] if index < len(fallback_lines) else ""
        answers[question.id] = _normalize_answers(answer, question) if answer else ()
    return UserInputAnswers(answers)


def normalize_question_timeout_seconds(raw_timeout_seconds: JsonValue = None) -> int:
    """Clamp a question's wait to 30..3600 seconds; 900 when none is given (None).

    Raises `ToolInputError` for anything but an integer number (1.5, "10", true).
    """
    if raw_timeout_seconds is None:
        return DEFAULT_QUESTION_TIMEOUT_SECONDS
    value = raw_timeout_seconds
    if (
        isinstance(value, bool)
        or not isinstance(value, (int, float))
        or not math.isfinite(value)
        or not float(value).is_integer()
    ):
        raise ToolInputError(QUESTION_TIMEOUT_NOT_INTEGER)
    return int(min(MAX_QUESTION_TIMEOUT_SECONDS, max(MIN_QUESTION_TIMEOUT_SECONDS, value)))
