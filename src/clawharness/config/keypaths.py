"""Key paths into the raw config: reading and editing the decoded file at
`gateway.port`, `models.providers.openai.models[0].id`,
`agents.defaults.models["openai/gpt-5"].alias`.

The syntax (`parse_key_path`, `format_key_path`) lives with the problems that print it
(`clawharness.problems`), so a key path can be copied from `config validate` into
`config get|set`. Reading and editing work on the decoded file (plain dicts and lists),
so keys this host does not know survive an edit.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Final

from clawharness.problems import KeyPath, KeyPathError, format_key_path

__all__ = ["MISSING", "child_of", "get_at", "set_at", "unset_at"]


class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


#: `get_at`'s answer for a key path with nothing at it
MISSING: Final = _Missing()


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
