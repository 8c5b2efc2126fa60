"""`Host.adopt_session` / `Host.handoff_session` with Claude Code session files
(docs/portable-sessions.md): what is stored, what adopting again adds, and that bad
input or a conflict stores nothing at all. The real CLI resuming what is adopted and
handed off: tests/integration/cli/test_claude_cli_portable.py."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "harnesses" / "cli"))
from claude_session_files import (
    CODEX_ROLLOUT_LINE,
    SESSION,
    conversation,
    reply,
    text,
    user,
    write_session,
)

from clawharness.errors import (
    AgentHarnessNotRegisteredError,
    NativeSessionBoundError,
    NativeSessionError,
    NativeSessionFormatError,
    NativeSessionNotFoundError,
    NativeSessionUnsupportedError,
    SessionNotFoundError,
)
from clawharness.harnesses.cli.claude_sessions import (
    WHAT,
    parse_claude_session,
    project_slug,
)
from clawharness.host import Host
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    read_session_lines,
)
from clawharness.store import NewEntry, SessionRecord

BINDINGS = "claude-cli.bindings"


@pytest.fixture
async def host(tmp_path: Path) -> AsyncIterator[Host]:
    config = {
        "models": {"providers": {"anthropic": {"baseUrl": "http://127.0.0.1:9"}}},
        "agents": {"defaults": {
            "model": "anthropic/claude-opus-5", "workspace": str(tmp_path / "ws"),
            "models": {"anthropic/claude-opus-5": {"agentRuntime": {"id": "claude-cli"}}}}},
    }
    path = tmp_path / "config.json5"
    path.write_text(json.dumps(config))
    env = {"CLAWHARNESS_STATE_DIR": str(tmp_path / "state"), "HOME": str(tmp_path / "home"),
           "CLAUDE_CONFIG_DIR": str(tmp_path / "user-claude")}
    async with Host.from_config(path, env=env) as made:
        yield made


def user_project(tmp_path: Path) -> Path:
    return tmp_path / "user-claude" / "projects" / "-home-someone-project"


def harness_copy(tmp_path: Path, session: str = SESSION) -> Path:
    workspace = os.path.realpath(tmp_path / "ws")
    return (tmp_path / "state" / "claude-cli" / "agents" / "main" / "claude-config" /
            "projects" / project_slug(workspace) / f"{session}.jsonl")


async def nothing_stored(host: Host, tmp_path: Path) -> None:
    assert await host.list_sessions() == []
    assert await host.store.state_list(BINDINGS) == []
    assert not harness_copy(tmp_path).exists()


async def test_a_session_is_adopted_by_id_with_its_provenance_and_binding(
        host: Host, tmp_path: Path) -> None:
    source = write_session(user_project(tmp_path), conversation())
    result = await host.adopt_session("claude-code", SESSION)
    assert result.session_key == f"agent:main:claude-code-{SESSION[:8]}"
    assert (result.appended, result.already, result.created) == (6, 0, True)
    assert result.source == str(source) and result.model_ref == "anthropic/claude-opus-5"
    assert len(result.left_out) == 3

    record = await host.get_session(result.session_key)
    assert (record.agent_harness_id, record.model_ref) == ("claude-cli",
                                                           "anthropic/claude-opus-5")
    entries = await host.history(result.session_key)
    assert [(e.role, e.text) for e in entries][:2] == [
        ("user", "remember: the code word is pelican"),
        ("assistant", "noted: the code word is pelican")]
    assert entries[0].metadata["adoptedFrom"] == {
        "harness": "claude-cli", "nativeSessionId": SESSION, "entry": "u1",
        "source": str(source)}
    assert entries[0].idempotency_key == f"adopt:claude-cli:{SESSION}:u1"
    # adopted text is searchable like any other
    [hit] = await host.search("pelican", session_key=result.session_key, limit=1)
    assert hit.session_key == result.session_key

    [row] = await host.store.state_list(BINDINGS)
    assert row.value["nativeSessionId"] == SESSION
    assert row.value["hostSessionId"] == record.session_id
    assert row.value["cwd"] == os.path.realpath(tmp_path / "ws")
    # the copy the next `claude --resume` finds, byte for byte
    assert harness_copy(tmp_path).read_bytes() == source.read_bytes()


async def test_adopting_again_adds_only_what_is_new(host: Host, tmp_path: Path) -> None:
    lines = conversation()
    source = write_session(user_project(tmp_path), lines)
    first = await host.adopt_session("claude-code", str(source), key="work")
    again = await host.adopt_session("claude-code", str(source), key="work")
    assert (again.appended, again.already, again.created) == (0, 6, False)

    # the user went on in Claude Code: the new exchange, and nothing twice
    lines += [user("u9", "a5", "one more thing"), reply("a9", "u9", "msg_9", text("sure"))]
    write_session(user_project(tmp_path), lines)
    third = await host.adopt_session("claude-code", str(source), key="work")
    assert (third.appended, third.already) == (2, 6)
    texts = [e.text for e in await host.history("work")]
    assert texts[-2:] == ["one more thing", "sure"] and len(texts) == 8
    assert harness_copy(tmp_path).read_bytes() == source.read_bytes()
    assert first.session_id == third.session_id


async def test_a_diverged_session_is_refused(host: Host, tmp_path: Path) -> None:
    lines = conversation()
    source = write_session(user_project(tmp_path), lines)
    await host.adopt_session("claude-code", str(source), key="work")
    record = await host.get_session("work")
    # the host went on (a turn of its own) and so did the user in Claude Code
    await host.store.append_entries(record.key, record.session_id, [
        NewEntry("user", {"role": "user", "content": [text("host turn")]},
                 idempotency_key="run1:prompt", text="host turn")])
    write_session(user_project(tmp_path), [
        *lines, user("u9", "a5", "outside"), reply("a9", "u9", "msg_9", text("x"))])
    with pytest.raises(NativeSessionBoundError, match="diverged"):
        await host.adopt_session("claude-code", str(source), key="work")
    assert len(await host.history("work")) == 7


async def test_a_session_adopted_elsewhere_and_a_key_with_its_own_talk_are_refused(
        host: Host, tmp_path: Path) -> None:
    source = write_session(user_project(tmp_path), conversation())
    await host.adopt_session("claude-code", str(source), key="first")
    with pytest.raises(NativeSessionBoundError, match="already adopted by host session "
                       "agent:main:first") as err:
        await host.adopt_session("claude-code", SESSION, key="second")
    assert err.value.code == "native_session_bound"

    other = "11111111-2222-4333-8444-555555555555"
    lines = [{**o, "sessionId": other} if "sessionId" in o else o for o in conversation()]
    second = write_session(user_project(tmp_path), lines, session=other)
    with pytest.raises(NativeSessionBoundError, match="conversation of its own"):
        await host.adopt_session("claude-code", str(second), key="first")
    assert [r.key for r in await host.list_sessions()] == ["agent:main:first"]


@pytest.mark.parametrize("damage", ["truncated", "codex", "not json", "empty"])
async def test_bad_input_stores_nothing(host: Host, tmp_path: Path, damage: str) -> None:
    path = write_session(user_project(tmp_path), conversation())
    data = path.read_bytes()
    if damage == "truncated":
        path.write_bytes(data[:-30])
    elif damage == "codex":
        path.write_text(json.dumps(CODEX_ROLLOUT_LINE) + "\n")
    elif damage == "not json":
        path.write_bytes(data.replace(b'{"parentUuid": "a1"', b"{oops", 1))
    else:
        path.write_bytes(b"")
    with pytest.raises(NativeSessionFormatError) as err:
        await host.adopt_session("claude-code", str(path))
    assert str(path) in str(err.value)
    await nothing_stored(host, tmp_path)


async def test_a_missing_session_names_where_it_looked(host: Host, tmp_path: Path) -> None:
    with pytest.raises(NativeSessionNotFoundError, match=str(tmp_path / "user-claude" /
                                                             "projects")):
        await host.adopt_session("claude-code", SESSION)
    with pytest.raises(NativeSessionNotFoundError, match="neither a file nor"):
        await host.adopt_session("claude-code", "not-an-id")
    with pytest.raises(NativeSessionNotFoundError, match="no such file"):
        await host.adopt_session("claude-code", str(tmp_path / "gone.jsonl"))
    await nothing_stored(host, tmp_path)


async def test_a_failed_binding_takes_the_new_session_back(host: Host, tmp_path: Path) -> None:
    source = write_session(user_project(tmp_path), conversation())
    # where the copy must go is a file: the copy, and so the binding, fail
    blocker = harness_copy(tmp_path).parent
    blocker.parent.mkdir(parents=True)
    blocker.write_text("in the way")
    with pytest.raises(OSError):
        await host.adopt_session("claude-code", str(source))
    assert await host.list_sessions() == []
    assert await host.store.state_list(BINDINGS) == []


async def test_runtimes_that_cannot_and_runtimes_not_loaded(host: Host) -> None:
    with pytest.raises(AgentHarnessNotRegisteredError):
        await host.adopt_session("codex", "whatever")
    with pytest.raises(NativeSessionUnsupportedError):
        await host.adopt_session("openclaw", "whatever")


async def test_handoff_writes_a_session_claude_code_reads_back(host: Host,
                                                                tmp_path: Path) -> None:
    source = write_session(user_project(tmp_path), conversation())
    adopted = await host.adopt_session("claude-code", str(source), key="work")
    project = tmp_path / "elsewhere"
    project.mkdir()
    handoff = await host.handoff_session("work", "claude-code", cwd=str(project))
    assert handoff.command == ("claude", "--resume", handoff.native_session_id)
    assert handoff.native_session_id != SESSION and handoff.env == {}
    location = Path(handoff.location)
    assert location.parent == (tmp_path / "user-claude" / "projects" /
                               project_slug(os.path.realpath(project)))
    assert oct(location.stat().st_mode & 0o777) == "0o600"
    session = parse_claude_session(str(location), read_session_lines(location, what=WHAT),
                                   session_id=handoff.native_session_id)
    said = [m["content"][0]["text"] for _, m in session.messages]
    assert said[0] == "remember: the code word is pelican"
    assert "[called exec with" in said[3] and "[exec returned: a.txt\nb.txt]" in said[3]
    assert len(said) == 4 and said[3].endswith("Two files: a.txt and b.txt.")
    assert any("tool calls" in note for note in handoff.left_out)
    # the host session is not changed by a handoff
    assert len(await host.history("work")) == adopted.appended

    elsewhere = tmp_path / "other-config"
    moved = await host.handoff_session("work", "claude", home=str(elsewhere), cwd=str(project))
    assert moved.env == {"CLAUDE_CONFIG_DIR": str(elsewhere)}
    assert Path(moved.location).is_relative_to(elsewhere)


async def test_handoff_refuses_an_empty_session_and_a_missing_directory(
        host: Host, tmp_path: Path) -> None:
    with pytest.raises(SessionNotFoundError, match="no session agent:main:nobody"):
        await host.handoff_session("nobody", "claude-code")
    await host.store.create_session(SessionRecord(key="agent:main:empty", session_id="e1",
                                                  agent_id="main"))
    with pytest.raises(NativeSessionError, match="no transcript to hand off"):
        await host.handoff_session("empty", "claude-code")
    source = write_session(user_project(tmp_path), conversation())
    await host.adopt_session("claude-code", str(source), key="work")
    with pytest.raises(NativeSessionNotFoundError, match="no such directory"):
        await host.handoff_session("work", "claude-code", cwd=str(tmp_path / "nope"))


async def own_session(host: Host, key: str, *pairs: tuple[str, str]) -> SessionRecord:
    """A host session that ran on the built-in runtime (its own turns, no provenance)."""
    record = await host.store.create_session(SessionRecord(
        key=key, session_id=f"{key}-1", agent_id="main", model_ref="anthropic/claude-opus-5",
        agent_harness_id="openclaw"))
    entries = []
    for n, (question, answer) in enumerate(pairs):
        entries += [NewEntry("user", {"role": "user", "content": [text(question)]},
                             idempotency_key=f"run{n}:prompt", text=question),
                    NewEntry("assistant", {"role": "assistant", "content": [text(answer)],
                                           "stopReason": "stop"},
                             idempotency_key=f"run{n}:1", text=answer)]
    await host.store.append_entries(key, record.session_id, entries)
    return record


def went_on_in_claude(location: Path, *pairs: tuple[str, str]) -> None:
    """The user resumed the handed-off session in Claude Code and said more there."""
    lines = [json.loads(line) for line in location.read_text().splitlines()]
    last, session = lines[-1]["uuid"], lines[-1]["sessionId"]
    for n, (question, answer) in enumerate(pairs):
        asked = {**user(f"q{n}", last, question), "sessionId": session}
        said = {**reply(f"r{n}", f"q{n}", f"msg_r{n}", text(answer)), "sessionId": session}
        lines += [asked, said]
        last = f"r{n}"
    location.write_text("".join(json.dumps(o) + "\n" for o in lines))


async def test_a_handed_off_session_comes_back_with_what_was_said_there(
        host: Host, tmp_path: Path) -> None:
    record = await own_session(host, "agent:main:trip", ("the colour is teal", "noted, teal"))
    handoff = await host.handoff_session("trip", "claude-code", cwd=str(tmp_path))
    [note] = (await host.get_session("trip")).meta.extra["handoffs"]
    assert (note["harness"], note["nativeSessionId"], note["carried"], note["atSeq"]) == (
        "claude-cli", handoff.native_session_id, 2, 2)

    went_on_in_claude(Path(handoff.location), ("and the shape?", "a circle"))
    back = await host.adopt_session("claude-code", handoff.location, key="trip")
    assert (back.appended, back.already, back.created) == (2, 2, False)
    assert [e.text for e in await host.history("trip")] == [
        "the colour is teal", "noted, teal", "and the shape?", "a circle"]
    moved = await host.get_session("trip")
    assert (moved.session_id, moved.agent_harness_id) == (record.session_id, "claude-cli")
    [row] = await host.store.state_list(BINDINGS)
    assert row.value["nativeSessionId"] == handoff.native_session_id
    again = await host.adopt_session("claude-code", handoff.location, key="trip")
    assert (again.appended, again.already) == (0, 4)


async def test_a_handed_off_session_that_went_on_on_both_sides_is_refused(
        host: Host, tmp_path: Path) -> None:
    record = await own_session(host, "agent:main:trip", ("the colour is teal", "noted, teal"))
    handoff = await host.handoff_session("trip", "claude-code", cwd=str(tmp_path))
    await host.store.append_entries(record.key, record.session_id, [
        NewEntry("user", {"role": "user", "content": [text("host side")]},
                 idempotency_key="late:prompt", text="host side")])
    went_on_in_claude(Path(handoff.location), ("native side", "ok"))
    with pytest.raises(NativeSessionBoundError, match="since it was handed off to"):
        await host.adopt_session("claude-code", handoff.location, key="trip")
    assert len(await host.history("trip")) == 3
    assert await host.store.state_list(BINDINGS) == []
    # nothing new on the native side is no conflict: nothing to add
    other = await own_session(host, "agent:main:quiet", ("q", "a"))
    quiet = await host.handoff_session("quiet", "claude-code", cwd=str(tmp_path))
    await host.store.append_entries(other.key, other.session_id, [
        NewEntry("user", {"role": "user", "content": [text("more")]},
                 idempotency_key="m:prompt", text="more")])
    nothing = await host.adopt_session("claude-code", quiet.location, key="quiet")
    assert (nothing.appended, nothing.already) == (0, 2)
