"""The last redaction before anything leaves the host: tool output headed for the model
and the transcript, failure messages, inspector records, log lines and span attributes.

`redact_secrets(text)` masks the values the host knows (`known`) and then every secret
shape the redactor has (`patterns`, the tool-payload policy: vendor keys such as `sk-`,
`sk-proj-`, `sk-ant-`, `ghp_`, `github_pat_`, `xox?-`, AWS key ids and secret keys, PEM
blocks, JWTs, `token: "..."`, `KEY=value` under a secret-looking name, passwords in URLs,
bearer tokens). Unlike `redact_model_visible_tool_payload_text`, which the original uses
for tool output and which leaves `KEY=value` assignments alone as too common, this masks
them too: a secret printed by a command must never reach a model or a transcript, and an
assignment under a secret-looking name is masked at the cost of the odd false positive.

`redact_secrets_in(value)` does the same for every string of a JSON value (and masks a
string under a secret-named field, `apiKey`, `DB_PASSWORD`, whatever it looks like);
`redact_tool_result(result)` for a tool's result (`content` blocks and `details`).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any, Final

from clawharness.redaction.fields import (
    is_sensitive_field_key,
    redact_sensitive_field_value,
    redact_tool_payload_text,
)
from clawharness.redaction.known import known_generation, mask_known_secrets

__all__ = ["odd_values_seen", "redact_entry", "redact_secrets", "redact_secrets_in",
           "redact_tool_result", "redact_transcript_message", "redact_walked"]

#: deeper than this a value is cut, not walked (tool results are far shallower)
_MAX_DEPTH: Final = 64

#: how many values the walks have passed on as they were that are not plain JSON (a
#: float NaN or infinity, an object of another type): `odd_values_seen`
_odd_seen = 0


def odd_values_seen() -> int:
    """How many values not plain JSON (a non-finite float, an object of a type other than
    dict, list, tuple, str, int, float, bool and None) the walks (`redact_secrets_in`,
    `redact_walked`, `redact_entry`) have passed on as they were, since the process began.
    Read before and after a walk: no rise says its result is plain JSON (keys aside); a
    rise says it may not be (or that another thread's walk met one)."""
    return _odd_seen


def redact_secrets(text: str) -> str:
    """Known values, then every secret shape, masked (see the module docstring)."""
    if not text:
        return text
    if len(text) <= _REMEMBERED_CHARS:
        return _redact_short(text, known_generation())
    return redact_tool_payload_text(mask_known_secrets(text))


#: short texts recur (a turn record's event names, tool names, outcomes, paths): their
#: redaction is remembered, per set of known values (`known_generation`)
_REMEMBERED_CHARS: Final = 256


@lru_cache(maxsize=4096)
def _redact_short(text: str, _generation: int) -> str:
    return redact_tool_payload_text(mask_known_secrets(text))


def redact_secrets_in(value: Any, *, _depth: int = 0) -> Any:
    """A copy of a JSON-like value with every string redacted as `redact_secrets` does,
    and strings under secret-named keys masked whatever they look like."""
    kind = type(value)
    if kind is str or isinstance(value, str):
        return redact_secrets(value)
    if _depth >= _MAX_DEPTH:
        return "[too deep]"
    if kind in _SCALARS:
        if kind is float and value - value:
            _count_odd()
        return value
    return _walk(value, _depth, known_generation())


def _walk(value: Any, depth: int, generation: int) -> Any:
    """`redact_secrets_in` below its own checks: a value at `depth`, not a string or a
    scalar. A leaf is handled where it is found, not by a call of its own (a turn record
    has ~130); the short texts' cache is asked with `generation` read once per walk."""
    global _odd_seen
    below = depth + 1
    deep = below >= _MAX_DEPTH
    kind = type(value)
    # (a list is no `Mapping`, and asking the ABC costs more than the rest of the test)
    if kind is dict or (kind is not list and isinstance(value, Mapping)):
        out: dict[Any, Any] = {}
        for key, item in value.items():
            kind = type(item)
            # (exact types first: a number or None needs no `isinstance`)
            if kind is str or (kind not in _SCALARS and isinstance(item, str)):
                if (type(key) is str or isinstance(key, str)) and is_sensitive_field_key(key):
                    out[key] = redact_sensitive_field_value(key, mask_known_secrets(item))
                elif item and len(item) <= _REMEMBERED_CHARS:
                    out[key] = _redact_short(item, generation)
                else:
                    out[key] = redact_secrets(item)
            elif kind in _SCALARS and not deep:
                if kind is float and item - item:  # (NaN or an infinity: `item - item` is NaN)
                    _odd_seen += 1
                out[key] = item
            elif deep:
                out[key] = "[too deep]"
            elif not item and (kind is list or kind is dict or kind is tuple):
                out[key] = {} if kind is dict else []  # (what a walk makes of it, uncalled)
            else:
                out[key] = _walk(item, below, generation)
        return out
    if kind is list or kind is tuple or isinstance(value, list | tuple):
        items: list[Any] = []
        for item in value:
            kind = type(item)
            if kind is str or (kind not in _SCALARS and isinstance(item, str)):
                items.append(_redact_short(item, generation)
                             if item and len(item) <= _REMEMBERED_CHARS
                             else redact_secrets(item))
            elif kind in _SCALARS and not deep:
                if kind is float and item - item:
                    _odd_seen += 1
                items.append(item)
            elif deep:
                items.append("[too deep]")
            elif not item and (kind is list or kind is dict or kind is tuple):
                items.append({} if kind is dict else [])
            else:
                items.append(_walk(item, below, generation))
        return items
    _odd_seen += 1
    return value


def _count_odd() -> None:
    global _odd_seen
    _odd_seen += 1


def redact_walked(value: Any, depth: int, generation: int) -> Any:
    """What `redact_secrets_in` makes of `value` found `depth` levels down a walked value
    (`generation`: `known_generation()`, read once by the caller). For a caller that
    knows the shape of a value and walks its own part of it (a turn record), so the
    result is the same as a walk of the whole."""
    kind = type(value)
    if kind is str:
        return _redact_short(value, generation) if value and len(
            value) <= _REMEMBERED_CHARS else redact_secrets(value)
    # (the usual kinds by exact type first: no `isinstance` for a dict, a list or None)
    if depth < _MAX_DEPTH:
        if kind in _SCALARS:
            if kind is float and value - value:
                _count_odd()
            return value
        if kind is dict or kind is list or kind is tuple:
            # (what the walk makes of an empty one)
            return _walk(value, depth, generation) if value else {} if kind is dict else []
    if isinstance(value, str):
        return _redact_short(value, generation) if value and len(
            value) <= _REMEMBERED_CHARS else redact_secrets(value)
    if depth >= _MAX_DEPTH:
        return "[too deep]"
    return _walk(value, depth, generation)


def redact_entry(key: Any, item: Any, depth: int, generation: int) -> Any:
    """What a walk of a mapping at `depth` stores under `key` for `item` (a string under a
    secret-named key is masked whatever it looks like); see `redact_walked`."""
    kind = type(item)
    if kind is str or (kind not in _SCALARS and isinstance(item, str)):
        if (type(key) is str or isinstance(key, str)) and is_sensitive_field_key(key):
            return redact_sensitive_field_value(key, mask_known_secrets(item))
        if item and len(item) <= _REMEMBERED_CHARS:
            return _redact_short(item, generation)
        return redact_secrets(item)
    below = depth + 1
    if below >= _MAX_DEPTH:
        return "[too deep]"
    if kind in _SCALARS:
        if kind is float and item - item:
            _count_odd()
        return item
    return _walk(item, below, generation)


#: what a JSON-like value holds that has nothing to redact (checked by exact type, before
#: the slower `Mapping` test)
_SCALARS: Final = frozenset({int, float, bool, type(None)})


def _redact_block(block: Any) -> Any:
    # (a dict, the usual block, told apart in C before the ABC's check)
    if type(block) is not dict and not isinstance(block, Mapping):
        return redact_secrets_in(block)
    kind = block.get("type")
    if kind == "text":
        text = block.get("text")
        return {**block, "text": redact_secrets(text)} if isinstance(text, str) else dict(block)
    if kind == "image":  # base64 data has no secrets to find and is large
        return dict(block)
    return redact_secrets_in(block)


def redact_tool_result(result: Mapping[str, Any]) -> dict[str, Any]:
    """A tool result (`{"content": [...], "details": ..., "isError": ...}`) redacted."""
    out = dict(result)
    content = result.get("content")
    if isinstance(content, str):
        out["content"] = redact_secrets(content)
    elif isinstance(content, list):
        out["content"] = [_redact_block(block) for block in content]
    elif content is not None:
        out["content"] = redact_secrets_in(content)
    if "details" in result:
        out["details"] = redact_secrets_in(result["details"])
    return out


def redact_transcript_message(message: Mapping[str, Any], *,
                              tool_results: bool = True) -> dict[str, Any]:
    """A transcript message as it may be stored: a failure's text (`errorMessage`,
    `error`) redacted on any message, and a tool result's content and details when
    `tool_results` (False where the host's own tools made them, already redacted)."""
    out = dict(message)
    for key in ("errorMessage", "error"):
        if isinstance(out.get(key), str):
            out[key] = redact_secrets(out[key])
    if tool_results and out.get("role") == "toolResult":
        out = redact_tool_result(out)
    return out
