"""An in-process model transport that plays a script (`api: scripted`), with no HTTP.

It reads the same script format as `clawharness.testing.ScriptedModelServer` (`text`,
`tool_calls`, `error`, `cut`, `delay_ms`, `match`, `usage`), so a script behaves alike
over the wire and in process. Benchmarks use it to measure host overhead alone.
"""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import AsyncIterator, Mapping
from typing import TYPE_CHECKING, Any

from clawharness.errors import ProviderServerError
from clawharness.harness import quick_maker
from clawharness.providers.base import (
    STREAM_CUT_MESSAGE,
    Done,
    Message,
    ModelRequest,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    Usage,
    error_for_status,
    message_text,
    parse_tool_arguments,
)

if TYPE_CHECKING:
    from clawharness.providers.script import Script

__all__ = ["ScriptedTransport", "load_any_script"]

# the stream's events, made as their classes make them in fewer instructions (a frozen
# dataclass's `__init__` costs ~1.2k a field; `clawharness._frozen`): a scripted turn's
# events are most of what its transport does
_text_delta = quick_maker(TextDelta)
_thinking_delta = quick_maker(ThinkingDelta)
_tool_call = quick_maker(ToolCall)
_done = quick_maker(Done)


def load_any_script(script: Script | Mapping[str, Any] | str | os.PathLike[str]) -> Script:
    """A validated `Script` from a parsed mapping, a file path, or a `Script`."""
    # imported here: a script is read with YAML, needed only when a turn is scripted
    from clawharness.providers.script import Script, load_script, parse_script

    if isinstance(script, Script):
        return script
    if isinstance(script, Mapping):
        return parse_script(script)
    return load_script(script)


def _latest_text(messages: Any) -> str:
    if not messages:
        return ""
    last: Message = messages[-1]
    if last.get("role") in ("user", "toolResult"):
        return message_text(last.get("content"))
    return ""


def _pieces(text: str, count: int) -> list[str]:
    if len(text) <= 1 or count <= 1:
        return [text]
    size = -(-len(text) // min(count, len(text)))
    return [text[i : i + size] for i in range(0, len(text), size)]


class ScriptedTransport:
    """Plays a script in process. Shares its position across the requests it serves."""

    api = "scripted"

    def __init__(
        self,
        script: Script | Mapping[str, Any] | str | os.PathLike[str],
        *,
        chunks: int = 3,
        keep_requests: bool = True,
    ) -> None:
        from clawharness.providers.script import ScriptPlayer

        self.script = load_any_script(script)
        self._player = ScriptPlayer(self.script)
        self._chunks = chunks
        self._ids = itertools.count(1)
        self._keep = keep_requests
        #: every request served (when `keep_requests`), for tests that inspect what was sent
        self.requests: list[ModelRequest] = []

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Answer one request with the next matching script item."""
        if self._keep:
            self.requests.append(request)
        item = self._player.choose(_latest_text(request.messages))
        if item.delay_ms > 0:
            await asyncio.sleep(item.delay_ms / 1000)
        if item.error is not None:
            raise error_for_status(
                item.error.status, item.error.message, error_type=item.error.type
            )
        if item.thinking:
            for piece in _pieces(item.thinking, self._chunks):
                yield _thinking_delta(piece)
        text = item.text
        if item.cut:
            if text:
                yield _text_delta(_pieces(text, self._chunks)[0])
            raise ProviderServerError(STREAM_CUT_MESSAGE)
        produced = 0
        if text:
            produced += len(text)
            for piece in _pieces(text, self._chunks):
                yield _text_delta(piece)
        for call in item.tool_calls:
            error: str | None = None
            if isinstance(call.arguments, str) and not call.custom:
                args, error = parse_tool_arguments(call.arguments)
            else:
                value = call.arguments_object()
                args = value if isinstance(value, dict) else {}
            produced += len(call.name) + 16
            yield _tool_call(call.id or f"call_{next(self._ids)}", call.name, args, error)
        usage = item.usage
        input_tokens = usage.input_tokens if usage and usage.input_tokens is not None else None
        output_tokens = usage.output_tokens if usage and usage.output_tokens is not None else None
        if input_tokens is None:
            # a constant-time guess: reading the whole context per turn would dominate the
            # host-overhead benchmarks this transport serves
            input_tokens = 16 * max(1, len(request.messages))
        if output_tokens is None:
            output_tokens = max(1, produced // 4)
        cached = usage.cached_of(input_tokens) if usage else 0
        yield _done("toolUse" if item.tool_calls else "stop",
                    Usage.counted(input_tokens - cached, output_tokens, cached or None,
                                  reasoning=(usage.reasoning_tokens if usage else 0) or None))

    async def aclose(self) -> None:
        """Nothing to release."""
