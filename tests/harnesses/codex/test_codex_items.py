"""Codex items projected into transcript messages and tool observations."""

from __future__ import annotations

from clawharness.harnesses.codex.items import item_messages, native_settlement


def project(item: dict[str, object]) -> list[dict[str, object]]:
    return item_messages(item, "th", model="gpt-x", provider="openai")


def keys(messages: list[dict[str, object]]) -> list[object]:
    return [m["__meta"]["idempotencyKey"] for m in messages]  # type: ignore[index]


def test_reasoning_becomes_a_thinking_block() -> None:
    (message,) = project({"type": "reasoning", "id": "r1", "summary": ["plan it"],
                          "content": ["step one"]})
    assert message["content"] == [{"type": "thinking", "thinking": "plan it\n\nstep one"}]
    assert keys([message]) == ["th:r1"]


def test_empty_items_are_not_mirrored() -> None:
    assert project({"type": "reasoning", "id": "r1", "summary": [], "content": []}) == []
    assert project({"type": "agentMessage", "id": "m1", "text": ""}) == []
    assert project({"type": "webSearch", "id": "w1", "query": "x"}) == []


def test_a_command_is_a_tool_call_and_result_pair_with_stable_keys() -> None:
    item = {"type": "commandExecution", "id": "call_1", "command": "/bin/bash -lc 'ls'",
            "cwd": "/w", "status": "completed", "exitCode": 0, "aggregatedOutput": "a\nb\n",
            "commandActions": [{"type": "listFiles", "command": "ls"}], "durationMs": 3}
    call, result = project(item)
    assert call["content"] == [{"type": "toolCall", "id": "call_1", "name": "exec",
                                "arguments": {"command": "/bin/bash -lc 'ls'", "cwd": "/w"}}]
    assert call["stopReason"] == "toolUse"
    assert result["toolCallId"] == "call_1" and result["isError"] is False
    assert result["content"] == [{"type": "text", "text": "a\nb\n"}]
    assert keys([call, result]) == ["th:call_1", "th:call_1:result"]
    settled = native_settlement(item)
    assert settled is not None
    assert settled.native_mutation == {"mutatingAction": False, "replaySafe": True}
    assert not settled.is_error and settled.execution_started


def test_a_mutating_command_carries_a_fingerprint() -> None:
    item = {"type": "commandExecution", "id": "c", "command": "rm -rf x", "cwd": "/W",
            "status": "failed", "exitCode": 1, "commandActions": [{"type": "unknown"}]}
    settled = native_settlement(item)
    assert settled is not None and settled.native_mutation is not None
    assert settled.native_mutation["actionFingerprint"] == "tool=exec|cwd=/w|command=rm -rf x"
    assert settled.is_error and settled.error == "exit code 1"
    assert settled.failure == {"exitCode": 1}


def test_a_dynamic_tool_call_is_mirrored_with_its_output() -> None:
    call, result = project({"type": "dynamicToolCall", "id": "d1", "tool": "weather",
                            "arguments": {"city": "Oslo"}, "status": "completed",
                            "success": True,
                            "contentItems": [{"type": "inputText", "text": "sunny"}]})
    assert call["content"][0]["name"] == "weather"  # type: ignore[index]
    assert result["content"] == [{"type": "text", "text": "sunny"}]
    assert native_settlement({"type": "dynamicToolCall", "id": "d1"}) is None


def test_an_mcp_tool_failure_is_an_error_result() -> None:
    _, result = project({"type": "mcpToolCall", "id": "m", "server": "docs", "tool": "search",
                         "arguments": {}, "status": "failed",
                         "error": {"message": "server down"}})
    assert result["toolName"] == "docs__search"
    assert result["isError"] is True and result["content"][0]["text"] == "server down"  # type: ignore[index]
