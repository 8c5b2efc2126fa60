"""Detail text for `tool_search_code` calls: which bridged tool the snippet calls.

The code-mode bridge runs snippets such as `openclaw.tools.call("web_search", {query:
"x"})`; the display names the called tool's input (`query x`) or what the snippet does
(`describe via tool search`, `search tools`, `run bridge code`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Final

from clawharness._json import JsonValue
from clawharness._text import BLANK_CLASS, trim
from clawharness._utf16 import utf16_len

__all__ = ["resolve_tool_search_code_detail"]

_B = BLANK_CLASS
_BM = BLANK_CLASS[1:-1]
# `.` below stops only at "\n", as in the original's patterns (no DOTALL).
_CALL_PREFIX_RE: Final = re.compile(rf"openclaw\.tools\.call{_B}*\({_B}*", re.ASCII)
_CALL_TARGET_RE: Final = re.compile(rf"^(\"[^\"]{{1,240}}\"|'[^']{{1,240}}'|[^,){_BM}]{{1,240}})", re.ASCII)
_ID_REFERENCE_RE: Final = re.compile(r"^([A-Za-z_$][\w$]*)\.id\b", re.ASCII)
_DESCRIBE_BINDING_RE: Final = re.compile(
    rf"\b(?:const|let|var){_B}+([A-Za-z_$][\w$]*){_B}*={_B}*(?:await{_B}+)?"
    rf"openclaw\.tools\.describe{_B}*\({_B}*(\"[^\"]{{1,240}}\"|'[^']{{1,240}}'){_B}*(?:,|\))",
    re.ASCII,
)
_LITERAL_RE: Final = re.compile(rf"^[{_BM}]*[\"']([^\"']{{1,160}})[\"'][{_BM}]*\Z", re.ASCII)
_ID_SUFFIX_RE: Final = re.compile(r"\.id\b", re.ASCII)
_ID_TAIL_RE: Final = re.compile(r"\.id\b.*", re.ASCII)
_NAME_PROPERTY_RE: Final = re.compile(rf"name{_B}*:{_B}*[\"']([^\"']{{1,120}})[\"']", re.ASCII)
_BLANK_RUN_RE: Final = re.compile(rf"{_B}+", re.ASCII)
_TRAILING_CLOSE_RE: Final = re.compile(rf"[);{_BM}]+\Z", re.ASCII)
_QUERY_RE: Final = re.compile(rf"query{_B}*:{_B}*[\"']([^\"']{{1,80}})[\"']", re.ASCII)
_ACTION_RE: Final = re.compile(rf"action{_B}*:{_B}*[\"']([^\"']{{1,80}})[\"']", re.ASCII)
_COMMAND_RE: Final = re.compile(rf"command{_B}*:{_B}*[\"']([^\"'\n]{{1,120}})[\"']", re.ASCII)
_SESSION_RE: Final = re.compile(rf"sessionId{_B}*:{_B}*[\"']([^\"']{{1,80}})[\"']", re.ASCII)
_ID_RE: Final = re.compile(rf"id{_B}*:{_B}*[\"']([^\"']{{1,80}})[\"']", re.ASCII)
_DESCRIBE_RE: Final = re.compile(rf"openclaw\.tools\.describe{_B}*\({_B}*([^)]+?){_B}*(?:,|\))", re.ASCII)
_SEARCH_RE: Final = re.compile(rf"openclaw\.tools\.search{_B}*\({_B}*([^)]+?){_B}*(?:,|\))", re.ASCII)


def _clean(value: str | None) -> str | None:
    """`value` trimmed, or None when it is absent or blank."""
    trimmed = trim(value) if value is not None else ""
    return trimmed or None


def _summarize_target(raw: str | None) -> str | None:
    value = _clean(raw)
    if not value:
        return None
    literal = _LITERAL_RE.search(value)
    if literal and literal.group(1):
        return _clean(literal.group(1))
    if _ID_SUFFIX_RE.search(value):
        return _clean(_ID_TAIL_RE.sub("", value, count=1))
    named = _NAME_PROPERTY_RE.search(value)
    if named and named.group(1):
        return _clean(named.group(1))
    compact = trim(_BLANK_RUN_RE.sub(" ", value))
    return compact if utf16_len(compact) <= 80 else None


def _call_target(code: str, raw_target: str) -> str | None:
    target = _clean(raw_target)
    if not target:
        return None
    reference = _ID_REFERENCE_RE.search(target)
    if reference and reference.group(1):
        bindings: dict[str, str] = {}
        for match in _DESCRIBE_BINDING_RE.finditer(code):
            summarized = _summarize_target(match.group(2))
            if match.group(1) and summarized:
                bindings[match.group(1)] = summarized
        described = bindings.get(reference.group(1))
        if described:
            return described
    return _summarize_target(target)


def _call_input_summary(raw: str | None) -> str | None:
    normalized = _clean(raw)
    value = trim(_TRAILING_CLOSE_RE.sub("", normalized)) if normalized else ""
    if not value:
        return None
    query = _QUERY_RE.search(value)
    if query and query.group(1):
        return "query " + trim(query.group(1))
    action = _ACTION_RE.search(value)
    if action and action.group(1):
        return _clean(action.group(1))
    command = _COMMAND_RE.search(value)
    if command and command.group(1):
        return _clean(command.group(1))
    session = _SESSION_RE.search(value)
    if session and session.group(1):
        return "session " + trim(session.group(1))
    found_id = _ID_RE.search(value)
    if found_id and found_id.group(1):
        return trim(found_id.group(1))
    return None


def resolve_tool_search_code_detail(record: Mapping[str, JsonValue] | None) -> str | None:
    """Detail for a `tool_search_code` call (`record`: its arguments), or None without
    a `code` string."""
    code = record.get("code") if record is not None else None
    if not isinstance(code, str):
        return None
    prefix = _CALL_PREFIX_RE.search(code)
    if prefix is not None:
        rest = code[prefix.end() :]
        target = _CALL_TARGET_RE.search(rest)
        if target is not None and target.group(1):
            after = rest[len(target.group(0)) :]
            comma = after.find(",")
            call_args = after[comma + 1 :] if comma >= 0 else None
            if not _call_target(code, target.group(1)):
                return "call selected tool"
            return _call_input_summary(call_args)
    describe = _DESCRIBE_RE.search(code)
    if describe is not None:
        return (
            "describe via tool search"
            if _summarize_target(describe.group(1))
            else "describe selected tool"
        )
    search = _SEARCH_RE.search(code)
    if search is not None:
        query = _summarize_target(search.group(1))
        return "search " + query if query else "search tools"
    return "run bridge code"
