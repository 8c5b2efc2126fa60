"""OpenAI Chat Completions transport (`api: openai-completions`), via `AsyncOpenAI`.

This is the widest-spoken API: Ollama, vLLM, llama.cpp, LM Studio and most gateways
serve it at a `base_url`. Reasoning deltas (`reasoning_content` / `reasoning`) that such
servers add are streamed as thinking.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from openai import AsyncOpenAI

from clawharness.errors import ProviderError, ProviderServerError
from clawharness.providers.base import (
    NO_USAGE,
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

__all__ = ["OpenAIChatTransport", "to_chat_messages"]

_PASSTHROUGH = ("temperature", "top_p", "reasoning_effort", "seed", "stop", "presence_penalty",
                "frequency_penalty", "parallel_tool_calls", "service_tier")
_ALIASES = {"topP": "top_p", "reasoningEffort": "reasoning_effort",
            "presencePenalty": "presence_penalty", "frequencyPenalty": "frequency_penalty",
            "parallelToolCalls": "parallel_tool_calls", "serviceTier": "service_tier"}
_FINISH: dict[str, StopReason] = {
    "stop": "stop", "tool_calls": "toolUse", "function_call": "toolUse", "length": "length",
    "content_filter": "error",
}


def request_options(params: Mapping[str, Any]) -> dict[str, Any]:
    """The model params Chat Completions understands; `extraBody` becomes `extra_body`."""
    out: dict[str, Any] = {}
    for key, value in params.items():
        name = _ALIASES.get(key, key)
        if name in _PASSTHROUGH and value is not None:
            out[name] = value
    extra = params.get("extraBody", params.get("extra_body"))
    if isinstance(extra, Mapping):
        out["extra_body"] = dict(extra)
    return out


def _user_content(content: Any) -> Any:
    if isinstance(content, str):
        return content
    blocks = list(content or ())
    if all(b.get("type") == "text" for b in blocks):
        return message_text(blocks)
    parts: list[dict[str, Any]] = []
    for block in blocks:
        if block.get("type") == "text":
            parts.append({"type": "text", "text": block.get("text", "")})
        elif block.get("type") == "image":
            url = f"data:{block.get('mimeType', 'image/png')};base64,{block.get('data', '')}"
            parts.append({"type": "image_url", "image_url": {"url": url}})
    return parts


def _convert(message: Message) -> dict[str, Any] | None:
    role = message.get("role")
    if role == "user":
        return {"role": "user", "content": _user_content(message.get("content"))}
    if role == "toolResult":
        return {
            "role": "tool",
            "tool_call_id": message.get("toolCallId", ""),
            "content": message_text(message.get("content")),
        }
    if role != "assistant":
        return None
    text: list[str] = []
    calls: list[dict[str, Any]] = []
    for block in message.get("content") or ():
        kind = block.get("type")
        if kind == "text" and block.get("text"):
            text.append(block["text"])
        elif kind == "toolCall":
            calls.append({
                "id": block.get("id", ""),
                "type": "function",
                "function": {"name": block.get("name", ""),
                             "arguments": json.dumps(block.get("arguments") or {})},
            })
    if not text and not calls:
        return None
    out: dict[str, Any] = {"role": "assistant", "content": "".join(text) if text else None}
    if calls:
        out["tool_calls"] = calls
    return out


def to_chat_messages(system_prompt: str | None, messages: Sequence[Message]) -> list[Any]:
    """Transcript messages as Chat Completions `messages` (system prompt first)."""
    out: list[Any] = [{"role": "system", "content": system_prompt}] if system_prompt else []
    for message in messages:
        converted = _convert(message)
        if converted is not None:
            out.append(converted)
    return out


class _PendingCall:
    __slots__ = ("args", "id", "name")

    def __init__(self) -> None:
        self.id = ""
        self.name = ""
        self.args: list[str] = []


class OpenAIChatTransport:
    """Streams Chat Completions. One instance serves one attempt (it caches conversions)."""

    api = "openai-completions"

    def __init__(
        self, client: AsyncOpenAI, *, owns_client: bool = False, stream_usage: bool = True
    ) -> None:
        self._client = client
        self._owns_client = owns_client
        self._stream_usage = stream_usage
        self._converted: dict[int, tuple[Message, dict[str, Any] | None]] = {}
        self._tools_key: Sequence[ToolSchema] | None = None
        self._tools: list[dict[str, Any]] = []

    def _messages(self, system_prompt: str | None, messages: Sequence[Message]) -> list[Any]:
        out: list[Any] = [{"role": "system", "content": system_prompt}] if system_prompt else []
        cache = self._converted
        for message in messages:
            hit = cache.get(id(message))
            if hit is None or hit[0] is not message:
                hit = (message, _convert(message))
                cache[id(message)] = hit
            if hit[1] is not None:
                out.append(hit[1])
        return out

    def _tool_params(self, tools: Sequence[ToolSchema]) -> list[dict[str, Any]]:
        if tools is not self._tools_key:
            self._tools_key = tools
            self._tools = [
                {"type": "function", "function": {
                    "name": t.name, "description": t.description,
                    "parameters": dict(t.parameters)}}
                for t in tools
            ]
        return self._tools

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Stream one Chat Completions call."""
        create = self._client.chat.completions.create
        kwargs: dict[str, Any] = request_options(request.params)
        if request.tools:
            kwargs["tools"] = self._tool_params(request.tools)
        if request.max_tokens:
            kwargs["max_tokens"] = request.max_tokens
        if self._stream_usage:
            kwargs["stream_options"] = {"include_usage": True}
        try:
            stream: Any = await create(
                model=request.model_id,
                messages=self._messages(request.system_prompt, request.messages),
                stream=True,
                **route_sdk_options(create, kwargs),
            )
        except Exception as exc:
            raise map_provider_error(exc) from exc
        pending: dict[int, _PendingCall] = {}
        finish: str | None = None
        usage = NO_USAGE
        try:
            async with stream:
                async for chunk in stream:
                    if chunk.usage is not None:
                        usage = _usage(chunk.usage)
                    if not chunk.choices:
                        continue
                    choice = chunk.choices[0]
                    delta = choice.delta
                    if delta is not None:
                        if delta.content:
                            yield TextDelta(delta.content)
                        thinking = _reasoning(delta)
                        if thinking:
                            yield ThinkingDelta(thinking)
                        for part in delta.tool_calls or ():
                            slot = pending.get(part.index)
                            if slot is None:
                                slot = pending[part.index] = _PendingCall()
                            if part.id:
                                slot.id = part.id
                            fn = part.function
                            if fn is not None:
                                if fn.name:
                                    slot.name = fn.name
                                if fn.arguments:
                                    slot.args.append(fn.arguments)
                    if choice.finish_reason:
                        finish = choice.finish_reason
        except ProviderError:
            raise
        except Exception as exc:
            raise map_provider_error(exc, streaming=True) from exc
        if finish is None:
            raise ProviderServerError(STREAM_CUT_MESSAGE)
        for index in sorted(pending):
            slot = pending[index]
            args, error = parse_tool_arguments("".join(slot.args))
            yield ToolCall(slot.id or f"call_{index}", slot.name, args, error)
        stop = _FINISH.get(finish, "stop")
        if pending and stop == "stop":
            # some servers (Ollama) finish with "stop" even when they called tools
            stop = "toolUse"
        yield Done(stop, usage)

    async def aclose(self) -> None:
        """Close the SDK client when this transport created it."""
        if self._owns_client:
            await self._client.close()


def _reasoning(delta: Any) -> str | None:
    extra = getattr(delta, "model_extra", None) or {}
    value = extra.get("reasoning_content") or extra.get("reasoning")
    return value if isinstance(value, str) else None


def _usage(usage: Any) -> Usage:
    details = getattr(usage, "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", 0) or 0
    # prompt_tokens include the cached ones: input is what was not cached
    prompt = usage.prompt_tokens or 0
    reasoning = getattr(getattr(usage, "completion_tokens_details", None),
                        "reasoning_tokens", None)
    return Usage.counted(max(0, prompt - cached), usage.completion_tokens or 0,
                         min(cached, prompt), reasoning=reasoning or None)
