"""A turn that times out stores its prompt once (issue 31: it was mirrored twice, once by
the runtime and again by the runner's fallback), and an interrupted tool call gets its
result, so the session's next turn sends the model a well-formed history."""

from __future__ import annotations

import time
from typing import Any


def prompts(entries: list[Any], text: str) -> int:
    return sum(1 for e in entries if e.role == "user" and e.text == text)


async def test_a_timed_out_model_request_stores_the_prompt_once(scripted_host: Any) -> None:
    host, server = await scripted_host({"responses": [
        {"match": "slow", "text": "too late", "delay_ms": 4000},
        {"match": "next", "text": "on time"}]})
    result = await host.run_turn("t", "slow question", timeout=1)
    assert result.terminal == "timeout"
    assert result.error is not None and "waiting for provider" in result.error
    assert prompts(await host.history("t"), "slow question") == 1
    after = await host.run_turn("t", "next question")
    assert after.text == "on time"
    entries = await host.history("t")
    assert prompts(entries, "slow question") == 1 and prompts(entries, "next question") == 1
    body = server.requests[-1].to_json()["body"]
    sent = [item for item in body["input"] if item.get("role") == "user"]
    assert [str(item["content"]) for item in sent].count(str(sent[0]["content"])) == 1


async def test_a_tool_cut_off_by_the_deadline_gets_its_result(scripted_host: Any) -> None:
    host, _ = await scripted_host(
        {"responses": [{"tool_calls": [{"name": "exec", "arguments": {"command": "sleep 30"},
                                        "id": "c1"}]},
                       {"text": "after"}]},
        tools={"exec": {"security": "full", "ask": "off"}})
    started = time.monotonic()
    result = await host.run_turn("u", "run it", timeout=1)
    assert result.terminal == "timeout" and time.monotonic() - started < 10
    # worded for the tool that was running, not for a provider that had answered
    assert result.error is not None and 'while tool "exec" was running' in result.error
    assert "provider" not in result.error
    assert result.error_details is not None and result.error_details["tool"] == "exec"
    entries = await host.history("u")
    assert prompts(entries, "run it") == 1
    assert [e.role for e in entries] == ["user", "assistant", "toolResult"]
    assert "timed out" in (entries[-1].text or "")


async def test_a_harness_that_ignores_its_deadline_is_stopped_and_the_prompt_kept_once(
        scripted_host: Any) -> None:
    host, _ = await scripted_host(
        {"responses": []}, plugins={"load": ["host_stubborn_plugin:entry"]},
        agents={"defaults": {"model": "scripted/m1",
                             "models": {"scripted/m1": {"agentRuntime": {"id": "stubborn"}}}}})
    started = time.monotonic()
    result = await host.run_turn("s", "hello there", timeout=1)
    assert result.terminal == "timeout" and result.runtime == "stubborn"
    assert time.monotonic() - started < 15  # the deadline, then the settle grace
    assert prompts(await host.history("s"), "hello there") == 1
