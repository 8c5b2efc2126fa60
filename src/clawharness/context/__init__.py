"""A turn's context: its token budget, pruning of old tool results, compaction's pure rules.

`budget` estimates tokens and sets what a prompt may hold, `pruning` shortens old tool
results in the prompt (never in the store), `window` builds the prompt's history from a
compaction summary and chooses the span a compaction summarises, `summarise` is what the
model is asked. Nothing here does I/O; the turn runner (`clawharness.attempt.compaction`)
does it. docs/compaction.md.
"""

from __future__ import annotations

from clawharness.context.budget import (
    CHARS_PER_TOKEN,
    ContextBudget,
    TokenCounter,
    estimate_message_tokens,
    estimate_text_tokens,
    reply_reserve,
)
from clawharness.context.pruning import PruningRules, clear_old_tool_results, prune_tool_results
from clawharness.context.summarise import SUMMARY_SYSTEM_PROMPT, render_span, summary_request
from clawharness.context.window import (
    SUMMARY_MARK,
    SUMMARY_ROLE,
    fit_to_budget,
    is_summary_message,
    keyed,
    prompt_view,
    select_cut,
    summary_entry,
    summary_prompt_message,
)

__all__ = [
    "CHARS_PER_TOKEN",
    "SUMMARY_MARK",
    "SUMMARY_ROLE",
    "SUMMARY_SYSTEM_PROMPT",
    "ContextBudget",
    "PruningRules",
    "TokenCounter",
    "clear_old_tool_results",
    "estimate_message_tokens",
    "estimate_text_tokens",
    "fit_to_budget",
    "is_summary_message",
    "keyed",
    "prompt_view",
    "prune_tool_results",
    "render_span",
    "reply_reserve",
    "select_cut",
    "summary_entry",
    "summary_prompt_message",
    "summary_request",
]
