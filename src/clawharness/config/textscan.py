"""A linear scan of JSON5 text before it is decoded: nesting depth and key-path lines.

The decoders recurse once per nesting level, so a file nested thousands of levels deep
would end in a RecursionError; this scan measures the depth first, without recursion,
and stops at the limit. It also notes the line where each key path's value starts, so
a problem can say `config.json5:12`, and every key written twice in one object, with
both lines (the decoders silently keep the last one). It is lenient: text it cannot follow (an
unterminated string or comment) ends the scan, and the decoder reports the syntax error.
Every step consumes input, so the scan is linear in the text's length.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Final

from clawharness.problems import KeyPath

__all__ = ["DuplicateKey", "TextScan", "scan_json5"]

_TOKEN: Final = re.compile(
    r"""(?P<space>\s+)"""
    r"""|(?P<line_comment>//[^\n]*)"""
    r"""|(?P<string>"[^"\\\n]*(?:\\[\s\S][^"\\\n]*)*"|'[^'\\\n]*(?:\\[\s\S][^'\\\n]*)*')"""
    r"""|(?P<punct>[{}\[\]:,])"""
    r"""|(?P<word>[^\s{}\[\]:,"'/]+)"""
)
_SIMPLE_ESCAPES: Final = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f", "0": "\0"}


@dataclass(frozen=True, slots=True)
class DuplicateKey:
    """A key written again in the same object: its key path and both lines (1-based)."""

    path: KeyPath
    first_line: int
    line: int


@dataclass(slots=True)
class TextScan:
    """What the scan found: the deepest nesting, and where key paths' values start."""

    depth: int = 0
    #: line (1-based) where the value at each key path starts; first occurrence wins
    lines: dict[KeyPath, int] = field(default_factory=dict)
    #: the scan stopped because the depth went past the limit
    too_deep: bool = False
    #: keys written more than once in one object, in the order the repeats appear
    duplicates: list[DuplicateKey] = field(default_factory=list)

    def line_of(self, path: KeyPath) -> int | None:
        """The line of `path`, else of its nearest ancestor that has one."""
        for end in range(len(path), 0, -1):
            line = self.lines.get(path[:end])
            if line is not None:
                return line
        return None


def _key_text(token: str) -> str:
    if token[:1] not in ("'", '"'):
        return token
    body = token[1:-1]
    if "\\" not in body:
        return body
    out: list[str] = []
    chars = iter(body)
    for ch in chars:
        if ch == "\\":
            nxt = next(chars, "")
            out.append(_SIMPLE_ESCAPES.get(nxt, nxt))
        else:
            out.append(ch)
    return "".join(out)


class _Frame:
    __slots__ = ("index", "is_object", "key", "key_lines", "path", "want_key")

    def __init__(self, path: KeyPath, is_object: bool) -> None:
        self.path = path
        self.is_object = is_object
        self.want_key = is_object
        self.key: str | None = None
        self.index = 0
        #: the line of each key already written in this object
        self.key_lines: dict[str, int] = {}

    def child_path(self) -> KeyPath | None:
        if self.is_object:
            return None if self.key is None else (*self.path, self.key)
        return (*self.path, self.index)


def scan_json5(text: str, *, max_depth: int) -> TextScan:
    """Depth and key-path lines of `text`; stops early once the depth passes `max_depth`."""
    result = TextScan()
    stack: list[_Frame] = []
    line = 1
    pos, end = 0, len(text)
    while pos < end:
        if text.startswith("/*", pos):
            close = text.find("*/", pos + 2)
            if close < 0:
                break
            line += text.count("\n", pos, close)
            pos = close + 2
            continue
        found = _TOKEN.match(text, pos)
        if found is None:
            # an unterminated string, a lone '/', or a character no token starts with
            break
        kind, value = found.lastgroup, found.group(0)
        pos = found.end()
        top = stack[-1] if stack else None
        if kind in ("space", "line_comment"):
            line += value.count("\n")
            continue
        if kind == "punct" and value in "}]":
            if stack:
                stack.pop()
            continue
        if kind == "punct" and value == ",":
            if top is not None:
                if top.is_object:
                    top.want_key, top.key = True, None
                else:
                    top.index += 1
            continue
        if kind == "punct" and value == ":":
            if top is not None and top.is_object:
                top.want_key = False
            continue
        if top is not None and top.is_object and top.want_key:
            key = top.key = _key_text(value)
            first = top.key_lines.get(key)
            if first is None:
                top.key_lines[key] = line
            else:
                result.duplicates.append(DuplicateKey((*top.path, key), first, line))
            line += value.count("\n")
            continue
        # a value starts here: a string, a word (number, true, null, ...) or a container
        path = top.child_path() if top is not None else ()
        if path is not None:
            result.lines.setdefault(path, line)
        if kind == "string":
            line += value.count("\n")
        if value in ("{", "["):
            stack.append(_Frame(path if path is not None else (), value == "{"))
            if len(stack) > result.depth:
                result.depth = len(stack)
                if result.depth > max_depth:
                    result.too_deep = True
                    break
    return result

