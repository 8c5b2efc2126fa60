"""Small readers for the generic tool-result shape (`{content, details}`).

These mirror the original's tool-result error helpers closely enough for delivery
classification: where `details` lives, and whether `details` says the call failed.
"""

from __future__ import annotations

from typing import Any

from clawharness._jsvalue import JsMap
from clawharness.delivery._coerce import (
    normalize_optional_lowercase,
)
from clawharness.tools.results import is_tool_result_error

__all__ = [
    "is_tool_result_error",
    "normalize_tool_policy_name",
    "read_tool_result_details",
    "read_tool_result_status",
]

_TOOL_NAME_ALIASES = {"bash": "exec", "apply-patch": "apply_patch", "cron": "automations"}
_FAILURE_STATUSES = frozenset(
    {
        "error",
        "failed",
        "failure",
        "timeout",
        "timed_out",
        "blocked",
        "denied",
        "forbidden",
        "disabled",
        "approval-unavailable",
        "unavailable",
        "aborted",
        "cancelled",
        "canceled",
        "killed",
        "invalid",
    }
)


def read_tool_result_details(result: Any) -> dict[str, Any] | None:
    """The result's `details` object, when it has one."""
    if not isinstance(result, dict) or isinstance(result, JsMap):
        return None
    details = result.get("details")
    if isinstance(details, dict) and not isinstance(details, JsMap):
        return details
    return None


def read_tool_result_status(result: Any) -> str | None:
    """`details.status`, trimmed and lowercased."""
    details = read_tool_result_details(result)
    return normalize_optional_lowercase(details.get("status")) if details is not None else None




def normalize_tool_policy_name(name: Any) -> str:
    """Lowercased, trimmed tool name with the policy aliases (`bash` -> `exec`) applied."""
    normalized = normalize_optional_lowercase(name) or ""
    return _TOOL_NAME_ALIASES.get(normalized, normalized)
