"""Editing JSON5 text in place, so `config set` and `doctor --fix` keep a file's comments,
layout, key order, quote style and trailing commas.

`edit_json5_text(text, old, new)` finds what differs between the decoded `old` and the
wanted `new` (keys added, removed, changed; a list that changed is one change) and applies
each difference to the text: a changed value's text is replaced, an added key is written
after its object's last member in the style of its neighbours (indentation, quotes,
unquoted keys, trailing commas), a removed key's member is cut out with its comma. Every
other byte stays as it was. The result is decoded again and must equal `new`; when an
edit cannot be made in place (a new array element, a changed top level) or the check
fails, it answers None and the caller writes the file anew.

The parser here reads the JSON5 grammar's structure only (values are decoded by the
project's loader): strings in either quote, `//` and `/* */` comments, identifiers and
numbers as words.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final

from clawharness.problems import KeyPath

__all__ = ["edit_json5_text"]

_WORD: Final = re.compile(r"[^\s{}\[\]:,\"'/]+")
_IDENTIFIER: Final = re.compile(r"[A-Za-z_$][\w$]*\Z")
_MISSING: Final = object()


class _Unsupported(Exception):
    """An edit this module does not make in place."""


@dataclass(slots=True)
class _Node:
    start: int
    end: int
    kind: str  # "object", "array", "scalar"
    members: list[_Member] = field(default_factory=list)  # object
    items: list[_Item] = field(default_factory=list)  # array


@dataclass(slots=True)
class _Member:
    key: str
    key_start: int
    value: _Node
    #: the position just after this member's comma, None when it has none
    comma_end: int | None = None


@dataclass(slots=True)
class _Item:
    value: _Node
    comma_end: int | None = None


@dataclass(slots=True)
class _Style:
    indent_unit: str = "  "
    quote: str = '"'
    unquoted_keys: bool = False
    trailing_commas: bool = False


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0
        self.quotes = {'"': 0, "'": 0}
        self.unquoted_keys = 0
        self.trailing_commas = 0

    def skip(self) -> None:
        text, n = self.text, len(self.text)
        while self.i < n:
            c = text[self.i]
            if c.isspace():
                self.i += 1
            elif text.startswith("//", self.i):
                end = text.find("\n", self.i)
                self.i = n if end < 0 else end
            elif text.startswith("/*", self.i):
                end = text.find("*/", self.i + 2)
                if end < 0:
                    raise _Unsupported("an unterminated comment")
                self.i = end + 2
            else:
                return

    def string(self) -> str:
        text, quote = self.text, self.text[self.i]
        j = self.i + 1
        while j < len(text) and text[j] != quote:
            j += 2 if text[j] == "\\" else 1
        if j >= len(text):
            raise _Unsupported("an unterminated string")
        raw = text[self.i:j + 1]
        self.quotes[quote] += 1
        self.i = j + 1
        inner = raw[1:-1]
        if quote == "'":
            inner = inner.replace("\\'", "'").replace('"', '\\"')
        try:
            decoded = json.loads(f'"{inner}"')
        except ValueError:
            decoded = inner
        return str(decoded)

    def value(self) -> _Node:
        self.skip()
        if self.i >= len(self.text):
            raise _Unsupported("the text ended early")
        c = self.text[self.i]
        start = self.i
        if c == "{":
            return self.object()
        if c == "[":
            return self.array()
        if c in "\"'":
            self.string()
            return _Node(start, self.i, "scalar")
        match = _WORD.match(self.text, self.i)
        if match is None:
            raise _Unsupported(f"unexpected {c!r}")
        self.i = match.end()
        return _Node(start, self.i, "scalar")

    def object(self) -> _Node:
        node = _Node(self.i, self.i, "object")
        self.i += 1
        while True:
            self.skip()
            if self.text.startswith("}", self.i):
                self.i += 1
                node.end = self.i
                if node.members and node.members[-1].comma_end is not None:
                    self.trailing_commas += 1
                return node
            key_start = self.i
            if self.text[self.i] in "\"'":
                key = self.string()
            else:
                match = _WORD.match(self.text, self.i)
                if match is None:
                    raise _Unsupported("a key was expected")
                key = match.group(0)
                self.i = match.end()
                self.unquoted_keys += 1
            self.skip()
            if not self.text.startswith(":", self.i):
                raise _Unsupported("':' was expected")
            self.i += 1
            member = _Member(key, key_start, self.value())
            node.members.append(member)
            self.skip()
            if self.text.startswith(",", self.i):
                self.i += 1
                member.comma_end = self.i

    def array(self) -> _Node:
        node = _Node(self.i, self.i, "array")
        self.i += 1
        while True:
            self.skip()
            if self.text.startswith("]", self.i):
                self.i += 1
                node.end = self.i
                if node.items and node.items[-1].comma_end is not None:
                    self.trailing_commas += 1
                return node
            item = _Item(self.value())
            node.items.append(item)
            self.skip()
            if self.text.startswith(",", self.i):
                self.i += 1
                item.comma_end = self.i


def _parse(text: str) -> tuple[_Node, _Style]:
    parser = _Parser(text)
    root = parser.value()
    parser.skip()
    if root.kind != "object" or parser.i != len(text):
        raise _Unsupported("the top level is not one object")
    style = _Style(indent_unit=_indent_unit(text),
                   quote="'" if parser.quotes["'"] > parser.quotes['"'] else '"',
                   unquoted_keys=parser.unquoted_keys > 0,
                   trailing_commas=parser.trailing_commas > 0)
    return root, style


def _indent_unit(text: str) -> str:
    widths = sorted({len(line) - len(line.lstrip(" ")) for line in text.splitlines()
                     if line.strip() and line.startswith(" ")})
    if any(line.startswith("\t") for line in text.splitlines()):
        return "\t"
    return " " * widths[0] if widths else "  "


def _line_start(text: str, at: int) -> int:
    return text.rfind("\n", 0, at) + 1


def _indent_at(text: str, at: int) -> str:
    start = _line_start(text, at)
    line = text[start:at]
    return line[:len(line) - len(line.lstrip(" \t"))]


# --- rendering a value in the file's style ---------------------------------------------


def _string(value: str, style: _Style) -> str:
    dumped = json.dumps(value, ensure_ascii=False)
    if style.quote == '"':
        return dumped
    return "'" + dumped[1:-1].replace('\\"', '"').replace("'", "\\'") + "'"


def _key(key: str, style: _Style) -> str:
    return key if style.unquoted_keys and _IDENTIFIER.match(key) else _string(key, style)


def _render(value: Any, indent: str, style: _Style) -> str:
    if isinstance(value, str):
        return _string(value, style)
    if isinstance(value, Mapping):
        if not value:
            return "{}"
        inner = indent + style.indent_unit
        lines = [f"{inner}{_key(str(k), style)}: {_render(v, inner, style)}"
                 for k, v in value.items()]
        return "{\n" + _join(lines, style) + f"\n{indent}}}"
    if isinstance(value, list):
        if not value:
            return "[]"
        flat = [_render(v, indent, style) for v in value]
        one_line = "[" + ", ".join(flat) + "]"
        if all("\n" not in f for f in flat) and len(one_line) <= 72:
            return one_line
        inner = indent + style.indent_unit
        return "[\n" + _join([inner + _render(v, inner, style) for v in value], style) + \
            f"\n{indent}]"
    return json.dumps(value, ensure_ascii=False)


def _join(lines: list[str], style: _Style) -> str:
    return ",\n".join(lines) + ("," if style.trailing_commas else "")


# --- one edit on the text ---------------------------------------------------------------


def _find(root: _Node, path: KeyPath) -> tuple[_Node, _Member | _Item | None]:
    """The node at `path` and the member or item holding it (None for the root)."""
    node: _Node = root
    holder: _Member | _Item | None = None
    for part in path:
        if node.kind == "object" and isinstance(part, str):
            holder = next((m for m in reversed(node.members) if m.key == part), None)
        elif node.kind == "array" and isinstance(part, int) and 0 <= part < len(node.items):
            holder = node.items[part]
        else:
            holder = None
        if holder is None:
            raise KeyError(part)
        node = holder.value
    return node, holder


def _set(text: str, root: _Node, style: _Style, path: KeyPath, value: Any) -> str:
    if not path:
        raise _Unsupported("the whole file changed")
    # the deepest object on the path that exists
    depth = len(path)
    while depth > 0:
        try:
            node, holder = _find(root, path[:depth])
        except KeyError:
            depth -= 1
            continue
        if depth == len(path):
            assert holder is not None
            indent = _indent_at(text, holder.key_start if isinstance(holder, _Member)
                                else node.start)
            return text[:node.start] + _render(value, indent, style) + text[node.end:]
        break
    else:
        node, holder = root, None
    if node.kind != "object" or not isinstance(path[depth], str):
        raise _Unsupported("a new array element")
    for part in reversed(path[depth + 1:]):
        if not isinstance(part, str):
            raise _Unsupported("a new array element")
        value = {part: value}
    return _add_member(text, node, style, str(path[depth]), value)


def _add_member(text: str, node: _Node, style: _Style, key: str, value: Any) -> str:
    close = node.end - 1
    if not node.members:
        indent = _indent_at(text, node.start)
        inner = indent + style.indent_unit
        member = f"{inner}{_key(key, style)}: {_render(value, inner, style)}"
        comma = "," if style.trailing_commas else ""
        return text[:node.start + 1] + f"\n{member}{comma}\n{indent}" + text[close:]
    last = node.members[-1]
    multiline = "\n" in text[last.key_start:close] or "\n" in text[node.start:last.key_start]
    if not multiline:  # {a: 1} -> {a: 1, b: 2}
        cut = last.comma_end if last.comma_end is not None else last.value.end
        rendered = _render(value, _indent_at(text, node.start), style)
        return (text[:cut] + ("" if last.comma_end is not None else ",")
                + f" {_key(key, style)}: {rendered}" + text[cut:])
    indent = _indent_at(text, last.key_start)
    member = f"{_key(key, style)}: {_render(value, indent, style)}"
    # after the rest of the last member's line (a comment there stays with it)
    line_end = text.find("\n", last.comma_end or last.value.end)
    if line_end < 0 or line_end > close:
        line_end = close
    insert = f"\n{indent}{member}" + ("," if last.comma_end is not None else "")
    if line_end == close:
        insert += "\n" + _indent_at(text, close)
    head = text[:line_end]
    if last.comma_end is None:
        head = text[:last.value.end] + "," + text[last.value.end:line_end]
    return head + insert + text[line_end:]


def _unset(text: str, root: _Node, path: KeyPath) -> str:
    if not path:
        raise _Unsupported("the whole file removed")
    parent, _holder = _find(root, path[:-1])
    if parent.kind != "object":
        raise _Unsupported("an array element removed")
    index = next(i for i in range(len(parent.members) - 1, -1, -1)
                 if parent.members[i].key == path[-1])
    member = parent.members[index]
    end = member.comma_end if member.comma_end is not None else member.value.end
    start = member.key_start
    line_start = _line_start(text, start)
    line_end = text.find("\n", end)
    alone_before = not text[line_start:start].strip()
    rest = text[end:line_end if line_end >= 0 else len(text)]
    tail = rest.strip()
    alone_after = not tail or tail.startswith("//") or (
        tail.startswith("/*") and tail.endswith("*/"))
    if member.comma_end is None and index > 0:
        previous = parent.members[index - 1]
        if previous.comma_end is not None:  # the new last member keeps no comma
            start_cut = previous.comma_end - 1
            if alone_before and alone_after:
                between = text[start_cut + 1:line_start]
                between = between[:-1] if between.endswith("\n") else between
                return (text[:start_cut] + between
                        + text[line_end if line_end >= 0 else len(text):])
            return text[:start_cut] + text[end:]
    if alone_before and alone_after and line_end >= 0:
        return text[:line_start] + text[line_end + 1:]
    while end < len(text) and text[end] in " \t":
        end += 1
    return text[:start] + text[end:]


# --- differences and the whole edit -------------------------------------------------------


def _same(a: Any, b: Any) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _changes(old: Any, new: Any, path: KeyPath = ()) -> list[tuple[KeyPath, Any]]:
    """(key path, new value or _MISSING) for each difference, removals first."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: list[tuple[KeyPath, Any]] = [((*path, k), _MISSING) for k in old if k not in new]
        for key, value in new.items():
            out += ([((*path, key), value)] if key not in old
                    else _changes(old[key], value, (*path, key)))
        return out
    return [] if _same(old, new) else [(path, new)]


def edit_json5_text(text: str, old: Any, new: Any,
                    decode: Callable[[str], Any]) -> str | None:
    """`text` (which decodes to `old`) edited so that it decodes to `new`, keeping
    everything else of it; None when that cannot be done in place."""
    try:
        for path, value in _changes(old, new):
            root, style = _parse(text)
            text = (_unset(text, root, path) if value is _MISSING
                    else _set(text, root, style, path, value))
        if not text.endswith("\n"):
            text += "\n"
        return text if _same(decode(text), new) else None
    except (_Unsupported, KeyError, StopIteration, ValueError, RecursionError):
        return None
