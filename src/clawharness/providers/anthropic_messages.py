"""Anthropic Messages transport (`api: anthropic-messages`), streaming, via `AsyncAnthropic`.

Transcript messages become strictly alternating user/assistant turns: consecutive tool
results (and a following user message) merge into one user turn, as the API requires.
Thinking blocks are replayed only when they carry a signature.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from anthropic import AsyncAnthropic

from clawharness.errors import ProviderError, ProviderServerError
from clawharness.providers.base import (
    STREAM_CUT_MESSAGE,
    Done,
    Message,
    ModelRequest,
    StopReason,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    ToolSchema,
    Usage,
    map_provider_error,
    message_text,
    parse_tool_arguments,
    route_sdk_options,
)

__all__ = ["DEFAULT_MAX_TOKENS", "AnthropicMessagesTransport", "to_anthropic_messages"]

#: the Messages API requires max_tokens; used when the model declares none
DEFAULT_MAX_TOKENS = 8192

_PASSTHROUGH = ("temperature", "top_p", "top_k", "thinking", "stop_sequences", "metadata",
                "service_tier")
_ALIASES = {"topP": "top_p", "topK": "top_k", "stopSequences": "stop_sequences",
            "serviceTier": "service_tier"}
_STOP: dict[str, StopReason] = {
    "end_turn": "stop", "stop_sequence": "stop", "pause_turn": "stop", "tool_use": "toolUse",
    "max_tokens": "length", "model_context_window_exceeded": "length", "refusal": "error",
}


def request_options(params: Mapping[str, Any]) -> dict[str, Any]:
    """The model params the Messages API understands; `extraBody` becomes `extra_body`."""
    out: dict[str, Any] = {}
    for key, value in params.items():
        name = _ALIASES.get(key, key)
        if name in _PASSTHROUGH and value is not None:
            out[name] = value
    extra = params.get("extraBody", params.get("extra_body"))
    if isinstance(extra, Mapping):
        out["extra_body"] = dict(extra)
    return out


def _user_blocks(content: Any) -> list[dict[str, Any]]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    blocks: list[dict[str, Any]] = []
    for block in content or ():
        kind = block.get("type")
        if kind == "text" and block.get("text"):
            blocks.append({"type": "text", "text": block["text"]})
        elif kind == "image":
            blocks.append({"type": "image", "source": {
                "type": "base64", "media_type": block.get("mimeType", "image/png"),
                "data": block.get("data", "")}})
    return blocks


def _assistant_blocks(content: Any) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    for block in content or ():
        kind = block.get("type")
        if kind == "text" and block.get("text"):
            blocks.append({"type": "text", "text": block["text"]})
        elif kind == "thinking" and block.get("thinkingSignature"):
            blocks.append({"type": "thinking", "thinking": block.get("thinking", ""),
                           "signature": block["thinkingSignature"]})
        elif kind == "toolCall":
            blocks.append({"type": "tool_use", "id": block.get("id", ""),
                           "name": block.get("name", ""), "input": block.get("arguments") or {}})
    return blocks


def _convert(message: Message) -> tuple[str, list[dict[str, Any]]] | None:
    role = message.get("role")
    if role == "user":
        return "user", _user_blocks(message.get("content"))
    if role == "toolResult":
        result: dict[str, Any] = {
            "type": "tool_result",
            "tool_use_id": message.get("toolCallId", ""),
            "content": message_text(message.get("content")),
        }
        if message.get("isError"):
            result["is_error"] = True
        return "user", [result]
    if role == "assistant":
        return "assistant", _assistant_blocks(message.get("content"))
    return None


def _merge(turns: Sequence[tuple[str, list[dict[str, Any]]] | None]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for turn in turns:
        if turn is None or not turn[1]:
            continue
        role, blocks = turn
        if out and out[-1]["role"] == role:
            # a new list: the blocks of the earlier turn are cached and must stay as they are
            out[-1]["content"] = [*out[-1]["content"], *blocks]
        else:
            out.append({"role": role, "content": blocks})
    return out


def to_anthropic_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Transcript messages as alternating Messages API turns."""
    return _merge([_convert(m) for m in messages])


class _Block:
    __slots__ = ("id", "json", "kind", "name")

    def __init__(self, kind: str, block_id: str = "", name: str = "") -> None:
        self.kind = kind
        self.id = block_id
        self.name = name
        self.json: list[str] = []


class AnthropicMessagesTransport:
    """Streams the Messages API. One instance serves one attempt (it caches conversions)."""

    api = "anthropic-messages"

    def __init__(
        self, client: AsyncAnthropic, *, owns_client: bool = False,
        default_max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> None:
        self._client = client
        self._owns_client = owns_client
        self._default_max_tokens = default_max_tokens
        self._converted: dict[int, tuple[Message, tuple[str, list[dict[str, Any]]] | None]] = {}
        self._tools_key: Sequence[ToolSchema] | None = None
        self._tools: list[dict[str, Any]] = []

    def _messages(self, messages: Sequence[Message]) -> list[dict[str, Any]]:
        cache = self._converted
        turns: list[tuple[str, list[dict[str, Any]]] | None] = []
        for message in messages:
            hit = cache.get(id(message))
            if hit is None or hit[0] is not message:
                hit = (message, _convert(message))
                cache[id(message)] = hit
            turns.append(hit[1])
        return _merge(turns)

    def _tool_params(self, tools: Sequence[ToolSchema]) -> list[dict[str, Any]]:
        if tools is not self._tools_key:
            self._tools_key = tools
            self._tools = [
                {"name": t.name, "description": t.description,
                 "input_schema": dict(t.parameters)}
                for t in tools
            ]
        return self._tools

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Stream one Messages API call."""
        create = self._client.messages.create
        kwargs: dict[str, Any] = request_options(request.params)
        if request.system_prompt:
            kwargs["system"] = request.system_prompt
        if request.tools:
            kwargs["tools"] = self._tool_params(request.tools)
        try:
            stream: Any = await create(
                model=request.model_id,
                messages=self._messages(request.messages),  # type: ignore[arg-type]
                max_tokens=request.max_tokens or self._default_max_tokens,
                stream=True,
                **route_sdk_options(create, kwargs),
            )
        except Exception as exc:
            raise map_provider_error(exc) from exc
        blocks: dict[int, _Block] = {}
        # Anthropic's input_tokens are uncached: cache reads and writes are beside them
        input_tokens = output_tokens = cached = written = 0
        stop: StopReason = "stop"
        try:
            async with stream:
                async for event in stream:
                    kind = event.type
                    if kind == "content_block_delta":
                        delta = event.delta
                        dkind = delta.type
                        if dkind == "text_delta":
                            yield TextDelta(delta.text)
                        elif dkind == "input_json_delta":
                            block = blocks.get(event.index)
                            if block is not None:
                                block.json.append(delta.partial_json)
                        elif dkind == "thinking_delta":
                            yield ThinkingDelta(delta.thinking)
                        elif dkind == "signature_delta":
                            yield ThinkingDelta("", signature=delta.signature)
                    elif kind == "content_block_start":
                        cb = event.content_block
                        if cb.type in ("tool_use", "server_tool_use"):
                            blocks[event.index] = _Block("tool", cb.id, cb.name)
                    elif kind == "content_block_stop":
                        block = blocks.pop(event.index, None)
                        if block is not None:
                            args, error = parse_tool_arguments("".join(block.json))
                            yield ToolCall(block.id, block.name, args, error)
                    elif kind == "message_start":
                        usage = event.message.usage
                        input_tokens = usage.input_tokens or 0
                        cached = getattr(usage, "cache_read_input_tokens", 0) or 0
                        written = getattr(usage, "cache_creation_input_tokens", 0) or 0
                        output_tokens = usage.output_tokens or 0
                    elif kind == "message_delta":
                        if event.delta.stop_reason:
                            stop = _STOP.get(event.delta.stop_reason, "stop")
                        if event.usage is not None:
                            output_tokens = event.usage.output_tokens or output_tokens
                            late_input = getattr(event.usage, "input_tokens", None)
                            if late_input:
                                input_tokens = late_input
                    elif kind == "message_stop":
                        yield Done(stop, Usage.counted(input_tokens, output_tokens, cached,
                                                       written or None))
                        return
        except ProviderError:
            raise
        except Exception as exc:
            raise map_provider_error(exc, streaming=True) from exc
        raise ProviderServerError(STREAM_CUT_MESSAGE)

    async def aclose(self) -> None:
        """Close the SDK client when this transport created it."""
        if self._owns_client:
            await self._client.close()
