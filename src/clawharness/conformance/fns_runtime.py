"""Conformance fragment: runtime plan, user-input helpers, harness preflight errors.

Maps the original's export names to adapters that decode the vectors' JavaScript
arguments into the core's typed values (`js_runtime_plan`, `js_user_input`). The two
error classes subclass the project's error tree and add the JavaScript `name`/own-field
shape the vectors record (see `props`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from clawharness import errors
from clawharness.conformance import js_user_input
from clawharness.conformance.js_runtime_plan import build_runtime_plan_view
from clawharness.conformance.jsrules import js_string
from clawharness.conformance.jsvalue import UNDEFINED

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


FUNCTIONS: dict[str, Any] = {
    "buildAgentRuntimePlan": build_runtime_plan_view,
    **js_user_input.FUNCTIONS,
    "AgentHarnessPreflightError": ConformantAgentHarnessPreflightError,
    "AgentHarnessSessionSupersededError": ConformantAgentHarnessSessionSupersededError,
}
