"""Key paths into the raw config: `gateway.port`, `models.providers.openai.models[0].id`,
`agents.defaults.models["openai/gpt-5"].alias`.

The syntax is what error messages print (`format_key_path`), so a key path can be copied
from `config validate` into `config get|set`. Reading and editing work on the decoded
file (plain dicts and lists), so keys this host does not know survive an edit.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping
from typing import Any, Final

from clawharness.config.problems import KeyPath, format_key_path

__all__ = ["MISSING", "KeyPathError", "child_of", "get_at", "parse_key_path", "set_at", "try_parse_key_path",
           "unset_at"]

_NAME: Final = re.compile(r"[^.\[\]\"']+")
_INDEX: Final = re.compile(r"\[(\d+)\]")
_QUOTED: Final = re.compile(r"""\[(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\]""")
_UNESCAPE: Final = re.compile(r"\\(.)")


class KeyPathError(ValueError):
    """A key path that does not parse, or that runs through a value that is not a container."""


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


#: `get_at`'s answer for a key path with nothing at it
MISSING: Final = _Missing()


def try_parse_key_path(text: str) -> KeyPath | None:
    """The parts of a key path, or None when it does not parse."""
    parts: list[str | int] = []
    pos, end = 0, len(text)
    if not text.strip():
        return None
    while pos < end:
        if text[pos] == ".":
            if not parts:
                return None
            pos += 1
            found = _NAME.match(text, pos)
            if found is None:
                return None
            parts.append(found.group(0))
            pos = found.end()
        elif text[pos] == "[":
            index = _INDEX.match(text, pos)
            if index is not None:
                parts.append(int(index.group(1)))
                pos = index.end()
                continue
            quoted = _QUOTED.match(text, pos)
            if quoted is None:
                return None
            raw = quoted.group(1) if quoted.group(1) is not None else quoted.group(2)
            parts.append(_UNESCAPE.sub(r"\1", raw))
            pos = quoted.end()
        else:
            if parts:
                return None
            found = _NAME.match(text, pos)
            if found is None:
                return None
            parts.append(found.group(0))
            pos = found.end()
    return tuple(parts)


def parse_key_path(text: str) -> KeyPath:
    parsed = try_parse_key_path(text)
    if parsed is None:
        raise KeyPathError(
            f"key path {text!r} does not parse: write keys with dots and list indexes in "
            'brackets, quoting keys that hold dots or slashes, e.g. '
            'models.providers.openai.models[0].id or agents.defaults.models["openai/gpt-5"]')
    return parsed


def child_of(node: Any, part: str | int) -> Any:
    """`node[part]` for an object key or an in-range list index, else `MISSING`."""
    if isinstance(part, int):
        in_range = isinstance(node, list) and 0 <= part < len(node)
        return node[part] if in_range else MISSING
    return node[part] if isinstance(node, Mapping) and part in node else MISSING


def get_at(raw: Any, path: KeyPath) -> Any:
    """The value at `path`, or `MISSING`."""
    node = raw
    for part in path:
        node = child_of(node, part)
        if node is MISSING:
            break
    return node


def set_at(raw: Mapping[str, Any], path: KeyPath, value: Any) -> dict[str, Any]:
    """A deep copy of `raw` with `value` at `path`; missing objects on the way are created.

    A list index may be the list's length (append). Raises KeyPathError when the path
    runs through a scalar, indexes an object or names a key of a list.
    """
    if not path:
        raise KeyPathError("an empty key path names the whole file; set one key at a time")
    root = copy.deepcopy(dict(raw))
    node: Any = root
    for depth, part in enumerate(path):
        last = depth == len(path) - 1
        here = format_key_path(path[:depth]) or "the top level"
        if isinstance(part, int):
            if not isinstance(node, list):
                raise KeyPathError(f"{here} is not a list, so [{part}] does not apply")
            if part > len(node):
                raise KeyPathError(f"{here} has {len(node)} item(s): index {part} is past the "
                                   f"end (use [{len(node)}] to append)")
            if last:
                if part == len(node):
                    node.append(value)
                else:
                    node[part] = value
                return root
            if part == len(node):
                node.append({})
            node = node[part]
        else:
            if not isinstance(node, dict):
                kind = "a list" if isinstance(node, list) else "not an object"
                raise KeyPathError(f"{here} is {kind}, so it has no key {part!r}")
            if last:
                node[part] = value
                return root
            if part not in node or node[part] is None:
                node[part] = {}
            node = node[part]
    return root


def unset_at(raw: Mapping[str, Any], path: KeyPath) -> tuple[dict[str, Any], bool]:
    """A deep copy of `raw` without the value at `path`, and whether there was one."""
    if not path:
        raise KeyPathError("an empty key path names the whole file; unset one key at a time")
    root = copy.deepcopy(dict(raw))
    parent = get_at(root, path[:-1])
    last = path[-1]
    if isinstance(last, int) and isinstance(parent, list) and last < len(parent):
        del parent[last]
        return root, True
    if isinstance(last, str) and isinstance(parent, dict) and last in parent:
        del parent[last]
        return root, True
    return root, False
