"""Isolated completion for the built-in runtime: one prompt-only call, zero tools.

The built-in runtime owns its model transports, so it can make a request with a literal
empty tool surface and no thread, hooks or delivery. It serves only host-authorized
calls (`owner: "host"`): the exact transport model and credential the host resolved.
"""

from __future__ import annotations

import asyncio
from typing import Any

from clawharness.harnesses.embedded.messages import user_message
from clawharness.plugin_sdk.agent_harness_runtime import HarnessError
from clawharness.providers import (
    Done,
    ModelRequest,
    ModelTransport,
    ProviderError,
    TextDelta,
    ThinkingDelta,
    ToolCall,
)

__all__ = ["complete_once"]


async def complete_once(transport: ModelTransport, params: Any) -> dict[str, Any]:
    """Run the call and return `{"assistant": message}` (validation is the host's)."""
    authorization = params.authorization
    if getattr(authorization, "owner", None) != "host":
        raise HarnessError("the built-in runtime has no native account: isolated completion "
                           "needs a host authorization with the exact model and credential")
    stream = dict(params.stream_params or {})
    request = ModelRequest(
        model_id=authorization.model.model_id, system_prompt=params.system_prompt,
        messages=[user_message(params.prompt)], tools=(),
        max_tokens=stream.pop("maxTokens", None), params=stream,
    )
    text: list[str] = []
    thinking: list[str] = []
    calls: list[dict[str, Any]] = []
    stop = "error"
    usage: dict[str, Any] = {}
    error: str | None = None
    try:
        async with asyncio.timeout(max(params.timeout_ms, 1) / 1000):
            async for event in transport.stream(request):
                if isinstance(event, TextDelta):
                    text.append(event.text)
                elif isinstance(event, ThinkingDelta):
                    thinking.append(event.text)
                elif isinstance(event, ToolCall):
                    calls.append({"type": "toolCall", "id": event.id, "name": event.name,
                                  "arguments": event.arguments})
                elif isinstance(event, Done):
                    stop = event.stop_reason
                    usage = event.usage.to_wire()
    except ProviderError as exc:
        error = str(exc)
    content: list[dict[str, Any]] = []
    if thinking:
        content.append({"type": "thinking", "thinking": "".join(thinking)})
    if text:
        content.append({"type": "text", "text": "".join(text)})
    content.extend(calls)
    message: dict[str, Any] = {"role": "assistant", "content": content,
                               "stopReason": "error" if error else stop, "usage": usage,
                               "provider": authorization.model.provider,
                               "model": authorization.model.model_id}
    if error:
        message["errorMessage"] = error
    return {"assistant": message}
