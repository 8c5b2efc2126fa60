"""A prompt's size in tokens, estimated, and how many tokens an attempt's prompt may use.

The estimate is one token per three characters of what the model is sent (text,
thinking, a tool call's name and JSON arguments, a tool result's text), plus a few
tokens of framing per message and a flat 1,200 per image. No tokenizer is loaded:
counting must cost nothing next to a turn. Three, not the usual four, because small
models' tokenizers cut finer: against SmolLM2's own (llama.cpp's `/tokenize`), the
estimate is 1.07-1.11x the counted tokens on prose, docs and chat transcripts, 1.25x on
Python source, and 0.71x on dense JSON (docs/compaction.md has the figures). On OpenAI's
and Anthropic's tokenizers (about four characters a token) it overestimates, which only
compacts a little early. A provider's context-overflow error is the backstop: it
compacts and retries once.

The budget: the model's `contextWindow` (`models.providers.*.models[]`) less the reply
reserve (`agents.defaults.compaction.reserveTokens`, raised to `reserveTokensFloor` and
to the model's `maxTokens`, and capped at half the window), less the system prompt and
the tool schemas, which every model call carries. Without a configured context window
there is no budget: the prompt is the last `history limit` messages, as before.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

__all__ = [
    "CHARS_PER_TOKEN",
    "ContextBudget",
    "TokenCounter",
    "estimate_message_tokens",
    "estimate_text_tokens",
    "reply_reserve",
]

#: characters per token of the estimate
CHARS_PER_TOKEN = 3
#: tokens of framing per message (role markers, separators)
MESSAGE_OVERHEAD_TOKENS = 4
#: tokens counted for an image block
IMAGE_TOKENS = 1_200


#: made once (`json.dumps` with options builds an encoder per call)
_ENCODER: Final = json.JSONEncoder(ensure_ascii=False, default=str)


def estimate_text_tokens(text: str) -> int:
    """Tokens of a text: a quarter of its characters, rounded up."""
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


def _block_chars(block: Any) -> tuple[int, int]:
    """(characters, image tokens) of one content block."""
    if isinstance(block, str):
        return len(block), 0
    if not isinstance(block, Mapping):
        return 0, 0
    kind = block.get("type")
    if kind == "image":
        return 0, IMAGE_TOKENS
    chars = 0
    for key in ("text", "thinking"):
        value = block.get(key)
        if isinstance(value, str):
            chars += len(value)
    if kind == "toolCall":
        chars += len(str(block.get("name", "")))
        arguments = block.get("arguments")
        chars += len(arguments) if isinstance(arguments, str) else len(
            _ENCODER.encode(arguments))
    return chars, 0


def estimate_message_tokens(message: Mapping[str, Any]) -> int:
    """Tokens of one transcript message of the wire shape, as a model would be sent it."""
    content = message.get("content")
    chars, images = 0, 0
    if isinstance(content, str):
        chars = len(content)
    elif isinstance(content, list):
        for block in content:
            more, pictures = _block_chars(block)
            chars += more
            images += pictures
    summary = message.get("summary")
    if isinstance(summary, str) and not chars:
        chars = len(summary)
    return MESSAGE_OVERHEAD_TOKENS + images + (chars + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN


class TokenCounter:
    """Estimates, remembered per message object (a settled message is never changed, and
    an attempt's context shares its messages with the host's cached window, so a message
    is measured once however many model calls and turns carry it). At most `max_entries`
    are remembered: past that the memory starts afresh."""

    __slots__ = ("_known", "_max")

    def __init__(self, *, max_entries: int = 100_000) -> None:
        #: id -> (the message, kept alive so its id is not reused; its tokens)
        self._known: dict[int, tuple[Mapping[str, Any], int]] = {}
        self._max = max_entries

    def message(self, message: Mapping[str, Any]) -> int:
        known = self._known.get(id(message))
        if known is not None and known[0] is message:
            return known[1]
        tokens = estimate_message_tokens(message)
        if len(self._known) >= self._max:
            self._known.clear()
        self._known[id(message)] = (message, tokens)
        return tokens

    def messages(self, messages: Iterable[Mapping[str, Any]]) -> int:
        count = self.message
        return sum(count(m) for m in messages)


def reply_reserve(context_window: int, *, reserve_tokens: int, reserve_floor: int,
                  max_tokens: int | None) -> int:
    """The tokens left for the reply: the largest of the configured reserve, its floor
    and the model's reply cap, never more than half the window."""
    wanted = max(reserve_tokens, reserve_floor, max_tokens or 0)
    return min(wanted, context_window // 2)


@dataclass(frozen=True, slots=True)
class ContextBudget:
    """What one attempt's prompt may hold, in estimated tokens."""

    #: the model's context window
    context_window: int
    #: kept free for the reply
    reserve: int
    #: what every call carries besides the history: system prompt and tool schemas
    fixed: int = 0

    @property
    def history(self) -> int:
        """Tokens the messages of a model call may use (at least 1)."""
        return max(1, self.context_window - self.reserve - self.fixed)

    @staticmethod
    def fixed_tokens(system_prompt: str | None, tools: Sequence[Any]) -> int:
        """Tokens of the system prompt and of each tool's name, description and schema."""
        chars = len(system_prompt or "")
        for tool in tools:
            chars += len(str(getattr(tool, "name", ""))) + len(
                str(getattr(tool, "description", "")))
            chars += len(json.dumps(getattr(tool, "parameters", {}) or {}, default=str))
        return (chars + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN
