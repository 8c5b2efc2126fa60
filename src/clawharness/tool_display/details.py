"""Compact, redacted one-line details for tool calls (`inferToolMetaFromArgs`).

Progress logs and transcripts show a tool call as `emoji Label: detail`. The detail is
derived from the arguments: file tools show their path (`lines 5-7 from a.txt`), shell
tools a command summary, web tools their query or URL, other tools the first useful
argument keys from the display table (`tools.toml`). Every detail is redacted before
display. Arguments are JSON; anything but an object carries no fields to show.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, TypeAlias

from clawharness._json import JsonValue
from clawharness._numbers import format_number
from clawharness._text import trim
from clawharness._utf16 import utf16_len, utf16_slice
from clawharness.redaction import redact_tool_detail, redact_tool_payload_text
from clawharness.tool_display.exec_detail import resolve_exec_detail
from clawharness.tool_display.specs import ToolDisplaySpec, display_table
from clawharness.tool_display.tool_search import resolve_tool_search_code_detail

__all__ = [
    "ToolDisplay",
    "infer_tool_meta_from_args",
    "resolve_tool_display",
    "shorten_home_in_string",
]

Record: TypeAlias = Mapping[str, JsonValue]
#: tool-call arguments as JSON; any mapping is read like the JSON object it stands for
ToolArgs: TypeAlias = JsonValue | Record

#: nested arrays deeper than this show nothing
_ARRAY_DEPTH_LIMIT: Final = 64
_MAX_DETAIL_ENTRIES: Final = 8
#: a value longer than this (UTF-16 units) keeps its start and end around an ellipsis
_MAX_VALUE_UNITS: Final = 160
_PLAN_PROGRESS_TOOLS: Final = frozenset({"progress_card", "update_plan"})
_SHELL_TOOLS: Final = frozenset({"exec", "bash", "shell"})
_CAMEL_BOUNDARY_RE: Final = re.compile(r"([a-z0-9])([A-Z])")


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


def _clean(value: JsonValue) -> str | None:
    """A string value trimmed, or None for blanks and other values."""
    if not isinstance(value, str):
        return None
    return trim(value) or None


def _first_line(text: str) -> str:
    head, _, _ = text.partition("\n")
    return head.removesuffix("\r")


def _finite_number(value: JsonValue) -> float | None:
    """A finite JSON number (booleans are not numbers), or None."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return value if math.isfinite(value) else None


def _display_value(value: ToolArgs, depth: int = 0) -> str | None:
    """One display string for an argument value (first line, capped; None to skip).

    `true` shows as "true", `false`, zero and non-finite numbers show nothing, and an
    array shows its first three displayable members.
    """
    if depth > _ARRAY_DEPTH_LIMIT or value is None:
        return None
    if isinstance(value, str):
        line = trim(_first_line(trim(value)))
        if not line:
            return None
        shown = redact_tool_payload_text(line)
        if utf16_len(shown) > _MAX_VALUE_UNITS:
            return f"{utf16_slice(shown, 0, 79)}…{utf16_slice(shown, -80)}"
        return shown
    if isinstance(value, bool):
        return "true" if value else None
    if isinstance(value, int | float):
        if not math.isfinite(value) or value == 0:
            return None
        return format_number(value)
    if isinstance(value, list):
        shown_values: list[str] = []
        for item in value:
            display = _display_value(item, depth + 1)
            if not display:
                continue
            if len(shown_values) == 3:
                return f"{', '.join(shown_values)}…"
            shown_values.append(display)
        return ", ".join(shown_values) if shown_values else None
    return None


def _is_index(segment: str) -> bool:
    return segment.isascii() and segment.isdigit() and (segment == "0" or segment[0] != "0")


def _lookup(args: ToolArgs, path: str) -> ToolArgs:
    """The value at a dotted path (`a.b`, `list.0.x`), or None."""
    current = args
    for segment in path.split("."):
        if isinstance(current, Mapping):
            current = current.get(segment)
        elif isinstance(current, list) and _is_index(segment):
            index = int(segment)
            current = current[index] if index < len(current) else None
        else:
            return None
    return current


def _format_key(raw: str) -> str:
    last = ""
    for segment in raw.split("."):
        if segment:
            last = segment
    last = last or raw
    labels = display_table().detail_labels
    if last in labels:
        return labels[last]
    spaced = _CAMEL_BOUNDARY_RE.sub(r"\1 \2", last.replace("_", " ").replace("-", " "))
    return trim(spaced).lower() or trim(last).lower()


def _detail_from_keys(args: ToolArgs, keys: tuple[str, ...]) -> str | None:
    entries: list[tuple[str, str]] = []
    for key in keys:
        display = _display_value(_lookup(args, key))
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


def _path_arg(record: Record) -> str | None:
    for key in ("path", "file_path", "filePath"):
        candidate = _clean(record.get(key))
        if candidate:
            return candidate
    return None


def _whole_floor(value: JsonValue) -> float | None:
    """A finite number rounded down, as a float (so a huge value prints in float notation)."""
    number = _finite_number(value)
    return float(math.floor(number)) if number is not None else None


def _read_detail(record: Record) -> str | None:
    path = _path_arg(record)
    if not path:
        return None
    offset_raw = _whole_floor(record.get("offset"))
    limit_raw = _whole_floor(record.get("limit"))
    offset = max(1.0, offset_raw) if offset_raw is not None else None
    limit = max(1.0, limit_raw) if limit_raw is not None else None
    if offset is not None and limit is not None:
        unit = "line" if limit == 1 else "lines"
        return f"{unit} {format_number(offset)}-{format_number(offset + limit - 1)} from {path}"
    if offset is not None:
        return f"from line {format_number(offset)} in {path}"
    if limit is not None:
        return f"first {format_number(limit)} {'line' if limit == 1 else 'lines'} of {path}"
    return f"from {path}"


def _write_detail(tool_key: str, record: Record) -> str | None:
    path = _path_arg(record) or _clean(record.get("url"))
    if not path:
        return None
    if tool_key == "attach":
        return f"from {path}"
    prefix = "in" if tool_key == "edit" else "to"
    content = next(
        (value for key in ("content", "newText", "new_string")
         if isinstance(value := record.get(key), str)),
        None,
    )
    if content:
        return f"{prefix} {path} ({utf16_len(content)} chars)"
    return f"{prefix} {path}"


def _positive_floor(record: Record, keys: tuple[str, ...]) -> float | None:
    for key in keys:
        number = _finite_number(record.get(key))
        if number is not None and number > 0:
            return float(math.floor(number))
    return None


def _web_search_queries(record: Record) -> list[str]:
    queries: list[str] = []

    def add(value: JsonValue) -> None:
        normalized = _clean(value)
        if normalized and normalized not in queries:
            queries.append(normalized)

    for key in ("query", "q", "search", "input", "objective"):
        add(record.get(key))
    for key in ("search_query", "image_query", "queries", "search_queries"):
        value = record.get(key)
        if not isinstance(value, list):
            continue
        for entry in value:
            if isinstance(entry, str):
                add(entry)
            elif isinstance(entry, Mapping):
                for inner in ("query", "q", "search"):
                    add(entry.get(inner))
    return queries


def _web_search_detail(record: Record) -> str | None:
    queries = _web_search_queries(record)
    count = _positive_floor(record, ("count", "max_results", "num_results", "limit", "top_k"))
    if not queries:
        return None
    shown = [f'"{query}"' for query in queries[:3]]
    text = f"{', '.join(shown)}…" if len(queries) > len(shown) else ", ".join(shown)
    return f"for {text} (top {format_number(count)})" if count is not None else f"for {text}"


def _web_fetch_detail(record: Record) -> str | None:
    url = _clean(record.get("url"))
    if not url:
        return None
    mode = _clean(record.get("extractMode"))
    max_chars = _positive_floor(record, ("maxChars",))
    suffix = f"mode {mode}" if mode else ""
    if max_chars is not None:
        limit = f"max {format_number(max_chars)} chars"
        suffix = f"{suffix}, {limit}" if suffix else limit
    return f"from {url} ({suffix})" if suffix else f"from {url}"


def _default_title(name: str) -> str:
    cleaned = trim(name.replace("_", " "))
    if not cleaned:
        return "Tool"
    parts = []
    for part in re.split(r"\s+", cleaned):
        keep = len(part) <= 2 and part.upper() == part
        parts.append(part if keep else part[:1].upper() + part[1:])
    return " ".join(parts)


def _verb_and_detail(
    tool_key: str, args: ToolArgs, spec: ToolDisplaySpec | None, detail_mode: str | None
) -> tuple[str | None, str | None]:
    if tool_key in _PLAN_PROGRESS_TOOLS:
        return None, None
    record = args if isinstance(args, Mapping) else None
    action = _clean(record.get("action")) if record is not None else None
    action_spec = spec.actions.get(action) if spec is not None and action else None
    fallback_verb = {"web_search": "search", "web_fetch": "fetch"}.get(
        tool_key, tool_key.replace("_", " ").replace(".", " ")
    )
    verb_text = action_spec.label if action_spec is not None else action or fallback_verb
    verb = trim(verb_text).replace("_", " ") or None
    detail: str | None = None
    if tool_key in _SHELL_TOOLS:
        detail = resolve_exec_detail(record, detail_mode)
    if not detail and record is not None:
        if tool_key == "read":
            detail = _read_detail(record)
        elif tool_key in ("write", "edit", "attach"):
            detail = _write_detail(tool_key, record)
        elif tool_key == "web_search":
            detail = _web_search_detail(record)
        elif tool_key == "web_fetch":
            detail = _web_fetch_detail(record)
    if not detail and tool_key == "tool_search_code":
        detail = resolve_tool_search_code_detail(record)
    keys = action_spec.detail_keys if action_spec is not None else None
    if keys is None and spec is not None:
        keys = spec.detail_keys
    if keys is None:
        keys = display_table().fallback_detail_keys
    if not detail and keys:
        detail = _detail_from_keys(args, keys)
    return verb, detail


def resolve_tool_display(
    name: str | None,
    args: ToolArgs = None,
    *,
    detail_mode: str | None = None,
    home_dir: str | None = None,
) -> ToolDisplay:
    """Resolve how a tool call is shown; `home_dir` is shortened to `~` in the detail.

    A missing name shows as "tool". `detail_mode="raw"` shows shell commands verbatim
    (compacted); `"explain"` shows only their summary.
    """
    display_name = trim(name if name is not None else "tool")
    key = display_name.lower()
    table = display_table()
    spec = table.tools.get(key)
    title = spec.title if spec is not None else _default_title(display_name)
    label = spec.label if spec is not None and spec.label else title
    verb, detail = _verb_and_detail(key, args, spec, detail_mode)
    if detail:
        detail = shorten_home_in_string(detail, home_dir)
    return ToolDisplay(
        name=display_name,
        emoji=spec.emoji if spec is not None else table.fallback_emoji,
        title=title,
        label=label,
        verb=verb,
        detail=detail,
    )


def infer_tool_meta_from_args(
    tool_name: str | None,
    args: ToolArgs,
    *,
    detail_mode: str | None = None,
    home_dir: str | None = None,
) -> str | None:
    """The redacted detail for a tool call, or None when its arguments say nothing useful.

    `detail_mode="raw"` shows shell commands verbatim (compacted); `"explain"` shows only
    the summary. `home_dir`, when given, is shortened to `~`.
    """
    display = resolve_tool_display(tool_name, args, detail_mode=detail_mode, home_dir=home_dir)
    return redact_tool_detail(display.detail) if display.detail else None
