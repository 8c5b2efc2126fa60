"""Small readers for the generic tool-result shape (`{content, details}`).

Where `details` lives, what its status says, whether it reports a failure, and the policy
name of a tool, as delivery classification and the tool-result rules
(`clawharness.tools.results`) need them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Final

from clawharness._json import JsonObject, JsonValue
from clawharness._text import trim
from clawharness.delivery._coerce import as_record, normalize_optional_lowercase

__all__ = [
    "is_tool_result_error",
    "normalize_tool_policy_name",
    "read_tool_result_details",
    "read_tool_result_status",
]

_TOOL_NAME_ALIASES = {"bash": "exec", "apply-patch": "apply_patch", "cron": "automations"}


def read_tool_result_details(result: JsonValue) -> JsonObject | None:
    """The result's `details` object, when it has one."""
    record = as_record(result)
    return as_record(record.get("details")) if record is not None else None


def read_tool_result_status(result: JsonValue) -> str | None:
    """`details.status`, trimmed and lowercased."""
    details = read_tool_result_details(result)
    return normalize_optional_lowercase(details.get("status")) if details is not None else None


def normalize_tool_policy_name(name: str | None) -> str:
    """Lowercased, trimmed tool name with the policy aliases (`bash` -> `exec`) applied."""
    normalized = normalize_optional_lowercase(name) or ""
    return _TOOL_NAME_ALIASES.get(normalized, normalized)


_ERROR_STATUSES: Final = frozenset(
    [
        "error",
        "failed",
        "failure",
        "timeout",
        "timed_out",
        "blocked",
        "denied",
        "forbidden",
        "unavailable",
        "approval-unavailable",
        "disabled",
        "aborted",
        "cancelled",
        "canceled",
        "killed",
        "invalid",
    ]
)


def _lowered(value: JsonValue) -> str | None:
    """A string value trimmed and lower-cased, or None for blanks and other values."""
    if not isinstance(value, str):
        return None
    return trim(value).lower() or None


def _details_of(result: JsonValue | Mapping[str, JsonValue]) -> Mapping[str, JsonValue] | None:
    """The result's `details` object (not an array), or None; any mapping is read like the
    JSON object it stands for."""
    details = result.get("details") if isinstance(result, Mapping) else None
    return details if isinstance(details, Mapping) else None


def _finite_number(value: JsonValue) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value if math.isfinite(value) else None


def _says_something(value: JsonValue) -> bool:
    """Whether an `error` value reports a failure: what is true in Python, except that an
    empty object or array does count (as in the original) and NaN does not."""
    if isinstance(value, list | Mapping):
        return True
    if isinstance(value, float) and math.isnan(value):
        return False
    return bool(value)


def is_tool_result_error(result: JsonValue | Mapping[str, JsonValue]) -> bool:
    """True when the result's details report failure."""
    details = _details_of(result)
    if details is None:
        return False
    status = _lowered(details.get("status"))
    ok, success = details.get("ok"), details.get("success")
    if ok is False or success is False:
        return True
    if status in _ERROR_STATUSES and not (ok is True or success is True):
        return True
    if details.get("timedOut") is True or _says_something(details.get("error")):
        return True
    if status == "completed":
        return False
    exit_code = _finite_number(details.get("exitCode"))
    return exit_code is not None and exit_code != 0
