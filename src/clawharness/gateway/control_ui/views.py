"""The Control UI's views, built from what the host stores: pure functions, no I/O.

A conversation is the session's transcript grouped into turns by the run id each entry
carries (`metadata.runId`, written by the transcript mirror), each turn named by the
time it started and the first words of its message; every tool call is paired with its
result. What a turn took (usage, duration, outcome) comes from `TurnFacts`: the turn's
result while the gateway remembers the run, else its inspector record.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from clawharness.gateway.control_ui.schema import (
    ConversationView,
    CostView,
    SessionSummary,
    TextItem,
    ToolItem,
    TurnView,
    UsageView,
)
from clawharness.store import SessionRecord, TranscriptEntry

__all__ = [
    "MAX_RESULT_CHARS",
    "TurnFacts",
    "conversation_view",
    "facts_from_record",
    "facts_from_result",
    "first_words",
    "last_user_text",
    "session_summary",
    "usage_view",
]

#: a tool result longer than this is cut in the view (the transcript keeps it whole)
MAX_RESULT_CHARS: Final = 4000
#: a title is at most this many words, and this many characters
TITLE_WORDS: Final = 8
TITLE_CHARS: Final = 60


@dataclass(frozen=True, slots=True)
class TurnFacts:
    """What a turn took and how it ended (None where unknown)."""

    usage: UsageView | None = None
    duration_ms: float | None = None
    terminal: str | None = None
    runtime: str | None = None
    model: str | None = None
    error: str | None = None


def first_words(text: str) -> str:
    """A title: the first few words of `text`, on one line, with an ellipsis when cut."""
    words = text.split()
    title = " ".join(words[:TITLE_WORDS])
    cut = len(words) > TITLE_WORDS
    if len(title) > TITLE_CHARS:
        title, cut = title[:TITLE_CHARS - 1].rstrip(), True
    return title + "…" if cut else title


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value)


def _wire(usage: Any) -> Mapping[str, Any] | None:
    """A usage as its wire mapping (a typed usage record writes its own)."""
    if isinstance(usage, Mapping):
        return usage
    to_wire = getattr(usage, "to_wire", None)
    if callable(to_wire):
        wire = to_wire()
        return wire if isinstance(wire, Mapping) else None
    return None


def usage_view(usage: Any) -> UsageView | None:
    """A usage in the original's transcript spelling (`input`, `output`, `cacheRead`,
    `cacheWrite`, `totalTokens`, `cost.total`) as the view's; None when it has no figure."""
    wire = _wire(usage)
    if not wire:
        return None
    cost_raw = wire.get("cost")
    typed = None if isinstance(usage, Mapping) else getattr(usage, "cost", None)
    if cost_raw is None and typed is not None:  # a typed usage keeps its cost beside its wire
        cost_raw = {name: getattr(typed, name, None) for name in ("total", "input", "output")}
    cost = None
    if isinstance(cost_raw, Mapping) and (total := _number(cost_raw.get("total"))) is not None:
        cost = CostView(total=total, input=_number(cost_raw.get("input")),
                        output=_number(cost_raw.get("output")))
    elif (total := _number(cost_raw)) is not None:
        cost = CostView(total=total)
    view = UsageView(input=_int(wire.get("input")), output=_int(wire.get("output")),
                     cache_read=_int(wire.get("cacheRead")),
                     cache_write=_int(wire.get("cacheWrite")),
                     total_tokens=_int(wire.get("totalTokens")), cost=cost)
    return None if view == UsageView() else view


def _sum_usage(usages: Iterable[UsageView]) -> UsageView | None:
    """Per-call usages added up (a turn's total when only its messages say)."""
    total: dict[str, int | None] = {}
    cost: float | None = None
    seen = False
    for usage in usages:
        seen = True
        for name in ("input", "output", "cache_read", "cache_write", "total_tokens"):
            value = getattr(usage, name)
            if value is not None:
                total[name] = (total.get(name) or 0) + value
        if usage.cost is not None:
            cost = (cost or 0.0) + usage.cost.total
    if not seen:
        return None
    return UsageView(**total, cost=None if cost is None else CostView(total=cost))


def facts_from_result(result: Any) -> TurnFacts:
    """From a turn's result (`TurnResult`)."""
    model = getattr(result, "model", None)
    return TurnFacts(usage=usage_view(getattr(result, "usage", None)),
                     duration_ms=_number(getattr(result, "duration_ms", None)),
                     terminal=_text(getattr(result, "terminal", None)),
                     runtime=_text(getattr(result, "runtime", None)),
                     model=model if isinstance(model, str) else None,
                     error=_text(getattr(result, "error", None)))


def facts_from_record(record: Mapping[str, Any]) -> TurnFacts:
    """From a turn's stored inspector record."""
    selections = record.get("selections")
    model = None
    if isinstance(selections, list) and selections and isinstance(selections[-1], Mapping):
        model = _text(selections[-1].get("model"))
    return TurnFacts(usage=usage_view(record.get("usage")),
                     duration_ms=_number(record.get("duration_ms")),
                     terminal=_text(record.get("terminal")),
                     runtime=_text(record.get("runtime")), model=model,
                     error=_text(record.get("error")))


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


# --- a conversation from transcript entries ---------------------------------------------


def _message(entry: TranscriptEntry) -> Mapping[str, Any]:
    content = entry.content
    if isinstance(content, Mapping):
        return content
    return {"role": entry.role, "content": content}


def _parts(message: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    if not isinstance(content, list):
        return []
    return [p for p in content if isinstance(p, Mapping)]


def _plain_text(message: Mapping[str, Any]) -> str:
    return "\n".join(str(p["text"]) for p in _parts(message)
                     if p.get("type") == "text" and isinstance(p.get("text"), str))


def _cut(text: str) -> str:
    if len(text) <= MAX_RESULT_CHARS:
        return text
    return f"{text[:MAX_RESULT_CHARS]}\n… ({len(text) - MAX_RESULT_CHARS} more characters)"


@dataclass(slots=True)
class _Turn:
    run_id: str | None
    started_at: int
    user_text: str = ""
    user_seq: int | None = None
    items: list[TextItem | ToolItem] | None = None
    message_usage: list[UsageView] | None = None
    model: str | None = None

    def add(self, item: TextItem | ToolItem) -> None:
        if self.items is None:
            self.items = []
        self.items.append(item)


def _run_id(entry: TranscriptEntry) -> str | None:
    run_id = entry.metadata.get("runId") if isinstance(entry.metadata, Mapping) else None
    return run_id if isinstance(run_id, str) and run_id else None


def _group(entries: Sequence[TranscriptEntry]) -> list[tuple[str | None, list[TranscriptEntry]]]:
    """Entries by turn: a new turn where the run id changes, or at a user message of
    entries that carry none."""
    groups: list[tuple[str | None, list[TranscriptEntry]]] = []
    for entry in entries:
        run_id = _run_id(entry)
        if groups:
            current, members = groups[-1]
            same = run_id == current if run_id is not None else (
                current is None and entry.role != "user")
            if same:
                members.append(entry)
                continue
        groups.append((run_id, [entry]))
    return groups


def _turn(run_id: str | None, entries: list[TranscriptEntry]) -> _Turn:
    turn = _Turn(run_id=run_id, started_at=int(entries[0].created_at * 1000))
    calls: dict[str, int] = {}
    items: list[TextItem | ToolItem] = []
    for entry in entries:
        message = _message(entry)
        role = str(message.get("role") or entry.role)
        if role == "user" and turn.user_seq is None:
            turn.user_text, turn.user_seq = _plain_text(message), entry.seq
        elif role == "assistant":
            usage = usage_view(message.get("usage"))
            if usage is not None:
                turn.message_usage = [*(turn.message_usage or []), usage]
            provider, model = message.get("provider"), message.get("model")
            if isinstance(model, str) and model:
                turn.model = f"{provider}/{model}" if isinstance(provider, str) else model
            for part in _parts(message):
                kind = part.get("type")
                if kind == "text" and isinstance(part.get("text"), str) and part["text"]:
                    items.append(TextItem(text=part["text"], seq=entry.seq))
                elif kind == "toolCall":
                    call_id = str(part.get("id") or f"call-{len(items)}")
                    calls[call_id] = len(items)
                    items.append(ToolItem(tool_call_id=call_id, name=str(part.get("name")),
                                          arguments=part.get("arguments"),
                                          status="unfinished", seq=entry.seq))
        elif role == "toolResult":
            call_id = str(message.get("toolCallId") or "")
            is_error = bool(message.get("isError"))
            result = ToolItem(tool_call_id=call_id, name=str(message.get("toolName") or "tool"),
                              status="error" if is_error else "ok",
                              result=_cut(_plain_text(message)), is_error=is_error,
                              seq=entry.seq)
            index = calls.get(call_id)
            if index is None:
                items.append(result)
            else:
                call = items[index]
                assert isinstance(call, ToolItem)
                items[index] = call.model_copy(update={
                    "status": result.status, "result": result.result,
                    "is_error": is_error})
    turn.items = items
    return turn


def conversation_view(session_key: str, session_id: str | None, agent_id: str,
                      entries: Sequence[TranscriptEntry], facts: Mapping[str, TurnFacts], *,
                      truncated: bool = False) -> ConversationView:
    """The conversation of `entries` (oldest first); `facts` by run id. When `truncated`
    (older entries were not read), the first turn, likely cut, is left out."""
    groups = _group(entries)
    if truncated and groups:
        groups = groups[1:]
    turns: list[TurnView] = []
    for run_id, members in groups:
        turn = _turn(run_id, members)
        known = facts.get(run_id) if run_id is not None else None
        usage = known.usage if known is not None and known.usage is not None else (
            _sum_usage(turn.message_usage or []))
        turns.append(TurnView(
            run_id=run_id, started_at=turn.started_at, title=first_words(turn.user_text),
            user_text=turn.user_text, user_seq=turn.user_seq, items=turn.items or [],
            usage=usage,
            duration_ms=known.duration_ms if known else None,
            terminal=known.terminal if known else None,
            runtime=known.runtime if known else None,
            model=(known.model if known and known.model else turn.model),
            error=known.error if known else None))
    return ConversationView(session_key=session_key, session_id=session_id, agent_id=agent_id,
                            turns=turns, truncated=truncated)


def last_user_text(entries: Sequence[TranscriptEntry]) -> str | None:
    """The text of the newest user message among `entries`."""
    for entry in reversed(entries):
        message = _message(entry)
        if (message.get("role") or entry.role) == "user":
            text = _plain_text(message).strip()
            if text:
                return text
    return None


def session_summary(record: SessionRecord, recent: Sequence[TranscriptEntry], *,
                    active: bool) -> SessionSummary:
    """A session in the list, titled by its label or its latest message's first words."""
    label = record.meta.label
    if label and label.strip():
        title: str | None = label.strip()
    else:
        text = last_user_text(recent)
        title = first_words(text) if text else None
    return SessionSummary(key=record.key, session_id=record.session_id,
                          agent_id=record.agent_id, title=title,
                          updated_at=int(record.updated_at * 1000),
                          runtime=record.agent_harness_id, model=record.model_ref,
                          has_active_run=active)

