"""`host.llm.complete`: one prompt-only call; isolated mode fails closed when unsupported."""

from __future__ import annotations

from typing import Any

import pytest

from clawharness.attempt.isolated import IsolatedCompletionError


async def test_complete_sends_no_tools_and_returns_the_text(scripted_host: Any) -> None:
    host, server = await scripted_host({"responses": [{"text": "a summary"}]})
    result = await host.llm.complete("summarize this", system_prompt="be brief")
    assert result.text == "a summary"
    body = server.requests[-1].body
    assert not body.get("tools")
    assert "summarize this" in str(body.get("input"))


async def test_isolated_mode_on_the_builtin_runtime(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": [{"text": "isolated answer"}]})
    result = await host.llm.complete("q", execution={"mode": "isolated-agent-runtime"})
    assert result.text == "isolated answer"


async def test_a_tool_call_in_the_answer_is_rejected(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": [
        {"tool_calls": [{"name": "read", "arguments": {"path": "x"}}]}]})
    with pytest.raises(IsolatedCompletionError) as info:
        await host.llm.complete("q")
    assert info.value.code == "output-rejected"


async def test_isolated_mode_fails_closed_on_a_harness_without_the_capability(
        scripted_host: Any) -> None:
    host, server = await scripted_host({"responses": [{"text": "never"}]},
                                       plugins={"load": ["host_fake_plugins:entry"]})
    with pytest.raises(IsolatedCompletionError) as info:
        await host.llm.complete("q", execution={"mode": "isolated-agent-runtime"})
    assert info.value.code == "unsupported"
    assert server.requests == []  # never replayed through another runtime
