"""The normalized events an `EventMapper` turns a CLI agent's stream-json into."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["AssistantMessage", "CliEvent", "ControlAnswer", "HostMcpMessage", "NativeSessionMissing", "PermissionRequest", "SessionStarted", "TextBlock", "TextDelta", "ToolResult", "ToolUseBlock", "TurnFinished", "UnknownControlRequest"]


# --- normalized events ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SessionStarted:
    """The agent announced (or re-announced) its native session id."""

    session_id: str


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of streamed assistant text."""

    text: str


@dataclass(frozen=True, slots=True)
class TextBlock:
    text: str


@dataclass(frozen=True, slots=True)
class ToolUseBlock:
    id: str
    name: str
    input: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class AssistantMessage:
    """Settled assistant content. Events with the same `message_id` are one message."""

    blocks: tuple[TextBlock | ToolUseBlock, ...]
    message_id: str | None = None
    error: str | None = None
    usage: Mapping[str, Any] | None = None


@dataclass(frozen=True, slots=True)
class ToolResult:
    tool_use_id: str
    text: str
    is_error: bool
    details: Any = None


@dataclass(frozen=True, slots=True)
class PermissionRequest:
    """The agent asks whether it may run a tool; it waits for the answer."""

    request_id: str
    tool_name: str
    input: Mapping[str, Any]
    tool_use_id: str | None = None


@dataclass(frozen=True, slots=True)
class UnknownControlRequest:
    """A control request this harness does not serve (answered with an error)."""

    request_id: str
    subtype: str


@dataclass(frozen=True, slots=True)
class HostMcpMessage:
    """A JSON-RPC message the runtime sends, over its control channel, to an MCP server
    the host provides in-process (Claude Code's `mcp_message` to a `type: "sdk"`
    server): the host tools the runtime lacks (`clawharness.plugin_sdk._cli_backend.host_mcp`)."""

    request_id: str
    server_name: str
    message: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ControlAnswer:
    """The agent's answer to one of our control requests."""

    request_id: str
    ok: bool
    error: str | None = None


@dataclass(frozen=True, slots=True)
class NativeSessionMissing:
    """The agent says the session it was asked to resume does not exist (its own error
    for an unknown session, not any failure): the binding is stale."""

    session_id: str
    detail: str


@dataclass(frozen=True, slots=True)
class TurnFinished:
    """The turn ended (the agent waits for the next user turn)."""

    session_id: str | None
    is_error: bool
    text: str | None = None
    error: str | None = None
    usage: Mapping[str, Any] | None = None
    interrupted: bool = False
    #: what the runtime says its process cost so far, in USD, counted from the
    #: process's start (Claude Code's `total_cost_usd`); None when it says nothing
    cost_usd: float | None = None


CliEvent = (SessionStarted | TextDelta | AssistantMessage | ToolResult | PermissionRequest
            | UnknownControlRequest | ControlAnswer | NativeSessionMissing | TurnFinished
            | HostMcpMessage)
