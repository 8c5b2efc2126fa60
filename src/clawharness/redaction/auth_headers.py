"""Find the parameters of structured `Authorization` headers (Digest, AWS4, Hawk).

`Authorization: Digest username="bob", response="…"` carries its secrets as `key=value`
parameters after the scheme; this scanner returns their spans, including headers
serialized inside JSON strings (escaped quotes, `\\n` line folds).
"""

from __future__ import annotations

import re

__all__ = ["find_structured_auth_param_ranges", "redact_structured_auth_headers"]

_SCHEME = "[A-Za-z0-9!#$%&'*+.^_`|~-]+"
_TAB = r"\\{1,64}t"
_INDENT = rf"(?:[ \t]+|{_TAB})"
_OPTIONAL_WS = (
    rf"(?:[ \t]*\r?\n{_INDENT}|[ \t]*\\{{1,64}}r\\{{1,64}}n{_INDENT}|[ \t]*\\{{1,64}}n{_INDENT}"
    rf"|[ \t]*{_TAB}[ \t]*|[ \t]*)"
)
_REQUIRED_WS = (
    rf"(?:[ \t]*\r?\n{_INDENT}|[ \t]*\\{{1,64}}r\\{{1,64}}n{_INDENT}|[ \t]*\\{{1,64}}n{_INDENT}"
    rf"|[ \t]*{_TAB}[ \t]*|[ \t]+)"
)
_BOUNDARY = r"(^|[^A-Za-z0-9_-]|\\{1,64}[rn])"
_QUOTE = r"(?:\\{1,64}[\"']|[\"']|)"
_STRUCTURED_AUTH_HEADER_RE = re.compile(
    rf"{_BOUNDARY}(?:Proxy-)?Authorization{_QUOTE}[ \t]*[:=]{_OPTIONAL_WS}{_QUOTE}({_SCHEME}){_REQUIRED_WS}",
    re.IGNORECASE | re.ASCII,
)
_PARAM_NAME_RE = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~-]+")
_AWS_SCOPE_RE = re.compile(r"[A-Za-z0-9!#$%&'*+.^_`|~:/-]+")
_SIGNED_HEADERS_RE = re.compile(r":?[A-Za-z0-9!#$%&'*+.^_`|~-]+(?:;:?[A-Za-z0-9!#$%&'*+.^_`|~-]+)*")


def _at(value: str, index: int) -> str:
    return value[index] if 0 <= index < len(value) else ""


def _skip_horizontal(value: str, start: int) -> int:
    cursor = start
    while _at(value, cursor) in (" ", "\t") and cursor < len(value):
        cursor += 1
    return cursor


def _count_slashes(value: str, start: int) -> tuple[int, int]:
    cursor = start
    count = 0
    while count < 64 and _at(value, cursor) == "\\":
        count += 1
        cursor += 1
    return count, cursor


def _serialized_line_end(value: str, start: int) -> int | None:
    count, cursor = _count_slashes(value, start)
    if count == 0:
        return None
    if _at(value, cursor) == "n":
        return cursor + 1
    if _at(value, cursor) != "r":
        return None
    count, cursor = _count_slashes(value, cursor + 1)
    return cursor + 1 if count > 0 and _at(value, cursor) == "n" else None


def _serialized_tab_end(value: str, start: int) -> int | None:
    count, cursor = _count_slashes(value, start)
    return cursor + 1 if count > 0 and _at(value, cursor) == "t" else None


def _skip_auth_ws(value: str, start: int) -> int:
    cursor = start
    while True:
        cursor = _skip_horizontal(value, cursor)
        tab_end = _serialized_tab_end(value, cursor)
        if tab_end is not None:
            cursor = tab_end
            continue
        if _at(value, cursor) == "\r" and _at(value, cursor + 1) == "\n":
            line_end: int | None = cursor + 2
        elif _at(value, cursor) == "\n":
            line_end = cursor + 1
        else:
            line_end = _serialized_line_end(value, cursor)
        if line_end is None or (
            (_at(value, line_end) not in (" ", "\t") or line_end >= len(value))
            and _serialized_tab_end(value, line_end) is None
        ):
            return cursor
        cursor = line_end


def _param_name(value: str, start: int) -> tuple[str, int] | None:
    match = _PARAM_NAME_RE.match(value, start)
    return (match.group(0).lower(), match.end()) if match else None


def _is_auth_header_start(value: str, index: int) -> bool:
    previous = _at(value, index - 1) if index >= 1 else ""
    serialized_boundary = False
    if previous in ("n", "r") and previous:
        cursor = index - 2
        count = 0
        while count < 64 and cursor >= 0 and value[cursor] == "\\":
            count += 1
            cursor -= 1
        serialized_boundary = count > 0
    if not serialized_boundary and previous and re.match(r"[A-Za-z0-9_-]", previous):
        return False
    candidate = value[index : index + 19].lower()
    if candidate == "proxy-authorization":
        name = candidate
    elif candidate.startswith("authorization"):
        name = "authorization"
    else:
        return False
    count, cursor = _count_slashes(value, index + len(name))
    if _at(value, cursor) in ('"', "'") and cursor < len(value):
        cursor += 1
    elif count > 0:
        return False
    cursor = _skip_horizontal(value, cursor)
    return _at(value, cursor) in (":", "=") and cursor < len(value)


def _next_param_start(value: str, start: int) -> int | None:
    cursor = start
    while True:
        cursor = _skip_auth_ws(value, cursor)
        if cursor > start and _is_auth_header_start(value, cursor):
            return None
        if cursor >= len(value) or value[cursor] in ("\r", "\n", ";"):
            return None
        if value[cursor] == ",":
            cursor += 1
            continue
        param = _param_name(value, cursor)
        if param is not None:
            equals = _skip_auth_ws(value, param[1])
            if _at(value, equals) == "=" and _at(value, equals + 1) != "=":
                return cursor
        while cursor < len(value):
            ws_end = _skip_auth_ws(value, cursor)
            if ws_end > cursor:
                cursor = ws_end
                continue
            if cursor > start and _is_auth_header_start(value, cursor):
                return None
            char = value[cursor]
            if char in ("\r", "\n", ";"):
                return None
            cursor += 1
            if char == ",":
                break


def _field_end(value: str, start: int) -> int:
    cursor = start
    while cursor < len(value):
        ws_end = _skip_auth_ws(value, cursor)
        if ws_end > cursor:
            cursor = ws_end
            continue
        if cursor > start and _is_auth_header_start(value, cursor):
            break
        if value[cursor] in "\r\n;\\\"'}]":
            break
        cursor += 1
    return cursor


def _param_value_end(value: str, start: int, aws_scope: bool, signed_headers: bool) -> int | None:
    slash_count = 0
    while _at(value, start + slash_count) == "\\":
        slash_count += 1
    escaped = slash_count > 0 and _at(value, start + slash_count) == '"'
    quote = _at(value, start) if _at(value, start) in ('"', "'") else ""
    if quote or escaped:
        cursor = start + (slash_count + 1 if escaped else 1)
        while cursor < len(value):
            if value[cursor] in ("\r", "\n"):
                ws_end = _skip_auth_ws(value, cursor)
                if ws_end == cursor:
                    break
                cursor = ws_end
                continue
            if escaped and value[cursor] == "\\":
                slash_end = cursor + 1
                while _at(value, slash_end) == "\\":
                    slash_end += 1
                if _at(value, slash_end) == '"':
                    if (slash_end - cursor) % (2 * (slash_count + 1)) == slash_count:
                        return slash_end + 1
                    cursor = slash_end + 1
                    continue
                cursor = slash_end
                continue
            if not escaped and value[cursor] == "\\" and cursor + 1 < len(value):
                cursor += 2
                continue
            if not escaped and value[cursor] == quote:
                return cursor + 1
            cursor += 1
        return cursor if cursor > start + 1 else None
    if signed_headers:
        match = _SIGNED_HEADERS_RE.match(value, start)
        if match is None:
            return None
        end = match.end()
        return end if _at(value, end) in ("", ",", " ", "\t", "\r", "\n") else None
    match = (_AWS_SCOPE_RE if aws_scope else _PARAM_NAME_RE).match(value, start)
    return match.end() if match else None


def _uses_auth_params(scheme: str) -> bool:
    return scheme in ("digest", "hawk") or scheme.startswith("aws4-")


def find_structured_auth_param_ranges(value: str) -> list[tuple[int, int]]:
    """Spans of `key=value` auth parameters after an Authorization scheme."""
    ranges: list[tuple[int, int]] = []
    for header in _STRUCTURED_AUTH_HEADER_RE.finditer(value):
        scheme = (header.group(2) or "").lower()
        cursor = header.end()
        range_start = cursor
        range_end = cursor
        direct = _param_name(value, cursor)
        direct_equals = _skip_auth_ws(value, direct[1]) if direct else None
        if (
            direct is None
            or direct_equals is None
            or _at(value, direct_equals) != "="
            or _at(value, direct_equals + 1) == "="
        ):
            if _at(value, _skip_auth_ws(value, cursor)) != "," and not _uses_auth_params(scheme):
                continue
            first = _next_param_start(value, cursor)
            if first is None:
                continue
            cursor = first
        while True:
            param = _param_name(value, cursor)
            if param is None:
                break
            cursor = _skip_auth_ws(value, param[1])
            if _at(value, cursor) != "=":
                break
            cursor = _skip_auth_ws(value, cursor + 1)
            end = _param_value_end(
                value,
                cursor,
                aws_scope=scheme.startswith("aws4-") and param[0] == "credential",
                signed_headers=param[0] == "signedheaders",
            )
            if end is None:
                following = _next_param_start(value, cursor)
                if following is not None:
                    cursor = following
                    continue
                range_end = max(range_end, _field_end(value, cursor))
                break
            range_end = end
            separator = _skip_auth_ws(value, end)
            if _at(value, separator) != ",":
                if separator < len(value) and value[separator] not in "\r\n;\\\"'}]":
                    following = _next_param_start(value, separator)
                    if following is not None:
                        cursor = following
                        continue
                    range_end = max(range_end, _field_end(value, separator))
                break
            following = _next_param_start(value, separator + 1)
            if following is None:
                break
            cursor = following
        if range_end > range_start:
            ranges.append((range_start, range_end))
    return ranges


def redact_structured_auth_headers(value: str, replacement: str) -> str:
    """Replace each structured auth parameter list with `replacement`."""
    ranges = find_structured_auth_param_ranges(value)
    if not ranges:
        return value
    merged: list[list[int]] = []
    for start, end in ranges:
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    parts: list[str] = []
    cursor = 0
    for start, end in merged:
        parts.append(value[cursor:start])
        parts.append(replacement)
        cursor = end
    parts.append(value[cursor:])
    return "".join(parts)
