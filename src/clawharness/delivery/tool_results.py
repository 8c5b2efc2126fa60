"""Small readers for the generic tool-result shape (`{content, details}`).

Where `details` lives, what its status says, and the policy name of a tool, as delivery
classification needs them.
"""

from __future__ import annotations

from clawharness._json import JsonObject, JsonValue
from clawharness.delivery._coerce import as_record, normalize_optional_lowercase
from clawharness.tools.results import is_tool_result_error

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
