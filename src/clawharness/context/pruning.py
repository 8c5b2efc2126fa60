"""Pruning: old, large tool results are shortened in the prompt, never in the store.

A tool result older than the newest `keepLastAssistants` assistant turns whose text is
longer than `softTrim.maxChars` is sent as its first `headChars` and last `tailChars`
characters with a note of how much was left out (the soft trim). When the prompt is
still over budget, old tool results are sent as `hardClear.placeholder` instead (the hard
clear, `clear_old_tool_results`). Both return a new list: a pruned result is a copy,
every other message is the same object, and nothing stored changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from clawharness.config.context import ContextPruningConfig

__all__ = ["PruningRules", "clear_old_tool_results", "prune_tool_results"]

Message = dict[str, Any]


@dataclass(frozen=True, slots=True)
class PruningRules:
    """`agents.defaults.contextPruning`, as the pure rules read it."""

    enabled: bool = True
    keep_last_assistants: int = 3
    max_chars: int = 4_000
    head_chars: int = 1_500
    tail_chars: int = 1_500
    hard_clear: bool = True
    placeholder: str = "[Old tool result content cleared]"

    @classmethod
    def from_config(cls, config: ContextPruningConfig) -> PruningRules:
        return cls(enabled=config.mode != "off",
                   keep_last_assistants=config.keep_last_assistants,
                   max_chars=config.soft_trim.max_chars,
                   head_chars=config.soft_trim.head_chars,
                   tail_chars=config.soft_trim.tail_chars,
                   hard_clear=config.hard_clear.enabled,
                   placeholder=config.hard_clear.placeholder)


def _protected_from(messages: Sequence[Mapping[str, Any]], keep: int) -> int:
    """The index from which tool results are protected: that of the `keep`-th newest
    assistant message (everything when there are fewer)."""
    if keep <= 0:
        return len(messages)
    seen = 0
    for index in range(len(messages) - 1, -1, -1):
        if messages[index].get("role") == "assistant":
            seen += 1
            if seen == keep:
                return index
    return 0


def _text_of(message: Mapping[str, Any]) -> str | None:
    """The text of a tool result made only of text blocks (None: it has other blocks)."""
    content = message.get("content")
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    parts: list[str] = []
    for block in content:
        if not isinstance(block, Mapping) or block.get("type") != "text":
            return None
        text = block.get("text")
        parts.append(text if isinstance(text, str) else "")
    return "".join(parts)


def _with_text(message: Mapping[str, Any], text: str) -> Message:
    copy = dict(message)
    copy["content"] = [{"type": "text", "text": text}]
    copy.pop("details", None)  # what a front shows of the result; never sent anyway
    return copy


def _trimmed(text: str, rules: PruningRules) -> str:
    head = text[:rules.head_chars]
    tail = text[len(text) - rules.tail_chars:] if rules.tail_chars else ""
    left_out = len(text) - len(head) - len(tail)
    return (f"{head}\n[... {left_out} characters of this old tool result left out of the "
            f"prompt ...]\n{tail}")


def prune_tool_results(messages: Sequence[Message], rules: PruningRules) -> list[Message]:
    """The soft trim: old tool results longer than `max_chars`, cut to head and tail."""
    out = list(messages)
    if not rules.enabled:
        return out
    protected = _protected_from(messages, rules.keep_last_assistants)
    floor = rules.head_chars + rules.tail_chars
    for index in range(protected):
        message = messages[index]
        if message.get("role") != "toolResult":
            continue
        text = _text_of(message)
        if text is None or len(text) <= rules.max_chars or len(text) <= floor:
            continue
        out[index] = _with_text(message, _trimmed(text, rules))
    return out


def clear_old_tool_results(messages: Sequence[Message], rules: PruningRules) -> list[Message]:
    """The hard clear: every old tool result's content replaced by the placeholder."""
    out = list(messages)
    if not (rules.enabled and rules.hard_clear):
        return out
    protected = _protected_from(messages, rules.keep_last_assistants)
    for index in range(protected):
        message = messages[index]
        if message.get("role") == "toolResult" and _text_of(message) != rules.placeholder:
            out[index] = _with_text(message, rules.placeholder)
    return out
