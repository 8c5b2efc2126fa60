"""The prompt's history: the latest compaction summary, the entries it kept, what came after.

A compaction stores one transcript entry of its own kind (role `compactionSummary`):

    {"role": "compactionSummary", "summary": "...", "content": [{"type": "text", ...}],
     "keptEntries": 12, "tokensBefore": 5400, "focus"?: "...", "timestamp": ms}

The summarised entries stay in the store (and in search; so does the summary, by its
text). `keptEntries` counts the entries right before the summary that its prompt keeps
verbatim, so the prompt of a window of stored messages is: the summary (as a user
message), those entries, and every entry after the summary (`prompt_view`).

Which span a compaction summarises is pure too (`select_cut`): everything before a cut
that is a user or assistant message, so a tool call and its result are never split; the
newest `keep` tokens stay. `fit_to_budget` is the last resort when a prompt is still too
large: soft trim, hard clear, then the oldest messages left out at such a cut.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from typing import Any

from clawharness.context.budget import TokenCounter
from clawharness.context.pruning import PruningRules, clear_old_tool_results, prune_tool_results

__all__ = [
    "SUMMARY_MARK",
    "SUMMARY_ROLE",
    "fit_to_budget",
    "is_summary_message",
    "keyed",
    "prompt_view",
    "select_cut",
    "summary_entry",
    "summary_prompt_message",
]

Message = dict[str, Any]

#: the role of a compaction summary's transcript entry
SUMMARY_ROLE = "compactionSummary"
#: the key marking the user message a summary is sent as (a host-internal key, as
#: `__meta` is: no provider transport sends it)
SUMMARY_MARK = "__summary"
_CUT_ROLES = frozenset({"user", "assistant"})


def summary_entry(summary: str, *, kept_entries: int, tokens_before: int,
                  focus: str | None = None) -> Message:
    """The transcript message a compaction stores."""
    message: Message = {"role": SUMMARY_ROLE, "summary": summary,
                        "content": [{"type": "text", "text": summary}],
                        "keptEntries": kept_entries, "tokensBefore": tokens_before,
                        "timestamp": int(time.time() * 1000)}
    if focus:
        message["focus"] = focus
    return message


def keyed(message: Message, idempotency_key: str) -> Message:
    """`message` with the idempotency key the transcript mirror stores it under."""
    return {**message, "__meta": {"idempotencyKey": idempotency_key}}


def summary_prompt_message(summary: str) -> Message:
    """A summary as the model is sent it: a user message before the kept history."""
    text = ("The earlier part of this conversation was compacted into this summary:\n"
            f"<summary>\n{summary}\n</summary>")
    return {"role": "user", "content": [{"type": "text", "text": text}],
            SUMMARY_MARK: True}


def is_summary_message(message: Mapping[str, Any]) -> bool:
    """A summary as stored, or as sent (`summary_prompt_message`)."""
    return message.get("role") == SUMMARY_ROLE or message.get(SUMMARY_MARK) is True


def _summary_text(message: Mapping[str, Any]) -> str:
    summary = message.get("summary")
    if isinstance(summary, str):
        return summary
    content = message.get("content")
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content
                       if isinstance(b, Mapping) and b.get("type") == "text")
    return ""


def prompt_view(window: Sequence[Message]) -> tuple[list[Message], list[int]]:
    """The history a prompt carries of a window of stored messages (oldest first), and
    for each of its messages the index in `window` it came from (-1: the summary)."""
    last = -1
    for index in range(len(window) - 1, -1, -1):
        if window[index].get("role") == SUMMARY_ROLE:
            last = index
            break
    if last < 0:
        return list(window), list(range(len(window)))
    summary = window[last]
    kept = summary.get("keptEntries")
    start = max(0, last - (kept if isinstance(kept, int) and kept >= 0 else 0))
    while start < last and window[start].get("role") == "toolResult":
        start += 1  # the window began inside a kept tool round: its call is not here
    indices = [i for i in (*range(start, last), *range(last + 1, len(window)))
               if window[i].get("role") != SUMMARY_ROLE]
    return ([summary_prompt_message(_summary_text(summary)), *(window[i] for i in indices)],
            [-1, *indices])


def select_cut(messages: Sequence[Mapping[str, Any]], keep_tokens: int,
               counter: TokenCounter) -> int | None:
    """Where a compaction of `messages` cuts: everything before the returned index is
    summarised. The cut is a user message if one keeps the newest at most `keep_tokens`,
    else an assistant message, else the newest possible cut; None when nothing can be
    summarised (no cut after the first message)."""
    tail = 0
    best_user: int | None = None
    best_any: int | None = None
    newest: int | None = None
    for index in range(len(messages) - 1, 0, -1):
        message = messages[index]
        tail += counter.message(message)
        if message.get("role") not in _CUT_ROLES or is_summary_message(message):
            continue
        if newest is None:
            newest = index
        if tail <= keep_tokens:
            best_any = index
            if message.get("role") == "user":
                best_user = index
    if best_user is not None:
        return best_user
    return best_any if best_any is not None else newest


def fit_to_budget(messages: Sequence[Message], budget: int, counter: TokenCounter,
                  rules: PruningRules) -> list[Message]:
    """The prompt's messages within `budget` tokens: soft trim; if still over, hard
    clear; if still over, the oldest left out at a user or assistant message (a leading
    summary stays while it fits). The newest message always stays."""
    out = prune_tool_results(messages, rules)
    total = counter.messages(out)
    if total <= budget:
        return out
    out = clear_old_tool_results(out, rules)
    total = counter.messages(out)
    if total <= budget or len(out) <= 1:
        return out
    head: list[Message] = []
    if is_summary_message(out[0]) and counter.message(out[0]) + counter.message(out[-1]) <= budget:
        head = [out[0]]
        total_head = counter.message(out[0])
    else:
        total_head = 0
    body = out[len(head):]
    # the oldest cut whose tail fits; else the newest cut (the least coherent prompt)
    tail = 0
    fitting: int | None = None
    newest: int | None = None
    for index in range(len(body) - 1, -1, -1):
        tail += counter.message(body[index])
        if body[index].get("role") not in _CUT_ROLES or is_summary_message(body[index]):
            continue
        if newest is None:
            newest = index
        if total_head + tail <= budget:
            fitting = index
    start = fitting if fitting is not None else newest
    if start is None:
        return out
    return [*head, *body[start:]]
