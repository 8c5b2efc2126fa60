"""Conformance fragment: runtime plan, user-input helpers, harness preflight errors.

Maps the original's export names to the Python implementations. The two error classes
subclass the project's error tree and add the JavaScript `name`/own-field shape the
vectors record (see `props`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from clawharness import errors
from clawharness._jsvalue import UNDEFINED
from clawharness.attempt._js import js_string
from clawharness.attempt.runtime_plan import build_agent_runtime_plan
from clawharness.conformance.adapters_delivery import ConformantRuntimePlan
from clawharness.harness.user_input import (
    build_agent_harness_user_input_answers,
    empty_agent_harness_user_input_answers,
    format_agent_harness_user_input_prompt,
    normalize_agent_harness_user_input_answer,
    normalize_question_timeout_seconds,
)

__all__ = [
    "FUNCTIONS",
    "ConformantAgentHarnessPreflightError",
    "ConformantAgentHarnessSessionSupersededError",
]


def _options(value: Any) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


class ConformantAgentHarnessPreflightError(errors.AgentHarnessPreflightError):
    """`new AgentHarnessPreflightError(message, {scope?, userMessage?, cause?})`."""

    js_name = "AgentHarnessPreflightError"

    def __init__(self, message: Any = UNDEFINED, options: Any = UNDEFINED):
        opts = _options(options)
        text = "" if message is UNDEFINED else js_string(message)
        super().__init__(text, dict(opts))
        self.message = text
        self._options = opts

    @property
    def props(self) -> dict[str, Any]:
        """The error's own fields besides name and message, in the original's order."""
        out = {
            "scope": self._options.get("scope", UNDEFINED),
            "userMessage": self._options.get("userMessage", UNDEFINED),
        }
        if "cause" in self._options:
            out["cause"] = self._options["cause"]
        return out


class ConformantAgentHarnessSessionSupersededError(errors.AgentHarnessSessionSupersededError):
    """`new AgentHarnessSessionSupersededError(message, {cause?})`."""

    js_name = "AgentHarnessSessionSupersededError"

    def __init__(self, message: Any = UNDEFINED, options: Any = UNDEFINED):
        opts = _options(options)
        text = "" if message is UNDEFINED else js_string(message)
        super().__init__(text)
        self.message = text
        self._options = opts

    @property
    def props(self) -> dict[str, Any] | None:
        """`{cause}` when one was given; no extra fields otherwise."""
        return {"cause": self._options["cause"]} if "cause" in self._options else None


def _normalize_timeout(raw: Any = UNDEFINED) -> Any:
    return normalize_question_timeout_seconds(raw)


def _build_agent_runtime_plan(*args: Any) -> ConformantRuntimePlan:
    # `plan.delivery.isSilentPayload(payload)` receives the vectors' JavaScript payloads.
    return ConformantRuntimePlan(build_agent_runtime_plan(*args))


FUNCTIONS: dict[str, Any] = {
    "buildAgentRuntimePlan": _build_agent_runtime_plan,
    "buildAgentHarnessUserInputAnswers": build_agent_harness_user_input_answers,
    "emptyAgentHarnessUserInputAnswers": empty_agent_harness_user_input_answers,
    "normalizeAgentHarnessUserInputAnswer": normalize_agent_harness_user_input_answer,
    "formatAgentHarnessUserInputPrompt": format_agent_harness_user_input_prompt,
    "normalizeQuestionTimeoutSeconds": _normalize_timeout,
    "AgentHarnessPreflightError": ConformantAgentHarnessPreflightError,
    "AgentHarnessSessionSupersededError": ConformantAgentHarnessSessionSupersededError,
}
