"""How ACP answers look: host errors as JSON-RPC errors, the checks on what a client
sends (its cwd, its MCP servers), `session/list` cursors and times, a turn's usage and
the context meter (`usage_update`)."""

from __future__ import annotations

import base64
import binascii
import json
import os
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from acp import RequestError
from acp.schema import Cost, Usage, UsageUpdate

from clawharness.errors import (
    ClawHarnessError,
    InvalidSessionKeyError,
    SessionNotFoundError,
    UnknownAgentError,
)

__all__ = [
    "acp_usage",
    "check_cwd",
    "check_mcp",
    "context_update",
    "decode_cursor",
    "encode_cursor",
    "error_of",
    "invalid",
    "iso_time",
    "replayed_context",
]


def error_of(exc: ClawHarnessError) -> RequestError:
    """A host error as the JSON-RPC error a client shows."""
    data: dict[str, Any] = {"type": exc.code, "message": str(exc)}
    hint = getattr(exc, "hint", None)
    if isinstance(hint, str) and hint:
        data["hint"] = hint
    if isinstance(exc, SessionNotFoundError):
        return RequestError(-32002, f"Resource not found: {exc}", data)
    if isinstance(exc, InvalidSessionKeyError | UnknownAgentError):
        return RequestError(-32602, f"Invalid params: {exc}", data)
    return RequestError(-32603, f"{exc.code}: {exc}", data)


def invalid(details: str) -> RequestError:
    return RequestError(-32602, f"Invalid params: {details}", {"details": details})


def check_cwd(cwd: str) -> str:
    if not isinstance(cwd, str) or not os.path.isabs(cwd):
        raise invalid(f"cwd must be an absolute path, not {cwd!r}")
    if not os.path.isdir(cwd):
        raise invalid(f"cwd {cwd} is not an existing directory")
    return os.path.normpath(cwd)


def check_mcp(servers: Sequence[Any] | None) -> None:
    if servers:
        raise invalid("this agent does not take MCP servers from the client: configure "
                       "them under mcp.servers in the clawharness config (docs/mcp.md)")


def iso_time(timestamp: float) -> str | None:
    if not timestamp:
        return None
    return datetime.fromtimestamp(timestamp, UTC).isoformat().replace("+00:00", "Z")


def encode_cursor(offset: int, cwd: str | None) -> str:
    raw = json.dumps({"offset": offset, "cwd": cwd}, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode()


def decode_cursor(cursor: str | None, cwd: str | None) -> int:
    if not cursor:
        return 0
    try:
        value = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except (binascii.Error, ValueError, UnicodeDecodeError):
        raise invalid(f"cursor {cursor!r} is not one this agent gave") from None
    if (not isinstance(value, dict) or not isinstance(value.get("offset"), int)
            or value["offset"] < 0 or value.get("cwd") != cwd):
        raise invalid(f"cursor {cursor!r} is not one this agent gave for this cwd filter")
    return int(value["offset"])


def acp_usage(raw: Any) -> Usage | None:
    """The turn's token counts as ACP reports them (None when the runtime gave none)."""
    if raw is None:
        return None
    get = raw.get if isinstance(raw, Mapping) else (lambda k, d=None: getattr(raw, k, d))

    def count(*names: str) -> int:
        for name in names:
            value = get(name, None)
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                return value
        return 0

    input_tokens = count("input", "input_tokens")
    output_tokens = count("output", "output_tokens")
    cached = count("cacheRead", "cache_read")
    total = count("totalTokens", "total", "total_tokens") or input_tokens + output_tokens
    return Usage(total_tokens=total, input_tokens=input_tokens, output_tokens=output_tokens,
                 cached_read_tokens=cached or None)


def _count(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def context_update(used: object, context_window: int | None,
                   cost_usd: float | None = None) -> UsageUpdate | None:
    """The context meter after a model call: `used` tokens (the call's `totalTokens`:
    its whole prompt and its answer, what the next call starts from) of the model's
    `context_window`, and the session's cost so far when it is known; None when either
    count is not known (ACP needs both)."""
    tokens = _count(used)
    if tokens is None or not context_window:
        return None
    cost = None if cost_usd is None else Cost(amount=cost_usd, currency="USD")
    return UsageUpdate(session_update="usage_update", used=tokens, size=context_window,
                       cost=cost)


def replayed_context(messages: Sequence[Mapping[str, Any]],
                     context_window: Callable[[str], int | None],
                     cost_usd: float | None = None) -> UsageUpdate | None:
    """The context meter where a stored conversation left it: its last assistant
    message's `totalTokens` of its model's window (`context_window` of the message's
    `provider/model`); None when that message recorded no usage (a native runtime's
    may not) or the window is not known."""
    for message in reversed(messages):
        if message.get("role") != "assistant":
            continue
        usage, provider, model = message.get("usage"), message.get("provider"), message.get("model")
        if not isinstance(usage, Mapping) or not isinstance(provider, str) \
                or not isinstance(model, str):
            return None
        return context_update(usage.get("totalTokens"), context_window(f"{provider}/{model}"),
                              cost_usd)
    return None
