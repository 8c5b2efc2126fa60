"""Adopting an ACP agent's session through `Host` (a small ACP agent written with the
`acp` library, replaying what its HOME holds): the replay becomes the transcript, the next
turn `session/load`s the adopted session, and an agent that cannot load, or does not
have the session, or fails, stores nothing. The real agent: tests/integration/acp/
test_acp_portable.py."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
from acp import (
    start_tool_call,
    text_block,
    update_agent_message,
    update_tool_call,
    update_user_message,
)

from clawharness.errors import (
    HarnessError,
    NativeSessionNotFoundError,
    NativeSessionUnsupportedError,
)
from clawharness.harnesses.acp.portable import replay_messages
from clawharness.host import Host

FAKE = Path(__file__).resolve().parent / "fake_acp_agent.py"


@pytest.fixture
async def make_host(tmp_path: Path) -> AsyncIterator[Callable[..., Any]]:
    hosts: list[Host] = []

    async def make(**env: str) -> Host:
        config = {
            "agents": {"defaults": {"model": "acp/fake", "workspace": str(tmp_path / "ws")}},
            "plugins": {"entries": {"acp": {"config": {
                "shutdownGraceSeconds": 0.5, "agents": {"fake": {
                    "command": [sys.executable, str(FAKE)],
                    "env": {"FAKE_ACP_LOG": str(tmp_path / "acp.log"), **env}}}}}}},
        }
        path = tmp_path / "config.json5"
        path.write_text(json.dumps(config))
        host = Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path / "state")})
        await host.start()
        hosts.append(host)
        return host

    yield make
    for host in hosts:
        await host.close()


def agent_keeps(tmp_path: Path, sessions: dict[str, list[list[str]]]) -> None:
    """What the agent holds in its HOME (the harness's home for agent `fake` of `main`)."""
    home = tmp_path / "state" / "acp" / "agents" / "main" / "fake" / "home"
    home.mkdir(parents=True, exist_ok=True)
    (home / "sessions.json").write_text(json.dumps(sessions))


def calls(tmp_path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (tmp_path / "acp.log").read_text().splitlines()]


async def test_the_replay_is_adopted_and_the_next_turn_loads_the_session(
        make_host: Callable[..., Any], tmp_path: Path) -> None:
    agent_keeps(tmp_path, {"s1": [["remember the fox", "fox remembered"],
                                  ["and the hen", "hen too"]]})
    host = await make_host()
    adopted = await host.adopt_session("acp/fake", "s1", key="farm")
    assert (adopted.appended, adopted.model_ref, adopted.source) == (
        4, "acp/fake", "acp/fake session/load")
    assert [(e.role, e.text) for e in await host.history("farm")] == [
        ("user", "remember the fox"), ("assistant", "fox remembered"),
        ("user", "and the hen"), ("assistant", "hen too")]
    assert [e.idempotency_key for e in await host.history("farm")][:2] == [
        "adopt:acp:s1:user:1", "adopt:acp:s1:reply:1"]

    turn = await host.run_turn("farm", "text hello again")
    assert (turn.runtime, turn.terminal, turn.text) == ("acp", "ok", "hello again "), turn.error
    loads = [c for c in calls(tmp_path) if c["method"] in ("session/load", "session/new")]
    # the replay for the adoption, then the turn's own load of the same session
    assert loads == [{"method": "session/load", "sessionId": "s1"}] * 2
    [prompt] = [c for c in calls(tmp_path) if c["method"] == "session/prompt"]
    assert prompt["blocks"] == ["text hello again"]  # resumed: no recap block


@pytest.mark.parametrize(("load", "source", "error", "words"), [
    ("", "nope", NativeSessionNotFoundError, "has no session nope"),
    ("unsupported", "s1", NativeSessionUnsupportedError, "does not offer session/load"),
    ("broken", "s1", HarnessError, "could not load session s1"),
])
async def test_a_session_that_cannot_be_replayed_stores_nothing(
        make_host: Callable[..., Any], tmp_path: Path, load: str, source: str,
        error: type[Exception], words: str) -> None:
    agent_keeps(tmp_path, {"s1": [["hi", "hello"]]})
    host = await make_host(FAKE_ACP_LOAD=load)
    with pytest.raises(error, match=words):
        await host.adopt_session("acp/fake", source)
    assert await host.list_sessions() == []
    assert await host.store.state_list("acp.bindings") == []


async def test_an_unknown_agent_and_a_handoff_are_refused(
        make_host: Callable[..., Any], tmp_path: Path) -> None:
    agent_keeps(tmp_path, {"s1": [["hi", "hello"]]})
    host = await make_host()
    with pytest.raises(HarnessError, match="no ACP agent named 'ghost'"):
        await host.adopt_session("acp/ghost", "s1")
    await host.adopt_session("acp/fake", "s1", key="farm")
    with pytest.raises(NativeSessionUnsupportedError,
                       match="no request that makes a session holding") as err:
        await host.handoff_session("farm", "acp/fake")
    assert "claude-code or codex" in (err.value.hint or "")


def test_replayed_tool_calls_merge_by_id_and_settle_as_results() -> None:
    messages, notes = replay_messages([
        update_user_message(text_block("write the file")),
        update_agent_message(text_block("Writing")),
        update_agent_message(text_block(" now.")),
        start_tool_call("t1", "Write", kind="edit", status="pending", raw_input={}),
        start_tool_call("t1", "Write a.txt", kind="edit", status="pending",
                        raw_input={"path": "a.txt"}),
        update_tool_call("t1", status="completed", raw_output="written"),
        update_agent_message(text_block("Done.")),
    ])
    assert [k for k, _ in messages] == ["user:1", "reply:1", "tool:t1", "reply:2"]
    reply = dict(messages)["reply:1"]
    assert reply["content"] == [
        {"type": "text", "text": "Writing now."},
        {"type": "toolCall", "id": "t1", "name": "edit", "arguments": {"path": "a.txt"}}]
    assert reply["stopReason"] == "toolUse"
    result = dict(messages)["tool:t1"]
    assert (result["toolName"], result["content"], result["isError"]) == (
        "edit", [{"type": "text", "text": "written"}], False)
    assert notes == ()
