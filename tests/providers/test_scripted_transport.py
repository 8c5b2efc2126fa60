"""The in-process scripted transport plays the model server's script format."""

from __future__ import annotations

from typing import Any

import pytest

from clawharness.errors import ProviderRateLimitError, ProviderServerError
from clawharness.providers import (
    Done,
    ModelRequest,
    TextDelta,
    ToolCall,
    Usage,
)
from clawharness.providers.scripted import ScriptedTransport


def request(text: str, role: str = "user") -> ModelRequest:
    if role == "toolResult":
        message: dict[str, Any] = {"role": role, "toolCallId": "c", "toolName": "t",
                                   "content": [{"type": "text", "text": text}]}
    else:
        message = {"role": role, "content": [{"type": "text", "text": text}]}
    return ModelRequest("m", None, [message])


async def events(transport: ScriptedTransport, req: ModelRequest) -> list[Any]:
    return [e async for e in transport.stream(req)]


async def test_text_streams_in_pieces_then_done() -> None:
    out = await events(ScriptedTransport({"responses": [{"text": "hello world"}]}),
                       request("hi"))
    assert all(isinstance(e, TextDelta) for e in out[:-1])
    assert len(out) > 2
    assert "".join(e.text for e in out[:-1]) == "hello world"
    assert isinstance(out[-1], Done) and out[-1].stop_reason == "stop"


async def test_tool_calls_and_usage() -> None:
    script = {"responses": [{
        "tool_calls": [{"name": "read", "arguments": {"path": "x"}, "id": "c9"},
                       {"name": "ls", "arguments": {}}],
        "usage": {"input_tokens": 5, "output_tokens": 3},
    }]}
    out = await events(ScriptedTransport(script), request("hi"))
    assert out[0] == ToolCall("c9", "read", {"path": "x"})
    assert isinstance(out[1], ToolCall) and out[1].name == "ls" and out[1].id
    assert out[2] == Done("toolUse", Usage.counted(5, 3))


async def test_match_selects_by_latest_tool_result() -> None:
    script = {"responses": [
        {"text": "default"},
        {"text": "matched", "match": "needle"},
    ]}
    transport = ScriptedTransport(script)
    out = await events(transport, request("has a needle", role="toolResult"))
    assert "".join(e.text for e in out if isinstance(e, TextDelta)) == "matched"
    out = await events(transport, request("plain"))
    assert "".join(e.text for e in out if isinstance(e, TextDelta)) == "default"
    assert len(transport.requests) == 2


async def test_error_and_cut() -> None:
    transport = ScriptedTransport({"responses": [
        {"error": {"status": 429, "message": "later"}},
        {"cut": True, "text": "abcdef"},
    ]})
    with pytest.raises(ProviderRateLimitError, match="later"):
        await events(transport, request("a"))
    seen: list[Any] = []
    with pytest.raises(ProviderServerError, match="stream ended before completion"):
        async for event in transport.stream(request("b")):
            seen.append(event)
    assert seen and isinstance(seen[0], TextDelta) and "abcdef".startswith(seen[0].text)
