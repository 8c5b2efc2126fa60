"""The user-input helpers at the conformance boundary.

The original reads question objects loosely: a prompt renders `String(header)` (so a
missing header of a numbered question shows "undefined") and `Array.join` renders a
missing one as empty; answers key on `String(id)`. These adapters decode the vectors'
question objects with those coercions, and encode answers with JavaScript's object key
order (integer-like keys first, ascending).
"""

from __future__ import annotations

import re
from typing import Any

from clawharness.conformance.jsrules import get, is_js_number, is_nullish, js_string, js_truthy
from clawharness.conformance.jsvalue import UNDEFINED, JsError
from clawharness.harness.user_input import (
    QUESTION_TIMEOUT_NOT_INTEGER,
    ToolInputError,
    UserInputAnswers,
    UserInputOption,
    UserInputPromptOptions,
    UserInputQuestion,
    build_agent_harness_user_input_answers,
    empty_agent_harness_user_input_answers,
    format_agent_harness_user_input_prompt,
    normalize_agent_harness_user_input_answer,
    normalize_question_timeout_seconds,
)

__all__ = ["FUNCTIONS"]

_ARRAY_INDEX = re.compile(r"^(?:0|[1-9][0-9]*)\Z")


def _joined(value: Any) -> str:
    # `Array.join` renders null and undefined as empty strings.
    return "" if is_nullish(value) else js_string(value)


def _options(question: Any, *, for_prompt: bool) -> tuple[UserInputOption, ...]:
    choices = get(question, "options")
    if not isinstance(choices, list):
        return ()
    options: list[UserInputOption] = []
    for choice in choices:
        label = get(choice, "label")
        description = get(choice, "description")
        options.append(UserInputOption(
            label=js_string(label) if for_prompt else label if isinstance(label, str) else None,
            description=js_string(description) if js_truthy(description) else None,
        ))
    return tuple(options)


def _question(value: Any, *, header: str, question: str, for_prompt: bool) -> UserInputQuestion:
    return UserInputQuestion(
        id=js_string(get(value, "id")),
        header=header,
        question=question,
        options=_options(value, for_prompt=for_prompt),
        multi_select=js_truthy(get(value, "multiSelect")),
        is_other=js_truthy(get(value, "isOther")),
        is_secret=js_truthy(get(value, "isSecret")),
    )


def _for_answers(value: Any) -> UserInputQuestion:
    return _question(value, header=js_string(get(value, "header")),
                     question=js_string(get(value, "question")), for_prompt=False)


def _js_key_order(answers: UserInputAnswers) -> dict[str, Any]:
    record = {qid: {"answers": list(values)} for qid, values in answers.answers.items()}
    index_keys = sorted(
        (k for k in record if _ARRAY_INDEX.match(k) and int(k) < 2**32 - 1), key=int)
    ordered = {key: record[key] for key in index_keys}
    ordered.update({k: v for k, v in record.items() if k not in ordered})
    return {"answers": ordered}


def _text_option(options: Any, name: str) -> str | None:
    value = get(options, name)
    return None if is_nullish(value) else js_string(value)


def _format(questions: Any = UNDEFINED, options: Any = UNDEFINED) -> str:
    several = len(questions) > 1
    decoded = [
        _question(
            q,
            # a numbered header goes through String(), a lone one through Array.join
            header=js_string(get(q, "header")) if several else _joined(get(q, "header")),
            question=_joined(get(q, "question")),
            for_prompt=True,
        )
        for q in questions
    ]
    custom = get(options, "formatText")
    return format_agent_harness_user_input_prompt(decoded, UserInputPromptOptions(
        intro=_text_option(options, "intro"),
        secret_warning=_text_option(options, "secretWarning"),
        other_label=_text_option(options, "otherLabel"),
        format_text=custom if callable(custom) else None,
    ))


def _build(questions: Any = UNDEFINED, input_text: Any = UNDEFINED) -> Any:
    if len(questions) == 1 and not js_truthy(questions[0]):
        return {"answers": {}}  # the original skips a lone falsy question
    answers = build_agent_harness_user_input_answers(
        [_for_answers(q) for q in questions], input_text)
    return _js_key_order(answers)


def _normalize_answer(answer: Any = UNDEFINED, question: Any = UNDEFINED) -> Any:
    normalized = normalize_agent_harness_user_input_answer(answer, _for_answers(question))
    return UNDEFINED if normalized is None else normalized


def _tool_input_error(exc: ToolInputError) -> JsError:
    return JsError("ToolInputError", str(exc), {"status": exc.status})


def _normalize_timeout(raw: Any = UNDEFINED) -> Any:
    try:
        if raw is UNDEFINED:
            return normalize_question_timeout_seconds(None)
        if not is_js_number(raw):
            # null is a value in the original, not an omitted timeout
            raise ToolInputError(QUESTION_TIMEOUT_NOT_INTEGER)
        return normalize_question_timeout_seconds(raw)
    except ToolInputError as exc:
        raise _tool_input_error(exc) from exc


def _empty() -> Any:
    return _js_key_order(empty_agent_harness_user_input_answers())


FUNCTIONS: dict[str, Any] = {
    "buildAgentHarnessUserInputAnswers": _build,
    "emptyAgentHarnessUserInputAnswers": _empty,
    "normalizeAgentHarnessUserInputAnswer": _normalize_answer,
    "formatAgentHarnessUserInputPrompt": _format,
    "normalizeQuestionTimeoutSeconds": _normalize_timeout,
}
