"""Detail text for `tool_search_code` calls: which bridged tool the snippet calls.

The code-mode bridge runs snippets such as `openclaw.tools.call("web_search", {query:
"x"})`; the display names the called tool's input (`query x`) or what the snippet does
(`describe via tool search`, `search tools`, `run bridge code`).
"""

from __future__ import annotations

from typing import Any

from clawharness.tools._js import (
    as_object,
    js_get,
    js_len,
    js_regex,
    js_trim,
    normalize_optional_string,
)

__all__ = ["resolve_tool_search_code_detail"]

_CALL_PREFIX_RE = js_regex(r"openclaw\.tools\.call\s*\(\s*", "s")
_CALL_TARGET_RE = js_regex(r"^(\"[^\"]{1,240}\"|'[^']{1,240}'|[^,)\s]{1,240})", "s")
_ID_REFERENCE_RE = js_regex(r"^([A-Za-z_$][\w$]*)\.id\b", "s")
_DESCRIBE_BINDING_RE = js_regex(
    r"\b(?:const|let|var)\s+([A-Za-z_$][\w$]*)\s*=\s*(?:await\s+)?openclaw\.tools\.describe\s*\("
    r"\s*(\"[^\"]{1,240}\"|'[^']{1,240}')\s*(?:,|\))",
    "gs",
)
_LITERAL_RE = js_regex(r"^[\s]*[\"']([^\"']{1,160})[\"'][\s]*$", "s")
_ID_SUFFIX_RE = js_regex(r"\.id\b")
_ID_TAIL_RE = js_regex(r"\.id\b.*", "s")
_NAME_PROPERTY_RE = js_regex(r"name\s*:\s*[\"']([^\"']{1,120})[\"']", "s")
_WS_RUN_RE = js_regex(r"\s+", "g")
_TRAILING_CLOSE_RE = js_regex(r"[);\s]+$", "g")
_QUERY_RE = js_regex(r"query\s*:\s*[\"']([^\"']{1,80})[\"']", "s")
_ACTION_RE = js_regex(r"action\s*:\s*[\"']([^\"']{1,80})[\"']", "s")
_COMMAND_RE = js_regex(r"command\s*:\s*[\"']([^\"'\n]{1,120})[\"']", "s")
_SESSION_RE = js_regex(r"sessionId\s*:\s*[\"']([^\"']{1,80})[\"']", "s")
_ID_RE = js_regex(r"id\s*:\s*[\"']([^\"']{1,80})[\"']", "s")
_DESCRIBE_RE = js_regex(r"openclaw\.tools\.describe\s*\(\s*([^)]+?)\s*(?:,|\))", "s")
_SEARCH_RE = js_regex(r"openclaw\.tools\.search\s*\(\s*([^)]+?)\s*(?:,|\))", "s")


def _summarize_target(raw: str | None) -> str | None:
    value = normalize_optional_string(raw)
    if not value:
        return None
    literal = _LITERAL_RE.search(value)
    if literal and literal.group(1):
        return normalize_optional_string(literal.group(1))
    if _ID_SUFFIX_RE.search(value):
        return normalize_optional_string(_ID_TAIL_RE.sub("", value, count=1))
    named = _NAME_PROPERTY_RE.search(value)
    if named and named.group(1):
        return normalize_optional_string(named.group(1))
    compact = js_trim(_WS_RUN_RE.sub(" ", value))
    return compact if js_len(compact) <= 80 else None


def _call_target(code: str, raw_target: str) -> str | None:
    target = normalize_optional_string(raw_target)
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
    normalized = normalize_optional_string(raw)
    value = js_trim(_TRAILING_CLOSE_RE.sub("", normalized)) if normalized else ""
    if not value:
        return None
    query = _QUERY_RE.search(value)
    if query and query.group(1):
        return "query " + js_trim(query.group(1))
    action = _ACTION_RE.search(value)
    if action and action.group(1):
        return normalize_optional_string(action.group(1))
    command = _COMMAND_RE.search(value)
    if command and command.group(1):
        return normalize_optional_string(command.group(1))
    session = _SESSION_RE.search(value)
    if session and session.group(1):
        return "session " + js_trim(session.group(1))
    found_id = _ID_RE.search(value)
    if found_id and found_id.group(1):
        return js_trim(found_id.group(1))
    return None


def resolve_tool_search_code_detail(args: Any) -> str | None:
    """Detail for a `tool_search_code` call, or None without a `code` string."""
    record = as_object(args)
    code = js_get(record, "code") if record is not None else None
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
