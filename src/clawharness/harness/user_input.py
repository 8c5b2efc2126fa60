"""Questions a harness asks the user mid-turn, and the answers parsed from a reply.

A native runtime may pause to ask the user something (pick an option, enter a name).
The harness renders the questions as plain text for any channel, then turns the user's
free-form reply back into per-question answers: by option number or label, by
`key: value` lines, or by position, one line per question.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from clawharness._jsvalue import UNDEFINED
from clawharness.attempt._js import get, is_js_number, js_regex, js_string, js_trim, js_truthy
from clawharness.errors import ToolError

__all__ = [
    "DEFAULT_QUESTION_TIMEOUT_SECONDS",
    "MAX_QUESTION_TIMEOUT_SECONDS",
    "MIN_QUESTION_TIMEOUT_SECONDS",
    "ToolInputError",
    "build_agent_harness_user_input_answers",
    "empty_agent_harness_user_input_answers",
    "format_agent_harness_user_input_prompt",
    "normalize_agent_harness_user_input_answer",
    "normalize_question_timeout_seconds",
]

#: how long a human question waits when the caller names no timeout
DEFAULT_QUESTION_TIMEOUT_SECONDS = 900
#: the shortest wait a caller may ask for
MIN_QUESTION_TIMEOUT_SECONDS = 30
#: the longest wait a caller may ask for
MAX_QUESTION_TIMEOUT_SECONDS = 3600

_DEFAULT_INTRO = "Agent needs input:"
_DEFAULT_SECRET_WARNING = "This channel may show your reply to other participants."
_DEFAULT_OTHER_LABEL = "Other: reply with your own answer."
_KEYED_LINE = js_regex(r"^\s*([^:=-]+?)\s*[:=-]\s*(.+?)\s*$")
_DIGITS = re.compile(r"^[0-9]+\Z")
_LINE_BREAK = re.compile(r"\r?\n")
_LIST_SEPARATOR = re.compile(r"[,;\n]")
_ARRAY_INDEX = re.compile(r"^(?:0|[1-9][0-9]*)\Z")


class ToolInputError(ToolError):
    """A tool or question request carried invalid input (HTTP status 400)."""

    code = "tool_input_invalid"
    js_name = "ToolInputError"
    status = 400

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    @property
    def props(self) -> dict[str, Any]:
        """The error's extra own fields, as the original attaches them."""
        return {"status": self.status}


def empty_agent_harness_user_input_answers() -> dict[str, Any]:
    """An answer set with no answers."""
    return {"answers": {}}


def _join(lines: Sequence[Any]) -> str:
    # Array.join renders null and undefined as empty strings.
    return "\n".join("" if line is None or line is UNDEFINED else js_string(line) for line in lines)


def format_agent_harness_user_input_prompt(
    questions: Sequence[Mapping[str, Any]], options: Mapping[str, Any] | None = None
) -> str:
    """Render questions as plain text: numbered when several, options listed per question."""
    opts: Mapping[str, Any] = options or {}
    custom_format = get(opts, "formatText")
    format_text: Callable[[Any], Any] = custom_format if callable(custom_format) else (lambda t: t)
    intro = get(opts, "intro")
    lines: list[Any] = [_DEFAULT_INTRO if intro is UNDEFINED or intro is None else intro]
    for index, question in enumerate(questions):
        header = format_text(get(question, "header"))
        body = format_text(get(question, "question"))
        if len(questions) > 1:
            lines.extend(["", f"{index + 1}. {js_string(header)}", body])
        else:
            lines.extend(["", header, body])
        if js_truthy(get(question, "isSecret")):
            warning = get(opts, "secretWarning")
            lines.append(_DEFAULT_SECRET_WARNING if warning in (None, UNDEFINED) else warning)
        choices = get(question, "options")
        for option_index, option in enumerate(choices if isinstance(choices, list) else []):
            description = get(option, "description")
            suffix = f" - {js_string(format_text(description))}" if js_truthy(description) else ""
            lines.append(
                f"{option_index + 1}. {js_string(format_text(get(option, 'label')))}{suffix}"
            )
        if js_truthy(get(question, "isOther")):
            other = get(opts, "otherLabel")
            lines.append(_DEFAULT_OTHER_LABEL if other in (None, UNDEFINED) else other)
    return _join(lines)


def _declared_option(answer: str, question: Mapping[str, Any]) -> Any:
    trimmed = js_trim(answer)
    choices = get(question, "options")
    options = choices if isinstance(choices, list) else []
    # Replies number options from one, as the prompt does.
    index = int(trimmed) - 1 if _DIGITS.match(trimmed) else -1
    indexed = options[index] if 0 <= index < len(options) else UNDEFINED
    if js_truthy(indexed):
        return get(indexed, "label")
    wanted = trimmed.lower()
    for option in options:
        label = get(option, "label")
        if isinstance(label, str) and label.lower() == wanted:
            return label
    return UNDEFINED


def normalize_agent_harness_user_input_answer(answer: str, question: Mapping[str, Any]) -> Any:
    """The declared option an answer names, the free text when allowed, else `undefined`."""
    trimmed = js_trim(answer)
    declared = _declared_option(trimmed, question)
    if js_truthy(declared):
        return declared
    choices = get(question, "options")
    if isinstance(choices, list) and len(choices) > 0 and not js_truthy(get(question, "isOther")):
        return UNDEFINED
    return trimmed if trimmed else UNDEFINED


def _normalize_answers(answer: str, question: Mapping[str, Any]) -> list[Any]:
    if not js_truthy(get(question, "multiSelect")):
        normalized = normalize_agent_harness_user_input_answer(answer, question)
        return [normalized] if js_truthy(normalized) else []
    # A declared label may itself contain a list separator, so match it whole first.
    declared = _declared_option(answer, question)
    if js_truthy(declared):
        return [declared]
    picked: list[Any] = []
    for part in _LIST_SEPARATOR.split(answer):
        normalized = normalize_agent_harness_user_input_answer(part, question)
        if js_truthy(normalized) and normalized not in picked:
            picked.append(normalized)
    return picked


def _keyed_answers(input_text: str) -> dict[str, str]:
    answers: dict[str, str] = {}
    for line in _LINE_BREAK.split(input_text):
        match = _KEYED_LINE.match(line)
        if not match:
            continue
        key = js_trim(match.group(1)).lower()
        value = js_trim(match.group(2))
        if key and value:
            answers[key] = value
    return answers


def _js_key_order(record: dict[str, Any]) -> dict[str, Any]:
    # JavaScript objects list array-index keys first, ascending, then the rest in order.
    index_keys = sorted(
        (k for k in record if _ARRAY_INDEX.match(k) and int(k) < 2**32 - 1), key=int
    )
    ordered = {key: record[key] for key in index_keys}
    ordered.update({k: v for k, v in record.items() if k not in ordered})
    return ordered


def build_agent_harness_user_input_answers(
    questions: Sequence[Mapping[str, Any]], input_text: str
) -> dict[str, Any]:
    """Parse a user's reply into `{"answers": {question_id: {"answers": [...]}}}`."""
    answers: dict[str, Any] = {}
    if len(questions) == 1:
        question = questions[0]
        if js_truthy(question):
            answers[js_string(get(question, "id"))] = {
                "answers": _normalize_answers(input_text, question)
            }
        return {"answers": _js_key_order(answers)}
    keyed = _keyed_answers(input_text)
    # Unkeyed replies are positional; blank lines keep later answers on their questions.
    fallback_lines = [js_trim(line) for line in _LINE_BREAK.split(input_text)]
    for index, question in enumerate(questions):
        answer: Any = UNDEFINED
        for candidate in (
            js_string(get(question, "id")).lower(),
            js_string(get(question, "header")).lower(),
            js_string(get(question, "question")).lower(),
            str(index + 1),
        ):
            if candidate in keyed:
                answer = keyed[candidate]
                break
        if answer is UNDEFINED:
            answer = fallback_lines[index] if index < len(fallback_lines) else ""
        answers[js_string(get(question, "id"))] = {
            "answers": _normalize_answers(answer, question) if answer else []
        }
    return {"answers": _js_key_order(answers)}


def normalize_question_timeout_seconds(raw_timeout_seconds: Any = UNDEFINED) -> int | float:
    """Clamp a question's wait to 30..3600 seconds; 900 when none is given."""
    if raw_timeout_seconds is UNDEFINED:
        return DEFAULT_QUESTION_TIMEOUT_SECONDS
    if (
        not is_js_number(raw_timeout_seconds)
        or not math.isfinite(raw_timeout_seconds)
        or not float(raw_timeout_seconds).is_integer()
    ):
        raise ToolInputError("timeoutSeconds must be an integer")
    seconds: int | float = raw_timeout_seconds
    return min(MAX_QUESTION_TIMEOUT_SECONDS, max(MIN_QUESTION_TIMEOUT_SECONDS, seconds))
