"""Transcript messages become each API's input: images, thinking, merged tool results."""

from __future__ import annotations

from typing import Any

from clawharness.harnesses.embedded.messages import AssistantBuilder
from clawharness.providers import ThinkingDelta, ToolCall
from clawharness.providers.anthropic_messages import to_anthropic_messages
from clawharness.providers.openai_chat import to_chat_messages
from clawharness.providers.openai_responses import to_responses_input

IMAGE = {"type": "image", "data": "QUJD", "mimeType": "image/png"}
USER: dict[str, Any] = {"role": "user", "content": [{"type": "text", "text": "look"}, IMAGE]}


def assistant_with_thinking() -> dict[str, Any]:
    builder = AssistantBuilder("p", "m", "anthropic-messages")
    builder.add_thinking("hmm", None)
    builder.add_thinking("", "sig-1")
    builder.add_text("answer")
    builder.add_call(ToolCall("t1", "ls", {}))
    return builder.message("toolUse")


def result(call_id: str, text: str) -> dict[str, Any]:
    return {"role": "toolResult", "toolCallId": call_id, "toolName": "ls",
            "content": [{"type": "text", "text": text}], "isError": False}


def test_builder_keeps_block_order_and_signature() -> None:
    message = assistant_with_thinking()
    assert message["content"] == [
        {"type": "thinking", "thinking": "hmm", "thinkingSignature": "sig-1"},
        {"type": "text", "text": "answer"},
        {"type": "toolCall", "id": "t1", "name": "ls", "arguments": {}},
    ]
    assert ThinkingDelta("x").signature is None


def test_anthropic_replays_signed_thinking_and_merges_results() -> None:
    messages = to_anthropic_messages([
        USER, assistant_with_thinking(), result("t1", "a"),
        {"role": "user", "content": [{"type": "text", "text": "and?"}]},
    ])
    assert messages[0]["content"][1] == {"type": "image", "source": {
        "type": "base64", "media_type": "image/png", "data": "QUJD"}}
    assert messages[1]["content"][0] == {"type": "thinking", "thinking": "hmm",
                                         "signature": "sig-1"}
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert [b["type"] for b in messages[2]["content"]] == ["tool_result", "text"]


def test_anthropic_drops_unsigned_thinking_and_empty_turns() -> None:
    unsigned = {"role": "assistant", "content": [{"type": "thinking", "thinking": "x"}]}
    assert to_anthropic_messages([USER, unsigned]) == to_anthropic_messages([USER])


def test_openai_inputs_carry_images() -> None:
    responses = to_responses_input([USER])
    assert responses[0]["content"][1] == {"type": "input_image", "detail": "auto",
                                          "image_url": "data:image/png;base64,QUJD"}
    chat = to_chat_messages("sys", [USER])
    assert chat[0] == {"role": "system", "content": "sys"}
    assert chat[1]["content"][1] == {"type": "image_url",
                                     "image_url": {"url": "data:image/png;base64,QUJD"}}


def test_openai_inputs_skip_thinking() -> None:
    items = to_responses_input([assistant_with_thinking(), result("t1", "out")])
    assert [i.get("type", "message") for i in items] == ["message", "function_call",
                                                          "function_call_output"]
    chat = to_chat_messages(None, [assistant_with_thinking(), result("t1", "out")])
    assert chat[0]["content"] == "answer" and chat[0]["tool_calls"][0]["id"] == "t1"
    assert chat[1] == {"role": "tool", "tool_call_id": "t1", "content": "out"}
