"""OpenAI Responses API transport (`api: openai-responses`), streaming.

Any server speaking the Responses API works through `base_url`. Requests are stateless
(the whole context is sent as `input`); reasoning is not replayed. The stream's events
are read as the JSON objects they are (`clawharness.providers.http_stream`), without the
`openai` SDK: importing it and building its stream-event models cost a command-line turn
about a second.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import aclosing
from typing import Any

from clawharness.errors import ProviderError, ProviderServerError
from clawharness.providers.base import (
    NO_USAGE,
    STREAM_CUT_MESSAGE,
    Done,
    Message,
    ModelRequest,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ToolCall,
    ToolSchema,
    Usage,
    error_for_status,
    map_provider_error,
    message_text,
    parse_tool_arguments,
)
from clawharness.providers.http_stream import JsonStreamClient

__all__ = ["OpenAIResponsesTransport", "to_responses_input"]

_PASSTHROUGH = ("temperature", "top_p", "reasoning", "store", "parallel_tool_calls", "text",
                "service_tier", "prompt_cache_key", "metadata", "truncation")
_ALIASES = {"topP": "top_p", "parallelToolCalls": "parallel_tool_calls",
            "serviceTier": "service_tier", "promptCacheKey": "prompt_cache_key"}


def request_options(params: Mapping[str, Any]) -> dict[str, Any]:
    """The model params this API understands, snake_cased; `extraBody` becomes `extra_body`."""
    out: dict[str, Any] = {}
    for key, value in params.items():
        name = _ALIASES.get(key, key)
        if name in _PASSTHROUGH and value is not None:
            out[name] = value
    if "reasoningEffort" in params and "reasoning" not in out:
        out["reasoning"] = {"effort": params["reasoningEffort"]}
    extra = params.get("extraBody", params.get("extra_body"))
    if isinstance(extra, Mapping):
        out["extra_body"] = dict(extra)
    return out


def _user_content(content: Any) -> Any:
    if isinstance(content, str):
        return content
    parts: list[dict[str, Any]] = []
    for block in content or ():
        kind = block.get("type")
        if kind == "text":
            parts.append({"type": "input_text", "text": block.get("text", "")})
        elif kind == "image":
            url = f"data:{block.get('mimeType', 'image/png')};base64,{block.get('data', '')}"
            parts.append({"type": "input_image", "image_url": url, "detail": "auto"})
    return parts


def _convert(message: Message) -> list[dict[str, Any]]:
    role = message.get("role")
    if role == "user":
        return [{"role": "user", "content": _user_content(message.get("content"))}]
    if role == "toolResult":
        return [{
            "type": "function_call_output",
            "call_id": message.get("toolCallId", ""),
            "output": message_text(message.get("content")),
        }]
    if role != "assistant":
        return []
    items: list[dict[str, Any]] = []
    text: list[str] = []
    for block in message.get("content") or ():
        kind = block.get("type")
        if kind == "text" and block.get("text"):
            text.append(block["text"])
        elif kind == "toolCall":
            if text:
                items.append({"role": "assistant", "content": "".join(text)})
                text = []
            items.append({
                "type": "function_call",
                "call_id": block.get("id", ""),
                "name": block.get("name", ""),
                "arguments": json.dumps(block.get("arguments") or {}),
            })
    if text:
        items.append({"role": "assistant", "content": "".join(text)})
    return items


def to_responses_input(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Transcript messages as Responses API `input` items."""
    out: list[dict[str, Any]] = []
    for message in messages:
        out.extend(_convert(message))
    return out


class OpenAIResponsesTransport:
    """Streams the Responses API. One instance serves one attempt (it caches conversions)."""

    api = "openai-responses"

    def __init__(self, client: JsonStreamClient, *, owns_client: bool = False) -> None:
        self._client = client
        self._owns_client = owns_client
        # message dict id -> (message, converted items); the message is kept so ids stay unique
        self._converted: dict[int, tuple[Message, list[dict[str, Any]]]] = {}
        self._tools_key: Sequence[ToolSchema] | None = None
        self._tools: list[dict[str, Any]] = []

    def _input(self, messages: Sequence[Message]) -> list[dict[str, Any]]:
        cache = self._converted
        out: list[dict[str, Any]] = []
        for message in messages:
            hit = cache.get(id(message))
            if hit is None or hit[0] is not message:
                hit = (message, _convert(message))
                cache[id(message)] = hit
            out.extend(hit[1])
        return out

    def _tool_params(self, tools: Sequence[ToolSchema]) -> list[dict[str, Any]]:
        if tools is not self._tools_key:
            self._tools_key = tools
            self._tools = [
                {"type": "function", "name": t.name, "description": t.description,
                 "parameters": dict(t.parameters), "strict": False}
                for t in tools
            ]
        return self._tools

    async def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """Stream one Responses API call."""
        body: dict[str, Any] = {"model": request.model_id,
                                "input": self._input(request.messages), "stream": True}
        options = request_options(request.params)
        extra = options.pop("extra_body", None)
        if request.system_prompt:
            body["instructions"] = request.system_prompt
        if request.tools:
            body["tools"] = self._tool_params(request.tools)
        if request.max_tokens:
            body["max_output_tokens"] = request.max_tokens
        body.update(options)
        if extra:
            body.update(extra)
        saw_call = False
        try:
            async with aclosing(self._client.stream("/responses", body)) as events:
                async for event in events:
                    kind = event.get("type")
                    if kind == "response.output_text.delta":
                        yield TextDelta(event.get("delta") or "")
                    elif kind in ("response.reasoning_summary_text.delta",
                                  "response.reasoning_text.delta"):
                        yield ThinkingDelta(event.get("delta") or "")
                    elif kind == "response.output_item.done":
                        call = _tool_call(event.get("item"))
                        if call is not None:
                            saw_call = True
                            yield call
                    elif kind == "response.completed":
                        yield Done("toolUse" if saw_call else "stop", _usage(event.get("response")))
                        return
                    elif kind == "response.incomplete":
                        yield Done("length", _usage(event.get("response")))
                        return
                    elif kind == "response.failed":
                        response = event.get("response")
                        raise _failed(response.get("error") if isinstance(response, dict) else None)
                    elif kind == "error":
                        raise error_for_status(
                            None, _text(event.get("message")) or "model stream error",
                            error_type=_text(event.get("code")),
                        )
        except ProviderError:
            raise
        except Exception as exc:
            raise map_provider_error(exc, streaming=True) from exc
        raise ProviderServerError(STREAM_CUT_MESSAGE)

    async def aclose(self) -> None:
        """Close the SDK client when this transport created it."""
        if self._owns_client:
            await self._client.close()


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _tool_call(item: Any) -> ToolCall | None:
    if not isinstance(item, dict):
        return None
    kind = item.get("type")
    if kind == "function_call":
        args, error = parse_tool_arguments(item.get("arguments"))
        return ToolCall(item.get("call_id") or "", item.get("name") or "", args, error)
    if kind == "custom_tool_call":
        return ToolCall(item.get("call_id") or "", item.get("name") or "",
                        {"input": item.get("input")})
    return None


def _usage(response: Any) -> Usage:
    usage = response.get("usage") if isinstance(response, dict) else None
    if not isinstance(usage, dict):
        return NO_USAGE
    details = usage.get("input_tokens_details")
    cached = (details.get("cached_tokens") if isinstance(details, dict) else 0) or 0
    # OpenAI's input_tokens include the cached ones: input is what was not cached
    prompt = usage.get("input_tokens") or 0
    out_details = usage.get("output_tokens_details")
    reasoning = out_details.get("reasoning_tokens") if isinstance(out_details, dict) else None
    return Usage.counted(max(0, prompt - cached), usage.get("output_tokens") or 0,
                         min(cached, prompt), reasoning=reasoning or None)


def _failed(error: Any) -> ProviderError:
    fields = error if isinstance(error, dict) else {}
    message = _text(fields.get("message")) or "the model response failed"
    return error_for_status(None, message, error_type=_text(fields.get("code")))
