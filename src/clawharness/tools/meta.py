"""Compact, redacted one-line details for tool calls (`inferToolMetaFromArgs`).

Progress logs and transcripts show a tool call as `emoji Label: detail`. The detail is
derived from the arguments: file tools show their path (`lines 5-7 from a.txt`), shell
tools a command summary, web tools their query or URL, other tools the first useful
argument keys from the display config. Every detail is redacted before display.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

from clawharness._jsvalue import UNDEFINED
from clawharness.tools._js import (
    as_object,
    is_js_number,
    is_js_object,
    js_get,
    js_len,
    js_number_to_string,
    js_split_first_line,
    js_trim,
    lower_or_empty,
    normalize_optional_string,
    slice_utf16_safe,
)
from clawharness.tools.display_config import (
    FALLBACK_DETAIL_KEYS,
    FALLBACK_EMOJI,
    TOOL_DISPLAY_SPECS,
    ToolDisplaySpec,
)
from clawharness.tools.exec_display import resolve_exec_detail
from clawharness.tools.redact import redact_tool_detail, redact_tool_payload_text
from clawharness.tools.tool_search_display import resolve_tool_search_code_detail

__all__ = [
    "ToolDisplay",
    "infer_tool_meta_from_args",
    "resolve_tool_display",
    "shorten_home_in_string",
]

_ARRAY_DEPTH_LIMIT = 64
_MAX_DETAIL_ENTRIES = 8
_LABEL_OVERRIDES = {
    "agentId": "agent",
    "sessionKey": "session",
    "targetId": "target",
    "targetUrl": "url",
    "nodeId": "node",
    "requestId": "request",
    "messageId": "message",
    "threadId": "thread",
    "channelId": "channel",
    "guildId": "guild",
    "userId": "user",
    "runTimeoutSeconds": "timeout",
    "timeoutSeconds": "timeout",
    "includeTools": "tools",
    "pollQuestion": "poll",
    "maxChars": "max chars",
}
_PLAN_PROGRESS_TOOLS = frozenset({"progress_card", "update_plan"})
_CAMEL_BOUNDARY_RE = re.compile(r"([a-z0-9])([A-Z])")


@dataclass(frozen=True, slots=True)
class ToolDisplay:
    """How a tool call is presented: name, emoji, title/label, action verb and detail."""

    name: str
    emoji: str
    title: str
    label: str
    verb: str | None
    detail: str | None


def shorten_home_in_string(text: str, home_dir: str | None, prefix: str = "~") -> str:
    """Replace every occurrence of the home directory with `~` (or `prefix`)."""
    if not text or not home_dir:
        return text
    return text.replace(home_dir, prefix)


def _coerce(value: Any, depth: int = 0) -> str | None:
    """One display string for an argument value (first line, capped; None to skip)."""
    if depth > _ARRAY_DEPTH_LIMIT or value is None or value is UNDEFINED:
        return None
    if isinstance(value, str):
        trimmed = js_trim(value)
        if not trimmed:
            return None
        raw_line = normalize_optional_string(js_split_first_line(trimmed)) or ""
        if not raw_line:
            return None
        first_line = redact_tool_payload_text(raw_line)
        if js_len(first_line) > 160:
            return f"{slice_utf16_safe(first_line, 0, 79)}…{slice_utf16_safe(first_line, -80)}"
        return first_line
    if isinstance(value, bool):
        return "true" if value else None
    if is_js_number(value):
        if not math.isfinite(value) or value == 0:
            return None
        return js_number_to_string(value)
    if type(value) is list:
        values: list[str] = []
        for item in value:
            display = _coerce(item, depth + 1)
            if not display:
                continue
            if len(values) == 3:
                return f"{', '.join(values)}…"
            values.append(display)
        return ", ".join(values) if values else None
    return None


def _lookup(args: Any, path: str) -> Any:
    if not is_js_object(args):
        return UNDEFINED
    current = args
    for segment in path.split("."):
        if not segment or not is_js_object(current):
            return UNDEFINED
        current = js_get(current, segment)
    return current


def _format_key(raw: str) -> str:
    last = ""
    for segment in raw.split("."):
        if segment:
            last = segment
    last = last or raw
    if last in _LABEL_OVERRIDES:
        return _LABEL_OVERRIDES[last]
    spaced = _CAMEL_BOUNDARY_RE.sub(r"\1 \2", last.replace("_", " ").replace("-", " "))
    return lower_or_empty(spaced) or lower_or_empty(last)


def _detail_from_keys(args: Any, keys: tuple[str, ...]) -> str | None:
    entries: list[tuple[str, str]] = []
    for key in keys:
        display = _coerce(_lookup(args, key))
        if display:
            entries.append((_format_key(key), display))
    if not entries:
        return None
    if len(entries) == 1:
        return entries[0][1]
    unique: list[tuple[str, str]] = []
    seen: set[str] = set()
    for label, value in entries:
        token = f"{label}:{value}"
        if token not in seen:
            seen.add(token)
            unique.append((label, value))
    return ", ".join(f"{label} {value}" for label, value in unique[:_MAX_DETAIL_ENTRIES])


def _path_arg(record: Any) -> str | None:
    for key in ("path", "file_path", "filePath"):
        candidate = js_get(record, key)
        if isinstance(candidate, str) and js_trim(candidate):
            return js_trim(candidate)
    return None


def _finite_floor(value: Any) -> float | None:
    if is_js_number(value) and math.isfinite(value):
        return float(math.floor(value))
    return None


def _num(value: float) -> str:
    return js_number_to_string(value)


def _read_detail(record: Any) -> str | None:
    path = _path_arg(record)
    if not path:
        return None
    offset_raw = _finite_floor(js_get(record, "offset"))
    limit_raw = _finite_floor(js_get(record, "limit"))
    offset = max(1.0, offset_raw) if offset_raw is not None else None
    limit = max(1.0, limit_raw) if limit_raw is not None else None
    if offset is not None and limit is not None:
        unit = "line" if limit == 1 else "lines"
        return f"{unit} {_num(offset)}-{_num(offset + limit - 1)} from {path}"
    if offset is not None:
        return f"from line {_num(offset)} in {path}"
    if limit is not None:
        return f"first {_num(limit)} {'line' if limit == 1 else 'lines'} of {path}"
    return f"from {path}"


def _write_detail(tool_key: str, record: Any) -> str | None:
    path = _path_arg(record) or normalize_optional_string(js_get(record, "url"))
    if not path:
        return None
    if tool_key == "attach":
        return f"from {path}"
    prefix = "in" if tool_key == "edit" else "to"
    content = None
    for key in ("content", "newText", "new_string"):
        candidate = js_get(record, key)
        if isinstance(candidate, str):
            content = candidate
            break
    if content:
        return f"{prefix} {path} ({js_len(content)} chars)"
    return f"{prefix} {path}"


def _positive_floor(record: Any, keys: tuple[str, ...]) -> float | None:
    for key in keys:
        value = js_get(record, key)
        if is_js_number(value) and math.isfinite(value) and value > 0:
            return float(math.floor(value))
    return None


def _web_search_queries(record: Any) -> list[str]:
    queries: list[str] = []

    def add(value: Any) -> None:
        normalized = normalize_optional_string(value)
        if normalized and normalized not in queries:
            queries.append(normalized)

    for key in ("query", "q", "search", "input", "objective"):
        add(js_get(record, key))
    for key in ("search_query", "image_query", "queries", "search_queries"):
        value = js_get(record, key)
        if type(value) is not list:
            continue
        for entry in value:
            if isinstance(entry, str):
                add(entry)
                continue
            if is_js_object(entry):
                for inner in ("query", "q", "search"):
                    add(js_get(entry, inner))
    return queries


def _web_search_detail(record: Any) -> str | None:
    queries = _web_search_queries(record)
    count = _positive_floor(record, ("count", "max_results", "num_results", "limit", "top_k"))
    if not queries:
        return None
    shown = [f'"{query}"' for query in queries[:3]]
    text = f"{', '.join(shown)}…" if len(queries) > len(shown) else ", ".join(shown)
    return f"for {text} (top {_num(count)})" if count is not None else f"for {text}"


def _web_fetch_detail(record: Any) -> str | None:
    url = normalize_optional_string(js_get(record, "url"))
    if not url:
        return None
    mode = normalize_optional_string(js_get(record, "extractMode"))
    max_chars = _positive_floor(record, ("maxChars",))
    suffix = f"mode {mode}" if mode else ""
    if max_chars is not None:
        limit = f"max {_num(max_chars)} chars"
        suffix = f"{suffix}, {limit}" if suffix else limit
    return f"from {url} ({suffix})" if suffix else f"from {url}"


def _default_title(name: str) -> str:
    cleaned = js_trim(name.replace("_", " "))
    if not cleaned:
        return "Tool"
    parts = []
    for part in re.split(r"\s+", cleaned):
        keep = len(part) <= 2 and part.upper() == part
        parts.append(part if keep else part[:1].upper() + part[1:])
    return " ".join(parts)


def _verb_and_detail(
    tool_key: str, args: Any, spec: ToolDisplaySpec | None, detail_mode: Any
) -> tuple[str | None, str | None]:
    if tool_key in _PLAN_PROGRESS_TOOLS:
        return None, None
    record = as_object(args)
    action = normalize_optional_string(js_get(record, "action")) if record is not None else None
    action_spec = spec.actions.get(action) if spec is not None and action else None
    fallback_verb = {"web_search": "search", "web_fetch": "fetch"}.get(
        tool_key, tool_key.replace("_", " ").replace(".", " ")
    )
    verb_source = action_spec.label if action_spec is not None else action or fallback_verb
    verb_text = normalize_optional_string(verb_source)
    verb = verb_text.replace("_", " ") if verb_text else None
    detail: str | None = None
    if tool_key in ("exec", "bash", "shell"):
        detail = resolve_exec_detail(args, detail_mode)
    if not detail and tool_key == "read" and record is not None:
        detail = _read_detail(record)
    if not detail and tool_key in ("write", "edit", "attach") and record is not None:
        detail = _write_detail(tool_key, record)
    if not detail and tool_key == "web_search" and record is not None:
        detail = _web_search_detail(record)
    if not detail and tool_key == "web_fetch" and record is not None:
        detail = _web_fetch_detail(record)
    if not detail and tool_key == "tool_search_code":
        detail = resolve_tool_search_code_detail(args)
    keys = action_spec.detail_keys if action_spec is not None else None
    if keys is None and spec is not None:
        keys = spec.detail_keys
    if keys is None:
        keys = FALLBACK_DETAIL_KEYS
    if not detail and keys:
        detail = _detail_from_keys(args, keys)
    return verb, detail


def resolve_tool_display(
    name: Any, args: Any = UNDEFINED, *, detail_mode: Any = UNDEFINED, home_dir: str | None = None
) -> ToolDisplay:
    """Resolve how a tool call is shown; `home_dir` is shortened to `~` in the detail."""
    display_name = js_trim(name if isinstance(name, str) else "tool")
    key = lower_or_empty(display_name)
    spec = TOOL_DISPLAY_SPECS.get(key)
    title = spec.title if spec is not None else _default_title(display_name)
    label = spec.label if spec is not None and spec.label else title
    verb, detail = _verb_and_detail(key, args, spec, detail_mode)
    if detail:
        detail = shorten_home_in_string(detail, home_dir)
    return ToolDisplay(
        name=display_name,
        emoji=spec.emoji if spec is not None else FALLBACK_EMOJI,
        title=title,
        label=label,
        verb=verb,
        detail=detail,
    )


def infer_tool_meta_from_args(
    tool_name: Any,
    args: Any,
    *,
    detail_mode: Any = UNDEFINED,
    home_dir: str | None = None,
) -> str | None:
    """The redacted detail for a tool call, or None when its arguments say nothing useful.

    `detail_mode="raw"` shows shell commands verbatim (compacted); `"explain"` shows only
    the summary. `home_dir`, when given, is shortened to `~`.
    """
    display = resolve_tool_display(tool_name, args, detail_mode=detail_mode, home_dir=home_dir)
    return redact_tool_detail(display.detail) if display.detail else None
