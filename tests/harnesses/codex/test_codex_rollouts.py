"""Codex rollouts: read into host messages, refused when they are not one (another
runtime's file, cut off, misnamed), and adopted through `Host` all or nothing. The real
Codex resuming an adopted thread: tests/integration/codex/test_codex_portable.py."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from clawharness.errors import (
    NativeSessionBoundError,
    NativeSessionFormatError,
    NativeSessionNotFoundError,
)
from clawharness.harnesses.codex.rollouts import WHAT, handoff_items, parse_rollout
from clawharness.host import Host
from clawharness.plugin_sdk.agent_harness_session_runtime import read_session_lines

THREAD = "01a24d8c-8fa1-7402-b9d8-7d4dad9bdc04"
NAME = f"rollout-2026-12-06T22-49-47-{THREAD}.jsonl"


def item(ordinal: int, payload: dict[str, Any], kind: str = "response_item") -> dict[str, Any]:
    return {"timestamp": "2026-12-06T22:49:47.424Z", "ordinal": ordinal, "type": kind,
            "payload": payload}


def message(ordinal: int, role: str, text: str, *, provenance: str | None = None,
            item_id: str | None = None) -> dict[str, Any]:
    block = "output_text" if role == "assistant" else "input_text"
    payload: dict[str, Any] = {"type": "message", "role": role,
                               "content": [{"type": block, "text": text}]}
    if item_id:
        payload["id"] = item_id
    if provenance:
        payload["internal_chat_message_metadata_passthrough"] = {
            "content_item_metadata": [{"provenance": {"type": provenance}}]}
    return item(ordinal, payload)


def rollout() -> list[dict[str, Any]]:
    """A thread as Codex 0.169 writes it: its instructions and context, a question, a
    shell call and its output, the answer (shapes as observed from `codex exec`)."""
    return [
        item(0, {"id": THREAD, "cwd": "/home/me/proj", "cli_version": "0.169.0"},
             "session_meta"),
        item(1, {"type": "task_started"}, "event_msg"),
        message(2, "developer", "<skills_instructions>...", provenance="skills"),
        message(3, "user", "<environment_context>\n<cwd>/x</cwd>", provenance="harness"),
        item(4, {"model": "gpt-5.5", "cwd": "/home/me/proj"}, "turn_context"),
        message(5, "user", "please run echo for me", provenance="user", item_id="msg_u1"),
        item(6, {"type": "reasoning", "summary": [], "encrypted_content": "xx"}),
        item(7, {"type": "function_call", "id": "fc_1", "name": "exec_command",
                 "arguments": "{\"cmd\": \"echo hi\"}", "call_id": "call_1"}),
        item(8, {"type": "function_call_output", "id": "fco_1", "call_id": "call_1",
                 "output": "Process exited with code 0\nOutput:\nhi\n"}),
        item(9, {"type": "custom_tool_call", "id": "ctc_1", "name": "apply_patch",
                 "input": "*** Begin Patch", "call_id": "call_2"}),
        item(10, {"type": "custom_tool_call_output", "call_id": "call_2", "output": "Done"}),
        message(11, "assistant", "it printed hi", item_id="msg_a1"),
        item(12, {"type": "token_count"}, "event_msg"),
        message(13, "user", "<environment_context>old style</environment_context>"),
        message(14, "user", "thanks", item_id="msg_u2"),
    ]


def write(folder: Path, lines: list[dict[str, Any]], name: str = NAME) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("".join(json.dumps(o) + "\n" for o in lines))
    return path


def parse(path: Path):  # type: ignore[no-untyped-def]
    return parse_rollout(str(path), read_session_lines(path, what=WHAT))


def test_the_conversation_is_read_without_codexs_own_context(tmp_path: Path) -> None:
    read = parse(write(tmp_path, rollout()))
    assert (read.thread_id, read.model, read.cwd) == (THREAD, "gpt-5.5", "/home/me/proj")
    # keyed by the item's id, else its line's ordinal
    assert [key for key, _ in read.messages] == ["msg_u1", "fc_1", "fco_1", "ctc_1",
                                                 "line:10", "msg_a1", "msg_u2"]
    messages = dict(read.messages)
    assert messages["msg_u1"]["content"] == [{"type": "text",
                                              "text": "please run echo for me"}]
    # a call is a reply's toolCall, named as the host names it
    assert messages["fc_1"]["content"] == [
        {"type": "toolCall", "id": "call_1", "name": "exec", "arguments": {"cmd": "echo hi"}}]
    assert messages["fco_1"]["toolName"] == "exec"
    assert messages["line:10"]["toolName"] == "apply_patch"
    assert messages["ctc_1"]["content"][0]["arguments"] == {"input": "*** Begin Patch"}
    assert messages["msg_a1"]["content"] == [{"type": "text", "text": "it printed hi"}]
    assert messages["msg_u2"]["content"][0]["text"] == "thanks"
    assert any("reasoning" in note for note in read.left_out)
    assert any("context Codex injected" in note for note in read.left_out)


def test_a_claude_code_file_is_refused_as_another_runtimes(tmp_path: Path) -> None:
    path = write(tmp_path, [{"type": "user", "uuid": "u1", "sessionId": "s",
                             "message": {"role": "user", "content": "hi"}}])
    with pytest.raises(NativeSessionFormatError, match="line 1: a Claude Code session file"
                       ) as err:
        parse(path)
    assert "--from claude-code" in (err.value.hint or "")


def test_two_threads_in_one_file_are_refused(tmp_path: Path) -> None:
    path = write(tmp_path, [*rollout(), item(15, {"id": "other"}, "session_meta")])
    with pytest.raises(NativeSessionFormatError, match="line 16: a second `session_meta`"):
        parse(path)


def test_a_truncated_rollout_is_refused(tmp_path: Path) -> None:
    path = write(tmp_path, rollout())
    path.write_bytes(path.read_bytes()[:-20])
    with pytest.raises(NativeSessionFormatError, match="line 15: the line is cut off"):
        parse(path)


def test_handoff_items_are_responses_messages() -> None:
    assert handoff_items([("user", "q"), ("assistant", "a")]) == [
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "q"}]},
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "a"}]}]


@pytest.fixture
async def host(tmp_path: Path) -> AsyncIterator[Host]:
    config = {
        "models": {"providers": {"openai": {"agentRuntime": {"id": "codex"}}}},
        "agents": {"defaults": {"model": "openai/gpt-5.5", "workspace": str(tmp_path / "ws")}},
        # adopting reads files and writes bindings: no app-server is started
        "plugins": {"entries": {"codex": {"enabled": True, "config": {"appServer": {
            "command": str(tmp_path / "no-codex-here")}}}}},
    }
    path = tmp_path / "config.json5"
    path.write_text(json.dumps(config))
    env = {"CLAWHARNESS_STATE_DIR": str(tmp_path / "state"),
           "CODEX_HOME": str(tmp_path / "user-codex")}
    async with Host.from_config(path, env=env) as made:
        yield made


async def test_a_thread_is_adopted_by_id_and_copied_where_codex_resumes_it(
        host: Host, tmp_path: Path) -> None:
    source = write(tmp_path / "user-codex" / "sessions" / "2026" / "12" / "06", rollout())
    result = await host.adopt_session("codex", THREAD, key="work")
    assert (result.appended, result.created, result.model_ref) == (7, True, "openai/gpt-5.5")
    rows = [r.value for r in await host.store.state_list("codex.bindings")]
    record = await host.get_session("work")
    assert [(r["threadId"], r["sessionId"], r["state"]) for r in rows] == [
        (THREAD, record.session_id, "active")]
    copies = list((tmp_path / "state").rglob(NAME))
    assert [c.read_bytes() for c in copies] == [source.read_bytes()]
    assert copies[0].parts[-4:-1] == ("2026", "12", "06")
    with pytest.raises(NativeSessionBoundError, match="already adopted by host session "
                       "agent:main:work"):
        await host.adopt_session("codex", str(source), key="other")


@pytest.mark.parametrize("damage", ["truncated", "claude", "misnamed"])
async def test_bad_rollouts_store_nothing(host: Host, tmp_path: Path, damage: str) -> None:
    folder = tmp_path / "user-codex" / "sessions" / "2026" / "12" / "06"
    if damage == "misnamed":
        path = write(folder, rollout(), name="rollout-2026-12-06T22-49-47-someone-else.jsonl")
    else:
        path = write(folder, rollout())
    if damage == "truncated":
        path.write_bytes(path.read_bytes()[:-5])
    elif damage == "claude":
        path.write_text(json.dumps({"type": "user", "uuid": "u", "sessionId": "s",
                                    "message": {"role": "user", "content": "x"}}) + "\n")
    with pytest.raises(NativeSessionFormatError) as err:
        await host.adopt_session("codex", str(path))
    assert str(path) in str(err.value)
    assert await host.list_sessions() == []
    assert await host.store.state_list("codex.bindings") == []
    assert list((tmp_path / "state").rglob("rollout-*")) == []


async def test_an_unknown_thread_names_where_it_looked(host: Host, tmp_path: Path) -> None:
    with pytest.raises(NativeSessionNotFoundError, match=str(tmp_path / "user-codex")):
        await host.adopt_session("codex", THREAD)
