"""What the Control UI reads of the gateway protocol, and sends: declared once.

The protocol defines these frames (`gateway/protocol.py`, `gateway/runs.py`,
`gateway/approvals.py`, `plugin_sdk/_tool_calls.py`); the models here name the fields the
page uses, open to the protocol's others, so `tests/gateway_http/test_control_ui_schema.py`
can check real frames against them and the page's names against one list
(`schema.ui_field_names`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

__all__ = [
    "WIRE_MODELS",
    "AgentEvent",
    "ApprovalRequest",
    "ApprovalRequested",
    "ApprovalResolveRequest",
    "ApprovalResolved",
    "ChatEvent",
    "ChatSendAnswer",
    "ChatSendRequest",
    "ConnectRequest",
    "ErrorAnswer",
    "Frame",
    "LifecycleData",
    "SessionForkAnswer",
    "SessionForkRequest",
    "SessionKeyRequest",
    "ToolEventData",
]


class WireShape(BaseModel):
    """What the page reads of a gateway protocol frame (the frame may carry more)."""

    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True,
                              validate_by_alias=True, extra="allow", frozen=True)




class ContentPart(WireShape):
    """A part of a message's `content` (the page reads the `text` ones)."""

    type: str
    text: str | None = None


class ChatMessage(WireShape):
    role: str
    content: list[ContentPart] | str | None = None


class ChatEvent(WireShape):
    """A `chat` event (`gateway/runs.py`): `delta` with the reply so far in `message`
    and what changed in `delta_text` (`replace` when it did not continue), then
    `final`, `error` or `aborted`."""

    run_id: str
    session_key: str
    state: Literal["delta", "final", "error", "aborted"]
    message: ChatMessage | None = None
    delta_text: str | None = None
    replace: bool | None = None
    error_message: str | None = None
    stop_reason: str | None = None


class AgentEvent(WireShape):
    """An `agent` event: `stream` says what `data` is (`lifecycle`, `tool`, ...)."""

    run_id: str
    session_key: str
    stream: str
    ts: int
    data: dict[str, Any]


class ToolEventData(WireShape):
    """`data` of a `tool` agent event (`plugin_sdk/_tool_calls.py`; the result event's
    one-line `preview` is added by `attempt/tool_previews.py`)."""

    phase: Literal["start", "update", "permission", "result"]
    name: str | None = None
    tool_call_id: str | None = None
    args: dict[str, Any] | None = None
    is_error: bool | None = None
    preview: str | None = None
    allowed: bool | None = None
    reason: str | None = None


class LifecycleData(WireShape):
    """`data` of a `lifecycle` agent event."""

    phase: str
    started_at: int | None = None
    ended_at: int | None = None
    terminal: str | None = None
    error: str | None = None


class ApprovalRequest(WireShape):
    """`request` of an approval (`gateway/approvals.py`)."""

    title: str
    description: str
    tool_name: str | None = None
    tool_call_id: str | None = None
    run_id: str | None = None
    session_key: str | None = None
    allowed_decisions: list[str]


class ApprovalRequested(WireShape):
    """A `plugin.approval.requested` event (and an entry of `plugin.approval.list`)."""

    id: str
    request: ApprovalRequest
    created_at_ms: int
    expires_at_ms: int


class ApprovalResolved(WireShape):
    """A `plugin.approval.resolved` event."""

    id: str
    decision: str
    resolved_by: str | None = None


class _ErrorShape(WireShape):
    message: str


class Frame(WireShape):
    """A protocol frame: `req` (sent), `res`, `event` (received)."""

    type: Literal["req", "res", "event"]
    id: str | None = None
    method: str | None = None
    params: Any = None
    ok: bool | None = None
    payload: Any = None
    error: _ErrorShape | None = None
    event: str | None = None


class _ClientInfo(WireShape):
    id: str
    version: str
    platform: str
    mode: str
    instance_id: str


class _ConnectAuth(WireShape):
    token: str


class ConnectRequest(WireShape):
    """The page's `connect` params (`gateway/protocol.py` `ConnectParams`)."""

    min_protocol: int
    max_protocol: int
    client: _ClientInfo
    caps: list[str]
    role: str
    scopes: list[str]
    auth: _ConnectAuth


class ChatSendRequest(WireShape):
    """`chat.send` params (the run's id is the idempotency key, unless in use)."""

    session_key: str
    message: str
    idempotency_key: str


class ChatSendAnswer(WireShape):
    """`chat.send`'s answer."""

    run_id: str
    status: str


class SessionKeyRequest(WireShape):
    """`sessions.reset`, `sessions.delete` and `sessions.messages.subscribe` params."""

    key: str


class SessionForkRequest(WireShape):
    """`sessions.fork` params as the page sends them (docs/portable-sessions.md)."""

    key: str
    at: str | None = None
    model: str | None = None
    runtime: str | None = None


class SessionForkAnswer(WireShape):
    """What the page reads of `sessions.fork`'s answer: the new session's key."""

    key: str


class ApprovalResolveRequest(WireShape):
    id: str
    decision: str


class ErrorAnswer(WireShape):
    """`/ui/api` errors, in the HTTP API's shape (`{"error": {"message", ...}}`)."""

    error: _ErrorShape


WIRE_MODELS: tuple[type[BaseModel], ...] = (
    ContentPart, ChatMessage, ChatEvent, AgentEvent, ToolEventData, LifecycleData,
    ApprovalRequest, ApprovalRequested, ApprovalResolved, _ErrorShape, Frame, _ClientInfo,
    _ConnectAuth, ConnectRequest, ChatSendRequest, ChatSendAnswer, SessionKeyRequest,
    SessionForkRequest, SessionForkAnswer, ApprovalResolveRequest, ErrorAnswer,
)
