"""What the model is asked when it summarises a span of the conversation (pure).

The span is rendered as plain lines (`User:`, `Assistant:`, a tool call with its
arguments, a tool result, an earlier summary first), each message cut to
`MESSAGE_CHARS`, and the whole to the characters the summarising call may take (its
newest part kept when it must be cut, after the earlier summary). The request asks for
every fact the user stated, decisions, open tasks and what tools found; `/compact FOCUS`
adds the focus.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from clawharness.context.window import is_summary_message

__all__ = ["SUMMARY_SYSTEM_PROMPT", "render_span", "summary_request"]

#: characters of one message the summarising model is shown at most
MESSAGE_CHARS = 2_000

SUMMARY_SYSTEM_PROMPT = (
    "You write the memory of a conversation between a user and an assistant. The "
    "assistant will continue the conversation from your summary alone, so keep every "
    "fact the user stated (names, numbers, identifiers, dates, preferences), every "
    "decision, what the tools found and every open task. Write plain, short sentences.")


def _cut(text: str, limit: int = MESSAGE_CHARS) -> str:
    return text if len(text) <= limit else f"{text[:limit]} [...]"


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    parts: list[str] = []
    if isinstance(content, list):
        for block in content:
            if isinstance(block, Mapping) and block.get("type") == "text":
                text = block.get("text")
                parts.append(text if isinstance(text, str) else "")
    return "".join(parts)


def _lines(message: Mapping[str, Any]) -> list[str]:
    role = message.get("role")
    if is_summary_message(message):
        return [f"Summary of what came before:\n{_cut(_text(message.get('content')), 8_000)}"]
    if role == "user":
        return [f"User: {_cut(_text(message.get('content')))}"]
    if role == "toolResult":
        label = "failed" if message.get("isError") else "returned"
        return [f"Tool {message.get('toolName', '')} {label}: "
                f"{_cut(_text(message.get('content')))}"]
    if role != "assistant":
        return []
    lines: list[str] = []
    content = message.get("content")
    for block in content if isinstance(content, list) else []:
        if not isinstance(block, Mapping):
            continue
        if block.get("type") == "text" and block.get("text"):
            lines.append(f"Assistant: {_cut(str(block['text']))}")
        elif block.get("type") == "toolCall":
            arguments = json.dumps(block.get("arguments"), ensure_ascii=False, default=str)
            lines.append(f"Assistant called tool {block.get('name', '')}: {_cut(arguments, 500)}")
    return lines


def render_span(messages: Sequence[Mapping[str, Any]], max_chars: int) -> str:
    """The span as lines, within `max_chars` (an earlier summary first, then the newest
    lines that fit, with a note of how many older ones were left out)."""
    head: list[str] = []
    body: list[str] = []
    for message in messages:
        (head if is_summary_message(message) else body).extend(_lines(message))
    used = sum(len(line) + 1 for line in head)
    kept: list[str] = []
    for line in reversed(body):
        if used + len(line) + 1 > max_chars and kept:
            break
        kept.append(line)
        used += len(line) + 1
    kept.reverse()
    left_out = len(body) - len(kept)
    note = [f"[{left_out} older lines left out]"] if left_out else []
    return "\n".join([*head, *note, *kept])


def summary_request(span: str, focus: str | None = None) -> tuple[str, str]:
    """(system prompt, prompt) of the summarising call."""
    ask = ("Summarise the conversation below so the assistant can continue it without "
           "the original.")
    if focus:
        ask += f" Focus on: {focus}."
    return SUMMARY_SYSTEM_PROMPT, f"{ask}\n\n<conversation>\n{span}\n</conversation>"
