"""`Host.fork_session` (docs/portable-sessions.md, "Fork") on the built-in runtime against
the scripted model server: what the fork holds, that its next turn sends the copied
messages to the model, where it cuts, and that a refused fork writes nothing. The
native runtimes receiving a fork: tests/integration/{cli,codex,acp}/test_*_fork.py."""

from __future__ import annotations

import json
from typing import Any

import pytest

from clawharness.errors import SessionForkError, SessionNotFoundError
from clawharness.host import Host
from clawharness.sessions import parse_fork_point
from clawharness.testing import ScriptedModelServer

SCRIPT = {"responses": [
    {"match": "code word is heron", "text": "noted: heron"},
    {"match": "favourite colour is teal", "text": "noted: teal"},
    {"match": "what do you remember", "text": "heron, and nothing else"},
    {"match": "what colour", "text": "teal"},
]}


def _responses(server: ScriptedModelServer) -> list[str]:
    return [json.dumps(r.body) for r in server.requests if r.path.endswith("/responses")]


async def _two_turns(host: Host) -> None:
    for text in ("remember: the code word is heron", "my favourite colour is teal"):
        turn = await host.run_turn("source", text)
        assert turn.terminal == "ok", turn.error


async def test_a_fork_at_a_turn_holds_that_prefix_and_its_next_turn_sends_it(
        scripted_host: Any) -> None:
    host, server = await scripted_host(SCRIPT)
    await _two_turns(host)
    source = await host.get_session("source")
    before = [(e.role, e.text) for e in await host.history("source")]

    fork = await host.fork_session("source", at="1", new_key="branch")
    assert (fork.session_key, fork.source_key, fork.copied) == (
        "agent:main:branch", "agent:main:source", 2)
    copied = await host.history("branch")
    assert [(e.role, e.text) for e in copied] == before[:2]
    assert [e.metadata["copiedFrom"] for e in copied] == [
        {"sessionKey": "agent:main:source", "sessionId": source.session_id, "seq": seq}
        for seq in (1, 2)]
    record = await host.get_session("branch")
    assert record.meta.extra["forkedFrom"]["throughSeq"] == fork.through_seq == 2
    assert record.agent_harness_id is None  # no pin, no native binding: its own
    hits = await host.search("heron", session_key="branch")
    assert {h.session_key for h in hits} == {"agent:main:branch"} and len(hits) == 2

    sent = len(_responses(server))
    turn = await host.run_turn("branch", "what do you remember?")
    assert (turn.runtime, turn.text) == ("openclaw", "heron, and nothing else")
    [request] = _responses(server)[sent:]
    assert "the code word is heron" in request and "noted: heron" in request
    assert "teal" not in request  # turn 2 is after the fork point
    # the source is as it was
    assert [(e.role, e.text) for e in await host.history("source")] == before


async def test_a_whole_fork_and_an_entry_fork(scripted_host: Any) -> None:
    host, server = await scripted_host(SCRIPT)
    await _two_turns(host)
    whole = await host.fork_session("source")
    assert whole.copied == 4 and whole.session_key.startswith("agent:main:source-fork-")
    sent = len(_responses(server))
    turn = await host.run_turn(whole.session_key, "what colour?")
    assert turn.text == "teal"
    [request] = _responses(server)[sent:]
    assert "heron" in request and "my favourite colour is teal" in request

    first = await host.fork_session("source", at="turn@1", new_key="first")
    assert first.copied == 2
    second = await host.fork_session("source", at="turn@3", new_key="second")
    assert second.copied == 4
    with pytest.raises(SessionForkError, match="entry 2 of session agent:main:source is "
                       "not the start of a turn"):
        await host.fork_session("source", at="turn@2", new_key="nope")
    third = await host.fork_session("source", at="entry:3", new_key="three")
    assert [e.text for e in await host.history("three")] == [
        "remember: the code word is heron", "noted: heron", "my favourite colour is teal"]
    assert third.through_seq == 3


async def test_an_entry_that_cuts_a_tool_call_from_its_result_is_refused(
        scripted_host: Any, tmp_path: Any) -> None:
    (tmp_path / "workspace").mkdir(exist_ok=True)
    (tmp_path / "workspace" / "notes.md").write_text("a note\n")
    host, _ = await scripted_host({"responses": [
        {"tool_calls": [{"name": "read", "arguments": {"path": "notes.md"}}]},
        {"text": "it says: a note"},
    ]})
    turn = await host.run_turn("tools", "read notes.md")
    assert turn.terminal == "ok", turn.error
    entries = await host.history("tools")
    call = next(e for e in entries if e.role == "assistant")
    result = next(e for e in entries if e.role == "toolResult")
    with pytest.raises(SessionForkError, match=f"cuts the tool call .* of entry {call.seq} "
                       rf"from its result \(entry {result.seq}\)") as err:
        await host.fork_session("tools", at=f"entry:{call.seq}", new_key="cut")
    assert f"fork at entry {result.seq} or later" in (err.value.hint or "")
    fork = await host.fork_session("tools", at=f"entry:{result.seq}", new_key="whole-call")
    assert fork.copied == result.seq


async def test_refused_forks_write_nothing(scripted_host: Any) -> None:
    host, _ = await scripted_host(SCRIPT)
    await _two_turns(host)
    keys = {s.key for s in await host.list_sessions()}
    cases: list[tuple[dict[str, Any], str]] = [
        ({"at": "3"}, "has 2 turn\\(s\\); there is no turn 3"),
        ({"at": "entry:99"}, "has no entry 99 \\(its entries are 1..4\\)"),
        ({"at": "yesterday"}, "fork point 'yesterday' is not a turn or an entry"),
        ({"at": "0"}, "count from 1"),
        ({"new_key": "source"}, "session agent:main:source already exists"),
        ({"new_key": "agent:other:x"}, "belongs to agent 'other'"),
        ({"runtime": "no-such-runtime"}, "cannot fork onto runtime no-such-runtime"),
    ]
    for kwargs, message in cases:
        with pytest.raises(SessionForkError, match=message):
            await host.fork_session("source", **kwargs)
    with pytest.raises(SessionNotFoundError):
        await host.fork_session("nowhere")
    assert {s.key for s in await host.list_sessions()} == keys


async def test_a_runtime_the_route_does_not_allow_fails_at_fork_time(
        scripted_host: Any) -> None:
    host, _ = await scripted_host(SCRIPT, plugins={"entries": {"codex": {"enabled": True}}})
    await _two_turns(host)
    # Codex runs OpenAI's models, not the scripted provider's
    with pytest.raises(SessionForkError, match="cannot fork onto runtime codex with "
                       "scripted/m1: Requested agent harness \"codex\" does not support "
                       "scripted/m1 \\(the Codex harness serves provider openai"):
        await host.fork_session("source", runtime="codex", new_key="on-codex")
    with pytest.raises(SessionNotFoundError):
        await host.get_session("on-codex")


async def test_the_chosen_runtime_and_model_hold_at_the_next_turn(
        scripted_host: Any) -> None:
    host, server = await scripted_host(SCRIPT)
    await _two_turns(host)
    fork = await host.fork_session("source", model="scripted/m2", runtime="openclaw",
                                   new_key="m2")
    assert (fork.model_ref, fork.runtime) == ("scripted/m2", "openclaw")
    assert (await host.get_session("m2")).meta.agent_harness_runtime_override == "openclaw"
    sent = len(_responses(server))
    turn = await host.run_turn("m2", "what colour?")
    assert (turn.runtime, turn.selected_reason) == ("openclaw", "forced_openclaw")
    [request] = _responses(server)[sent:]
    assert json.loads(request)["model"] == "m2"
    record = await host.get_session("m2")
    assert (record.agent_harness_id, record.model_ref) == ("openclaw", "scripted/m2")


def test_fork_points_parse() -> None:
    assert parse_fork_point(None).kind == "end"
    assert parse_fork_point(" 2 ") == parse_fork_point("turn:2")
    assert parse_fork_point("entry:7").describe() == "entry 7"
    assert parse_fork_point("SEQ:7").kind == "entry"
    assert parse_fork_point("turn@3").kind == "turn-at"
