"""Size and nesting limits on what clawharness parses from others, and a bounded JSON reader.

Every input that arrives from outside the host's own code is parsed within a limit:
JSON-RPC frames from native runtimes (Codex app-server, ACP agents, CLI backends), a
model's tool-call arguments, scripted-model scripts; the gateway's WebSocket frames have
their own (the original's) limits in `gateway.protocol`. Past a limit the reader raises
`InputLimitError`, which names the input, its size and the limit, and reading stops
before memory grows with the input.

Nesting is limited because Python's JSON parser recurses: without a limit, a frame of
5,000 `[` raises RecursionError from deep inside whatever read it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, Final

from clawharness.errors import InputLimitError

__all__ = [
    "MAX_JSON_DEPTH",
    "MAX_NATIVE_FRAME_BYTES",
    "MAX_SCRIPT_BYTES",
    "MAX_TOOL_ARGUMENTS_CHARS",
    "check_size",
    "json_nesting_exceeds",
    "loads_bounded",
    "value_nesting_exceeds",
]

#: the deepest JSON any reader accepts (real frames and arguments nest a dozen levels)
MAX_JSON_DEPTH: Final = 128
#: one line (one JSON-RPC frame) from a native runtime's stdout; Codex sends whole thread
#: histories in one `thread/resume` answer, so the limit is generous but finite
MAX_NATIVE_FRAME_BYTES: Final = 64 * 1024 * 1024
#: a model's arguments for one tool call (a `write` of a large file fits)
MAX_TOOL_ARGUMENTS_CHARS: Final = 8 * 1024 * 1024
#: a scripted-model script file
MAX_SCRIPT_BYTES: Final = 8 * 1024 * 1024

_NON_BRACKETS: Final = bytes(b for b in range(256) if b not in b"[]{}")
_INNERMOST: Final = re.compile(rb"\[\]|\{\}")


def _not_json(name: str) -> Any:
    # Python reads NaN and Infinity; JSON (and the original's JSON.parse) does not
    raise ValueError(f"{name} is not valid JSON")


def check_size(what: str, size: int, limit: int, unit: str = "bytes") -> None:
    """Raise `InputLimitError` when `size` is over `limit`."""
    if size > limit:
        raise InputLimitError(f"{what}: {size:,} {unit}, over the limit of {limit:,} {unit}")


def _skeleton(data: bytes) -> bytes:
    """The brackets of JSON `data` outside its strings, in order."""
    # with escaped backslashes and quotes gone, every quote opens or closes a string
    unescaped = data.replace(b"\\\\", b"").replace(b'\\"', b"")
    return b"".join(unescaped.split(b'"')[::2]).translate(None, _NON_BRACKETS)


def _peels(skeleton: bytes, peel: Callable[[bytes], bytes], limit: int) -> int:
    """How many peels empty the skeleton (stopping past `limit`)."""
    passes = 0
    while skeleton and passes <= limit:
        peeled = peel(skeleton)
        if len(peeled) == len(skeleton):
            break  # unbalanced: not JSON a parser accepted
        skeleton = peeled
        passes += 1
    return passes


def json_nesting_exceeds(text: str | bytes, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when valid JSON `text` nests arrays and objects deeper than `limit`.

    Counting brackets settles the usual frame. Otherwise the brackets outside strings are
    peeled pair by pair; a fast peel (`bytes.replace`) takes one or two levels a pass, so
    it decides unless the depth is near the limit, where an exact one-level peel does.
    Every step is a C-speed bytes operation: the cost grows with the real depth.
    """
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else text
    if data.count(b"[") + data.count(b"{") <= limit:
        return False
    skeleton = _skeleton(data)
    fast = _peels(skeleton, lambda s: s.replace(b"[]", b"").replace(b"{}", b""), limit)
    if fast > limit:
        return True  # a pass takes at most two levels: deeper than `fast` >= limit + 1
    if 2 * fast <= limit:
        return False
    return _peels(skeleton, lambda s: _INNERMOST.sub(b"", s), limit) > limit


def loads_bounded(text: str | bytes, *, what: str, max_size: int,
                  max_depth: int = MAX_JSON_DEPTH) -> Any:
    """`json.loads(text)` within a size and a nesting limit.

    Raises `InputLimitError` past a limit and ValueError for text that is not JSON (an
    `InputLimitError` is a ValueError too, so callers that skip malformed input can skip
    both with one clause).
    """
    check_size(what, len(text), max_size, "bytes" if isinstance(text, bytes) else "characters")
    try:
        value = json.loads(text, parse_constant=_not_json)
    except RecursionError:
        raise InputLimitError(f"{what}: nested deeper than {max_depth} levels") from None
    if json_nesting_exceeds(text, max_depth):
        raise InputLimitError(f"{what}: nested deeper than {max_depth} levels")
    return value


def value_nesting_exceeds(value: Any, limit: int = MAX_JSON_DEPTH) -> bool:
    """True when lists, tuples and mappings in `value` nest deeper than `limit`
    (iterative, so a deep value cannot exhaust the stack while it is measured)."""
    stack: list[tuple[Any, int]] = [(value, 0)]
    seen: set[int] = set()
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            children: Any = node.values()
        elif isinstance(node, list | tuple):
            children = node
        else:
            continue
        if depth + 1 > limit:
            return True
        if id(node) in seen:
            continue  # a shared node (a YAML alias) was measured once
        seen.add(id(node))
        stack.extend((child, depth + 1) for child in children)
    return False
