"""The Control UI's JSON, defined once: every shape the page reads, by the names it reads.

Here: what `/ui/api/...` answers. The endpoints build these models and serialise them
(`dump`), so an answer has exactly these fields. What the page reads of the gateway
protocol is declared beside them (`wire.py`). Both are camelCase on the wire (the
protocol is), so the page's JavaScript uses one spelling throughout.

`tests/integration/control_ui/test_ui_names.py` checks that every property name
`static/*.js` uses is one of the names `ui_field_names()` returns, or a name of the
browser's own objects. A new column or button starts here: add the field to its model
(snake_case in Python, camelCase on the wire), fill it where the view is built
(`views.py`), read it in the page.
"""

from __future__ import annotations

from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from clawharness.gateway.control_ui.wire import WIRE_MODELS

__all__ = [
    "ConversationView",
    "CostView",
    "SearchAnswer",
    "SearchHitView",
    "SessionList",
    "SessionSummary",
    "StatusAnswer",
    "StatusView",
    "TextItem",
    "ToolItem",
    "TurnRecordView",
    "TurnView",
    "UsageView",
    "dump",
    "ui_field_names",
]


class UiModel(BaseModel):
    """A shape `/ui/api` answers: camelCase on the wire, nothing else in it."""

    model_config = ConfigDict(alias_generator=to_camel, validate_by_name=True,
                              validate_by_alias=True, extra="forbid", frozen=True)


class StoredShape(UiModel):
    """A shape read from a stored record or a report: its other fields are left out."""

    model_config = ConfigDict(extra="ignore")


def dump(model: BaseModel) -> dict[str, Any]:
    """The model as the page receives it."""
    return model.model_dump(mode="json", by_alias=True)


# --- a conversation: what the chat shows, live and after a reload ----------------------


class CostView(UiModel):
    """What a turn cost, when its usage carries a cost (`usage.cost`, the original's
    transcript shape): `total` in the provider's currency (USD for the usual APIs)."""

    total: float
    input: float | None = None
    output: float | None = None


class UsageView(UiModel):
    """A turn's token usage; None where nothing was reported."""

    input: int | None = None
    output: int | None = None
    cache_read: int | None = None
    cache_write: int | None = None
    total_tokens: int | None = None
    cost: CostView | None = None


class TextItem(UiModel):
    """Text the assistant wrote; `seq` is the transcript entry it came from."""

    kind: Literal["text"] = "text"
    text: str
    seq: int | None = None


ToolStatus = Literal["running", "awaiting-approval", "ok", "error", "unfinished"]


class ToolItem(UiModel):
    """One tool call: its name, arguments, status and result text (cut when long)."""

    kind: Literal["tool"] = "tool"
    tool_call_id: str
    name: str
    arguments: Any = None
    status: ToolStatus
    result: str | None = None
    is_error: bool = False
    seq: int | None = None


class TurnView(UiModel):
    """One turn: the user's message, what the agent did and said, and what it took.

    `title` is the first words of the message; `started_at` is milliseconds since the
    epoch. `usage`, `duration_ms`, `terminal`, `runtime` come from the turn's result
    (while the gateway remembers the run) or its inspector record; `model` is the
    `provider/model` that answered."""

    run_id: str | None
    started_at: int
    title: str
    user_text: str
    user_seq: int | None = None
    items: list[TextItem | ToolItem]
    usage: UsageView | None = None
    duration_ms: float | None = None
    terminal: str | None = None
    runtime: str | None = None
    model: str | None = None
    error: str | None = None


class ConversationView(UiModel):
    """A session's conversation, oldest turn first; `truncated` when older turns were
    left out."""

    session_key: str
    session_id: str | None
    agent_id: str
    turns: list[TurnView]
    truncated: bool = False


class SessionSummary(UiModel):
    """A session in the list: `title` is its label, else the first words of its latest
    message from the user (None before the first)."""

    key: str
    session_id: str
    agent_id: str
    title: str | None
    updated_at: int
    runtime: str | None = None
    model: str | None = None
    has_active_run: bool = False


class SessionList(UiModel):
    """Sessions, most recently updated first, and the agents a new chat can talk to."""

    sessions: list[SessionSummary]
    agent_ids: list[str]
    default_agent_id: str


class SearchHitView(UiModel):
    """A transcript entry that matched a search."""

    session_key: str
    session_id: str
    seq: int
    role: str
    text: str


class SearchAnswer(UiModel):
    hits: list[SearchHitView]


# --- status --------------------------------------------------------------------------


class RuntimePolicyView(StoredShape):
    runtime: str
    source: str


class ModelStatusView(StoredShape):
    ref: str
    runtime: str | None = None
    reason: str | None = None
    policy: RuntimePolicyView | None = None
    error: str | None = None


class AgentStatusView(StoredShape):
    agent_id: str
    models: list[ModelStatusView] = []


class HarnessView(StoredShape):
    id: str
    label: str | None = None
    plugin_id: str | None = None


class StatusView(StoredShape):
    """What the Status page shows of `clawharness status --json`."""

    agents: list[AgentStatusView] = []
    harnesses: list[HarnessView] = []
    warnings: list[str] = []


class StatusAnswer(UiModel):
    status: StatusView


# --- the turn inspector --------------------------------------------------------------


class CandidateView(StoredShape):
    id: str | None = None
    supported: bool | None = None
    reason: str | None = None


class SelectionView(StoredShape):
    attempt: int
    model: str
    selected_harness_id: str | None = None
    selected_reason: str | None = None
    runtime: str | None = None
    runtime_source: str | None = None
    candidates: list[CandidateView] = []


class TimelineView(StoredShape):
    """One timeline event; `data` is shown as it was recorded."""

    at_ms: float
    kind: str
    duration_ms: float | None = None
    data: dict[str, Any] | None = None


class ToolCallRecordView(StoredShape):
    tool_call_id: str | None = None
    name: str
    arguments: Any = None
    outcome: str
    duration_ms: float | None = None


class ApprovalRecordView(StoredShape):
    tool: str
    reason: str | None = None
    decision: str
    waited_ms: float | None = None


class TurnRecordView(StoredShape):
    """A turn's inspector record (`attempt/inspector.py` writes it; docs/control-ui.md).
    `lease`, `native` and `delivery` are shown as recorded."""

    run_id: str
    session_key: str
    session_id: str | None = None
    started_at: float
    duration_ms: float
    terminal: str
    error: str | None = None
    runtime: str
    selected_reason: str | None = None
    selections: list[SelectionView] = []
    timeline: list[TimelineView] = []
    tool_calls: list[ToolCallRecordView] = []
    approvals: list[ApprovalRecordView] = []
    lease: dict[str, Any] | None = None
    native: dict[str, Any] | None = None
    delivery: dict[str, Any] | None = None
    finalization: str | None = None
    usage: UsageView | None = None


#: every model whose field names the page may use
UI_MODELS: Final[tuple[type[BaseModel], ...]] = (
    CostView, UsageView, TextItem, ToolItem, TurnView, ConversationView, SessionSummary,
    SessionList, SearchHitView, SearchAnswer, RuntimePolicyView, ModelStatusView,
    AgentStatusView, HarnessView, StatusView, StatusAnswer, CandidateView, SelectionView,
    TimelineView, ToolCallRecordView, ApprovalRecordView, TurnRecordView, *WIRE_MODELS,
)


def ui_field_names() -> frozenset[str]:
    """Every wire name of every model the page reads or sends."""
    names: set[str] = set()
    for model in UI_MODELS:
        for name, info in model.model_fields.items():
            names.add(info.alias or name)
    return frozenset(names)
