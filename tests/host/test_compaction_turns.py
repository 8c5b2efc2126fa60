"""Long sessions on the scripted model: the prompt stays within its budget, compaction
summarises the oldest span through the host's isolated completion, nothing stored is lost."""

from __future__ import annotations

import json
from typing import Any

from clawharness.attempt.compaction import turn_budget
from clawharness.context import CHARS_PER_TOKEN, SUMMARY_ROLE
from clawharness.models.routes import resolve_route
from clawharness.names.model_refs import ModelRef

SUMMARY = "SUMMARY-OF-EARLIER-TURNS"

_SCRIPT: dict[str, Any] = {"responses": [
    {"match": "Summarise the conversation", "repeat": True, "text": SUMMARY},
    {"match": "turn", "repeat": True,
     "text": "Noted. " + "This reply is padded to look like a real answer. " * 3},
]}


def _text_chars(value: Any) -> int:
    """Characters of the texts, tool arguments and outputs a Responses API input holds."""
    if isinstance(value, list):
        return sum(_text_chars(v) for v in value)
    if isinstance(value, dict):
        return sum(len(v) if isinstance(v, str) and k in ("text", "arguments", "output")
                   else _text_chars(v) for k, v in value.items())
    return 0


def _is_summary_request(body: dict[str, Any]) -> bool:
    return "Summarise the conversation" in json.dumps(body.get("input"))


def model_route(host: Any) -> Any:
    return resolve_route(host.config, ModelRef("scripted", "m1"), env={}).model


async def _long_host(scripted_host: Any, window: int) -> tuple[Any, Any]:
    host, server = await scripted_host(_SCRIPT, agents={"defaults": {
        "model": "scripted/m1",
        "compaction": {"reserveTokens": 300, "reserveTokensFloor": 0,
                       "keepRecentTokens": 600}}})
    host.config.models.providers["scripted"].models[0].context_window = window
    host.config.models.providers["scripted"].models[0].max_tokens = 200
    return host, server


async def test_a_500_turn_session_stays_within_budget_and_loses_no_entry(
        scripted_host: Any) -> None:
    host, server = await _long_host(scripted_host, 3_000)
    turns = 500
    for n in range(turns):
        result = await host.run_turn("main", f"turn {n}: remember the word w{n}x please")
        assert result.terminal == "ok", result.error
    requests = [r.body for r in server.requests]
    turn_requests = [b for b in requests if not _is_summary_request(b)]
    summaries = [b for b in requests if _is_summary_request(b)]
    assert len(turn_requests) == turns
    assert summaries, "the session never compacted"
    # every turn's prompt within the budget (the estimate: three characters a token)
    budget = turn_budget(model_route(host), host.config.agents.defaults.compaction,
                         system_prompt=host.agent_setup.system_prompt("main"),
                         tools=host.agent_tools.tool_specs("main"))
    assert budget is not None and budget.reserve == 300
    widest = max(_text_chars(b.get("input")) for b in turn_requests)
    assert widest <= budget.history * CHARS_PER_TOKEN, (widest, budget.history)
    # after the first compaction, every prompt starts from a summary
    first = requests.index(summaries[0])
    assert all(SUMMARY in json.dumps(b.get("input")) for b in requests[first + 1:]
               if not _is_summary_request(b))
    # the store holds every entry: each prompt and answer, and the summaries beside them
    entries = await host.history("main")
    prompts = [e for e in entries if e.role == "user"]
    assert [e.content["content"][0]["text"] for e in prompts] == [
        f"turn {n}: remember the word w{n}x please" for n in range(turns)]
    assert sum(e.role == "assistant" for e in entries) == turns
    stored = [e for e in entries if e.role == SUMMARY_ROLE]
    assert len(stored) == len(summaries)
    assert [e.seq for e in entries] == list(range(1, len(entries) + 1))
    # the summarised entries are still found by search
    hits = await host.search("w3x")
    assert any("w3x" in (h.text or "") for h in hits)


async def test_compact_now_summarises_the_oldest_span_and_the_next_prompt_starts_there(
        scripted_host: Any) -> None:
    host, server = await scripted_host(_SCRIPT)
    for n in range(6):
        await host.run_turn("main", f"turn {n}: the code word is w{n}x")
    result = await host.compact_session("main", focus="code words")
    assert result.compacted and result.summary == SUMMARY and result.reason == "manual"
    asked = json.dumps(server.requests[-1].body.get("input"))
    assert "Focus on: code words" in asked and "w0x" in asked
    assert not server.requests[-1].body.get("tools")  # the isolated completion: no tools
    await host.run_turn("main", "turn 6: and now?")
    sent = json.dumps(server.requests[-1].body.get("input"))
    assert SUMMARY in sent and "w0x" not in sent and "turn 6" in sent
    entries = await host.history("main")
    assert [e.role for e in entries].count(SUMMARY_ROLE) == 1
    assert sum(e.role == "user" for e in entries) == 7
    summary = next(e for e in entries if e.role == SUMMARY_ROLE)
    assert summary.content["keptEntries"] == result.kept_entries
    assert result.summarised_entries + result.kept_entries == 12


async def test_compacting_a_session_with_one_message_says_why_not(scripted_host: Any) -> None:
    host, server = await scripted_host({"responses": [{"text": "hi"}]})
    await host.run_turn("main", "hello")
    requests = len(server.requests)
    result = await host.compact_session("main")
    assert not result.compacted and result.reason
    assert len(server.requests) == requests


async def test_a_context_overflow_compacts_and_retries_once(scripted_host: Any) -> None:
    overflow = {"status": 400, "type": "invalid_request_error",
                "message": "This model's maximum context length is 8192 tokens."}
    host, server = await scripted_host({"responses": [
        {"match": "Summarise the conversation", "repeat": True, "text": SUMMARY},
        {"match": "overflow me", "error": overflow},
        {"match": "overflow me", "text": "recovered"},
        {"match": "turn", "repeat": True, "text": "ok " * 40},
    ]})
    for n in range(5):
        await host.run_turn("main", f"turn {n}: filler w{n}x")
    result = await host.run_turn("main", "overflow me")
    assert result.terminal == "ok" and result.text == "recovered"
    bodies = [json.dumps(r.body.get("input")) for r in server.requests]
    assert _is_summary_request(server.requests[-2].body)
    assert SUMMARY in bodies[-1] and "overflow me" in bodies[-1]
    entries = await host.history("main")
    assert [e.role for e in entries][-3:] == ["user", SUMMARY_ROLE, "assistant"]
    assert sum(e.role == "user" for e in entries) == 6


async def test_a_second_overflow_in_the_same_attempt_fails_the_turn(scripted_host: Any) -> None:
    overflow = {"status": 400, "type": "invalid_request_error",
                "message": "prompt is too long: 9000 tokens > 8192 maximum"}
    host, _server = await scripted_host({"responses": [
        {"match": "Summarise the conversation", "repeat": True, "text": SUMMARY},
        {"match": "overflow me", "repeat": True, "error": overflow},
        {"match": "turn", "repeat": True, "text": "ok"},
    ]})
    for n in range(3):
        await host.run_turn("main", f"turn {n}")
    result = await host.run_turn("main", "overflow me")
    assert result.terminal == "failed"
    assert result.error_details is not None
    assert result.error_details.get("type") == "context_overflow"


async def test_a_switch_to_a_native_runtime_carries_the_summary_and_compact_goes_native(
        scripted_host: Any) -> None:
    from host_fake_plugins import RecapHarness
    host, _server = await scripted_host(_SCRIPT, plugins={"load": ["host_fake_plugins:recap_entry"]})
    for n in range(5):
        await host.run_turn("main", f"turn {n}: the code word is w{n}x")
    assert (await host.compact_session("main")).compacted
    fork = await host.fork_session("main", new_key="native", runtime="recap")
    RecapHarness.histories.clear()
    result = await host.run_turn(fork.session_key, "go on")
    assert result.runtime == "recap"
    (history,) = RecapHarness.histories
    assert SUMMARY in history[0]["content"][0]["text"]  # the summary comes first
    assert all(m.get("role") != SUMMARY_ROLE for m in history)
    assert "w0x" not in json.dumps(history)  # summarised, not resent
    # /compact on that session is the runtime's own compaction, not a host summary
    RecapHarness.compactions.clear()
    native = await host.compact_session(fork.session_key, focus="code words")
    assert native.compacted and native.reason == "native (recap)"
    (params,) = RecapHarness.compactions
    assert params.session_key == fork.session_key and params.focus == "code words"
    entries = await host.history(fork.session_key)
    assert [e.role for e in entries].count(SUMMARY_ROLE) == 1  # the copied one, no new one


async def test_compact_on_a_runtime_without_compaction_says_so(scripted_host: Any) -> None:
    host, server = await scripted_host(_SCRIPT, plugins={"load": ["host_fake_plugins:recap_entry"]})
    await host.run_turn("main", "turn 0: hello")
    fork = await host.fork_session("main", new_key="owned", runtime="owner")
    await host.run_turn(fork.session_key, "go on")
    requests = len(server.requests)
    result = await host.compact_session(fork.session_key)
    assert not result.compacted
    assert result.reason == 'Agent harness "owner" does not support compaction.'
    assert len(server.requests) == requests


async def test_a_summary_about_to_leave_the_window_is_rolled_into_a_new_one(
        scripted_host: Any) -> None:
    host, server = await scripted_host(_SCRIPT)  # no context window: no budget
    for n in range(4):
        await host.run_turn("main", f"turn {n}: the code word is w{n}x")
    assert (await host.compact_session("main")).compacted
    for n in range(4, 130):
        result = await host.run_turn("main", f"turn {n}: more")
        assert result.terminal == "ok", result.error
        sent = json.dumps(server.requests[-1].body.get("input"))
        assert SUMMARY in sent, n  # every prompt still starts from a summary
    entries = await host.history("main")
    summaries = [e for e in entries if e.role == SUMMARY_ROLE]
    assert len(summaries) >= 2  # the first one was rolled into a newer one in time
    assert sum(e.role == "user" for e in entries) == 130
