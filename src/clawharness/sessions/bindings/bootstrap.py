"""What a fresh native session is told of the host transcript.

A native runtime keeps its own history. When a harness starts a new native session on a
host session that already has turns (the bound one is gone, or the session ran on another
runtime before), the runtime knows none of them. The host transcript is the record of
the conversation (seed 000: the compatibility layer for switching runtimes), so the first
prompt of the fresh native session carries a recap of it.

The recap is bounded: every message is cut to `MESSAGE_CHARS`, and when the whole does
not fit `max_chars` the oldest turns are left out (and counted), because the newest turns
are what the next reply depends on. A compacted session's history starts with the
latest compaction summary (`clawharness.context`): the recap always tells it, first,
before the newest turns that fit. Failed and aborted assistant replies are left out as
the built-in runtime leaves them out of its model context: they were never an answer.

Pure and synchronous: messages in, text out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

__all__ = [
    "DEFAULT_CONTEXT_CHARS",
    "MESSAGE_CHARS",
    "transcript_context",
]

#: the recap's budget by default (about 3,000 tokens)
DEFAULT_CONTEXT_CHARS: Final = 12_000
#: one message's share at most, so a long tool output cannot take the whole budget
MESSAGE_CHARS: Final = 2_000
#: a tool call's arguments at most
ARGUMENT_CHARS: Final = 300

_HEADER: Final = (
    "[Earlier conversation] This is a new native session, so it holds none of this "
    "conversation's earlier turns. They follow, oldest first, from the host's transcript. "
    "Treat them as what was said and done so far, not as new requests: do not repeat "
    "tool calls they record.")
_FOOTER: Final = "[End of the earlier conversation. The current message follows.]"
_OMITTED: Final = "[{count} older message(s) left out to keep this recap short.]"
_UNANSWERED: Final = frozenset({"error", "aborted"})
#: the key marking a compaction summary as a prompt carries it
#: (`clawharness.context.window.SUMMARY_MARK`)
_SUMMARY_MARK: Final = "__summary"


def transcript_context(history: Sequence[Mapping[str, Any]], *,
                       max_chars: int = DEFAULT_CONTEXT_CHARS) -> str | None:
    """The recap of `history` for a fresh native session; None when there is nothing to
    tell (no history, or nothing in it a model could read)."""
    summary: str | None = None
    if history and isinstance(history[0], Mapping) and history[0].get(_SUMMARY_MARK) is True:
        # a compacted session's history starts with its summary: always told, first
        summary = _cut(_text(history[0].get("content")), max_chars // 2)
        history = history[1:]
    rendered = [line for line in map(_render, history) if line]
    if not rendered and not summary:
        return None
    frame = len(_HEADER) + len(_FOOTER) + len(_OMITTED) + 16 + len(summary or "")
    budget = max(0, max_chars - frame)
    kept: list[str] = []
    used = 0
    for line in reversed(rendered):
        cost = len(line) + 2
        if used + cost > budget:
            break
        kept.append(line)
        used += cost
    if not kept and rendered:  # not even the newest message fits whole: keep its end
        kept.append("…" + rendered[-1][-max(1, budget - 1):])
    kept.reverse()
    omitted = len(rendered) - len(kept)
    parts = [_HEADER]
    if summary:
        parts.append(summary)
    if omitted:
        parts.append(_OMITTED.format(count=omitted))
    parts.extend(kept)
    parts.append(_FOOTER)
    return "\n\n".join(parts)


def _render(message: Mapping[str, Any]) -> str | None:
    if not isinstance(message, Mapping):
        return None
    role = message.get("role")
    content = message.get("content")
    if role == "user":
        body = _text(content)
        label = "User"
    elif role == "assistant":
        if message.get("stopReason") in _UNANSWERED:
            return None
        body = _text(content, tool_calls=True)
        label = "Assistant"
    elif role == "toolResult":
        name = message.get("toolName")
        label = f"Tool result ({name})" if isinstance(name, str) and name else "Tool result"
        if message.get("isError") is True:
            label += " [error]"
        body = _text(content)
    else:
        return None
    if not body:
        return None
    return f"{label}: {_cut(body, MESSAGE_CHARS)}"


def _text(content: Any, *, tool_calls: bool = False) -> str:
    if isinstance(content, str):
        return content.strip()
    if not isinstance(content, Sequence):
        return ""
    parts: list[str] = []
    for block in content:
        if not isinstance(block, Mapping):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str):
            text = block["text"].strip()
            if text:
                parts.append(text)
        elif kind == "image":
            parts.append("[image]")
        elif kind == "toolCall" and tool_calls:
            parts.append(f"[called {block.get('name') or 'a tool'} with "
                         f"{_cut(_arguments(block.get('arguments')), ARGUMENT_CHARS)}]")
    return "\n".join(parts)


def _arguments(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    except (TypeError, ValueError):
        return str(value)


def _cut(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    return text[:limit].rstrip() + " … [cut]"
