"""Tool-result middleware runtime: apply registered transforms before results reach the model.

Plugins register middleware through `PluginApi.register_agent_tool_result_middleware`
(`clawharness.plugins.entry`); each registration keeps its own runtimes/matcher pair.
Here the host applies them for one runtime and one tool:

- a registration applies when the runtime is one it names *and* one its plugin's
  manifest declares in `contracts.agentToolResultMiddleware` (checked again here, so a
  stale registration cannot widen its reach), and its matcher (canonical tool ids; None
  means every tool) names the tool;
- the incoming result is coerced to a JSON-safe shape first; every handler's output, or
  its in-place edit of `event["result"]`, is validated against the limits below;
- a handler that raises or returns an invalid result fails closed: the model gets a
  neutral "unavailable" result with `details.middlewareError: True` (never the raw
  output a redaction middleware was meant to transform). A message that was already
  delivered keeps a "delivered" result so the model does not send it again.
"""

from __future__ import annotations

import inspect
import json
import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from clawharness.delivery.facts import read_embedded_message_delivery_fact
from clawharness.delivery.messaging_tools import is_messaging_tool_send_action
from clawharness.delivery.tool_results import is_tool_result_error
from clawharness.harness.runtime_ids import normalize_runtime_id
from clawharness.names.tool_groups import normalize_tool_name

__all__ = [
    "MAX_MIDDLEWARE_CONTENT_BLOCKS",
    "MAX_MIDDLEWARE_DETAILS_BYTES",
    "MAX_MIDDLEWARE_TEXT_CHARS",
    "MIDDLEWARE_FAILURE_TEXT",
    "MiddlewareOutcome",
    "ToolResultMiddlewareRegistration",
    "apply_tool_result_middleware",
    "select_tool_result_middlewares",
]

log = logging.getLogger("clawharness.middleware")

MAX_MIDDLEWARE_CONTENT_BLOCKS = 200
MAX_MIDDLEWARE_TEXT_CHARS = 100_000
MAX_MIDDLEWARE_IMAGE_DATA_CHARS = 5_000_000
MAX_MIDDLEWARE_CONTENT_DEPTH = 20
MAX_MIDDLEWARE_DETAILS_BYTES = 100_000
MAX_MIDDLEWARE_DETAILS_DEPTH = 20
MAX_MIDDLEWARE_DETAILS_KEYS = 1_000
MIDDLEWARE_FAILURE_TEXT = "Tool output unavailable due to post-processing error."
_NESTED_RESULT_TYPES = frozenset({"toolresult", "tool_result"})


@dataclass(frozen=True, slots=True)
class ToolResultMiddlewareRegistration:
    """One middleware registration; its runtimes/matcher pair is never merged with another."""

    handler: Callable[..., Any]
    runtimes: tuple[str, ...]
    #: canonical tool ids, or None for every tool
    matcher: tuple[str, ...] | None
    owner_plugin_id: str


@dataclass(frozen=True, slots=True)
class MiddlewareOutcome:
    """The result to feed back to the model, and what happened on the way."""

    result: dict[str, Any]
    middleware_error: bool = False
    #: owner plugin ids of the registrations that ran, in order
    applied: tuple[str, ...] = ()


# --- selection (pure) -----------------------------------------------------------------


def select_tool_result_middlewares(
    registrations: Sequence[ToolResultMiddlewareRegistration],
    runtime_id: str,
    tool_name: str,
    *,
    declared_runtimes: Mapping[str, Sequence[str]],
) -> list[ToolResultMiddlewareRegistration]:
    """Registrations that apply to `tool_name` on `runtime_id`, in registration order.

    `declared_runtimes` maps plugin id -> its manifest's declared runtime ids; a plugin
    missing from it declares nothing (fail closed).
    """
    runtime = normalize_runtime_id(runtime_id)
    tool = normalize_tool_name(tool_name)
    selected: list[ToolResultMiddlewareRegistration] = []
    for registration in registrations:
        declared = {normalize_runtime_id(r) for r in declared_runtimes.get(
            registration.owner_plugin_id, ())}
        if runtime not in registration.runtimes or runtime not in declared:
            continue
        if registration.matcher is not None and tool not in {
            normalize_tool_name(name) for name in registration.matcher
        }:
            continue
        selected.append(registration)
    return selected


# --- validation and coercion ----------------------------------------------------------


def _valid_block(value: Any) -> bool:
    if not isinstance(value, Mapping) or not isinstance(value.get("type"), str):
        return False
    if value["type"] == "text":
        text = value.get("text")
        return isinstance(text, str) and len(text) <= MAX_MIDDLEWARE_TEXT_CHARS
    if value["type"] == "image":
        mime, data = value.get("mimeType"), value.get("data")
        return (isinstance(mime, str) and bool(mime.strip()) and isinstance(data, str)
                and len(data) <= MAX_MIDDLEWARE_IMAGE_DATA_CHARS)
    return False


class _Budget:
    def __init__(self) -> None:
        self.keys = 0
        self.bytes = 0
        self.seen: set[int] = set()


def _valid_details(value: Any, budget: _Budget | None = None, depth: int = 0) -> bool:
    budget = budget or _Budget()
    if value is None:
        return True
    if depth > MAX_MIDDLEWARE_DETAILS_DEPTH:
        return False
    if isinstance(value, str):
        budget.bytes += len(value)
        return budget.bytes <= MAX_MIDDLEWARE_DETAILS_BYTES
    if isinstance(value, bool | int | float):
        budget.bytes += len(str(value))
        return budget.bytes <= MAX_MIDDLEWARE_DETAILS_BYTES
    if not isinstance(value, Mapping | list | tuple) or id(value) in budget.seen:
        return False
    budget.seen.add(id(value))
    if isinstance(value, Mapping):
        for key, entry in value.items():
            if not isinstance(key, str):
                return False
            budget.keys += 1
            budget.bytes += len(key)
            if budget.keys > MAX_MIDDLEWARE_DETAILS_KEYS or budget.bytes > MAX_MIDDLEWARE_DETAILS_BYTES:
                return False
            if not _valid_details(entry, budget, depth + 1):
                return False
        return True
    budget.keys += len(value)
    if budget.keys > MAX_MIDDLEWARE_DETAILS_KEYS:
        return False
    return all(_valid_details(entry, budget, depth + 1) for entry in value)


def _valid_result(value: Any) -> bool:
    if not isinstance(value, Mapping) or not isinstance(value.get("content"), list):
        return False
    content = value["content"]
    return (len(content) <= MAX_MIDDLEWARE_CONTENT_BLOCKS and all(_valid_block(b) for b in content)
            and _valid_details(value.get("details")))


def _json_safe(value: Any, seen: frozenset[int] = frozenset()) -> Any:
    """A JSON-safe copy: cycles and non-JSON values dropped, as JSON serialisation would."""
    if isinstance(value, str | bool | int) or value is None:
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if id(value) in seen:
        return _DROP
    inner = seen | {id(value)}
    if isinstance(value, Mapping):
        out = {}
        for key, entry in value.items():
            safe = _json_safe(entry, inner)
            if safe is not _DROP:
                out[str(key)] = safe
        return out
    if isinstance(value, list | tuple):
        return [None if (safe := _json_safe(entry, inner)) is _DROP else safe for entry in value]
    return _DROP


_DROP = object()


def _sanitize_details(value: Any) -> Any:
    safe = _json_safe(value)
    if safe is _DROP:
        return None
    size = len(json.dumps(safe, ensure_ascii=False))
    if size > MAX_MIDDLEWARE_DETAILS_BYTES:
        return {"truncated": True, "originalSizeBytes": size}
    return safe


def _text_of(value: Any, depth: int) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if not isinstance(value, Mapping) or depth >= MAX_MIDDLEWARE_CONTENT_DEPTH:
        return None
    for key in ("text", "output", "result", "message"):
        text = _text_of(value.get(key), depth + 1)
        if text is not None:
            return text
    content = value.get("content")
    if isinstance(content, list):
        texts = [b["text"] for b in _coerce_blocks(content, depth + 1) if b["type"] == "text"]
        return "\n".join(t for t in texts if t) or None
    safe = _json_safe(value)
    return None if safe is _DROP else json.dumps(safe, ensure_ascii=False)


def _append(blocks: list[dict[str, Any]], block: dict[str, Any]) -> None:
    if len(blocks) >= MAX_MIDDLEWARE_CONTENT_BLOCKS:
        return
    if block["type"] != "text":
        blocks.append(block)
        return
    if not block["text"]:
        return
    if blocks and blocks[-1]["type"] == "text":
        room = MAX_MIDDLEWARE_TEXT_CHARS - len(blocks[-1]["text"]) - 1
        if room > 0:
            blocks[-1] = {**blocks[-1], "text": f"{blocks[-1]['text']}\n{block['text'][:room]}"}
        return
    blocks.append({"type": "text", "text": block["text"][:MAX_MIDDLEWARE_TEXT_CHARS]})


def _coerce_block(value: Any, depth: int) -> list[dict[str, Any]]:
    if _valid_block(value):
        return [dict(value)]
    if not isinstance(value, Mapping) or not isinstance(value.get("type"), str):
        return []
    if value["type"] == "text" and isinstance(value.get("text"), str):
        return [{**value, "text": value["text"][:MAX_MIDDLEWARE_TEXT_CHARS]}]
    if value["type"].lower() not in _NESTED_RESULT_TYPES:
        return []
    # older native runtimes wrap their content in toolResult blocks
    content = value.get("content")
    if isinstance(content, list) and content:
        return _coerce_blocks(content, depth + 1) if depth < MAX_MIDDLEWARE_CONTENT_DEPTH else []
    text = _text_of(content, depth) or _text_of(value, depth)
    return [{"type": "text", "text": text[:MAX_MIDDLEWARE_TEXT_CHARS]}] if text else []


def _coerce_blocks(content: list[Any], depth: int) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for entry in content[:MAX_MIDDLEWARE_CONTENT_BLOCKS]:
        coerced = _coerce_block(entry, depth)
        if coerced:
            for block in coerced:
                _append(blocks, block)
            continue
        text = _text_of(entry, depth)
        if text:
            _append(blocks, {"type": "text", "text": text[:MAX_MIDDLEWARE_TEXT_CHARS]})
    return blocks


def _coerce_result(value: Any, *, sanitize_details: bool = False) -> dict[str, Any] | None:
    if _valid_result(value):
        return dict(value)
    if not isinstance(value, Mapping) or not isinstance(value.get("content"), list):
        return None
    content: list[dict[str, Any]] = []
    for block in value["content"][:MAX_MIDDLEWARE_CONTENT_BLOCKS]:
        content.extend(_coerce_block(block, 0))
    content = content[:MAX_MIDDLEWARE_CONTENT_BLOCKS]
    if not content:
        return None
    details = value.get("details")
    if not _valid_details(details):
        if not sanitize_details:
            return None
        details = _sanitize_details(details)
    result = {**value, "content": content, "details": details}
    return result if _valid_result(result) else None


def _sanitize_incoming(result: Mapping[str, Any]) -> dict[str, Any]:
    coerced = _coerce_result(result, sanitize_details=True)
    if coerced is not None:
        return coerced
    if _valid_details(result.get("details")):
        return dict(result)
    return {**result, "details": _sanitize_details(result.get("details"))}


# --- failure fallbacks ----------------------------------------------------------------


def _failure_result() -> dict[str, Any]:
    return {"content": [{"type": "text", "text": MIDDLEWARE_FAILURE_TEXT}],
            "details": {"status": "error", "middlewareError": True}}


def _delivered_fallback(tool_name: str, args: Mapping[str, Any], result: Mapping[str, Any],
                        is_error: bool) -> dict[str, Any] | None:
    details = result.get("details")
    fact = read_embedded_message_delivery_fact(
        details.get("messageDelivery") if isinstance(details, Mapping) else None
    )
    if (is_error or fact is None or not fact.delivered or is_tool_result_error(result)
            or not is_messaging_tool_send_action(tool_name, args)):
        return None
    # the send already happened: post-processing must not make the model resend it
    return {"content": [{"type": "text",
                         "text": "Message delivered, but result post-processing failed."}],
            "details": {"ok": True, "deliveryStatus": "sent",
                        "middlewareWarning": "post-processing failed"}}


# --- the runtime ----------------------------------------------------------------------


async def apply_tool_result_middleware(
    registrations: Sequence[ToolResultMiddlewareRegistration],
    runtime_id: str,
    tool_name: str,
    result: Mapping[str, Any],
    *,
    declared_runtimes: Mapping[str, Sequence[str]],
    tool_call_id: str | None = None,
    args: Mapping[str, Any] | None = None,
    is_error: bool = False,
) -> MiddlewareOutcome:
    """Run the applicable middleware over one tool result, in registration order.

    Each handler gets `(event, ctx)`: `event` has `toolCallId`, `toolName`, `args`,
    `result`, `isError`; `ctx` has `runtime` and `harness`. It may return
    `{"result": new}` or edit `event["result"]` in place; either is validated.
    """
    selected = select_tool_result_middlewares(
        registrations, runtime_id, tool_name, declared_runtimes=declared_runtimes
    )
    if not selected:
        # fast path: with nothing registered the tool's own result passes untouched
        return MiddlewareOutcome(dict(result))
    call_args = dict(args or {})
    fallback = _delivered_fallback(tool_name, call_args, result, is_error)
    runtime = normalize_runtime_id(runtime_id)
    ctx = {"runtime": runtime, "harness": runtime}
    current = _sanitize_incoming(result)
    applied: list[str] = []
    for registration in selected:
        event = {"toolCallId": tool_call_id, "toolName": tool_name, "args": call_args,
                 "result": current, "isError": is_error}
        try:
            returned = registration.handler(event, ctx)
            if inspect.isawaitable(returned):
                returned = await returned
        except Exception as exc:  # fail closed: never hand back what it meant to transform
            log.warning("[%s] tool result middleware from %s failed for %s: %s", runtime,
                        registration.owner_plugin_id, tool_name[:120], type(exc).__name__)
            return MiddlewareOutcome(fallback or _failure_result(), True, tuple(applied))
        candidate = returned.get("result") if isinstance(returned, Mapping) else None
        coerced = _coerce_result(candidate if candidate is not None else event["result"])
        if coerced is None:
            log.warning("[%s] discarded invalid tool result middleware output from %s for %s",
                        runtime, registration.owner_plugin_id, tool_name[:120])
            return MiddlewareOutcome(fallback or _failure_result(), True, tuple(applied))
        current = coerced
        applied.append(registration.owner_plugin_id)
    return MiddlewareOutcome(current, False, tuple(applied))
