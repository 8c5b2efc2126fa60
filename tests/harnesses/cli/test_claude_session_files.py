"""Claude Code session files: read into host messages, refused when they are not one
(another runtime's, cut off, another session's), and written for `claude --resume`."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import pytest
from claude_session_files import (
    CODEX_ROLLOUT_LINE,
    SESSION,
    conversation,
    reply,
    text,
    user,
    write_session,
)

from clawharness.errors import NativeSessionFormatError
from clawharness.harnesses.cli.claude import claude_cli_spec
from clawharness.harnesses.cli.claude_sessions import (
    WHAT,
    encode_lines,
    handoff_lines,
    parse_claude_session,
    project_slug,
)
from clawharness.plugin_sdk.agent_harness_session_runtime import read_session_lines


def parse(path: Path, session: str = SESSION):  # type: ignore[no-untyped-def]
    return parse_claude_session(str(path), read_session_lines(path, what=WHAT),
                                session_id=session, canonical=claude_cli_spec().canonical_tool)


def test_the_conversation_is_read_in_order_with_stable_keys(tmp_path: Path) -> None:
    session = parse(write_session(tmp_path, conversation()))
    keys = [key for key, _ in session.messages]
    assert keys == ["u1", "msg_1", "u2", "msg_2", "u3:toolu_1", "msg_3"]
    messages = dict(session.messages)
    assert messages["u1"]["content"] == [text("remember: the code word is pelican")]
    # one reply written over three lines (thinking, text, tool_use) is one message;
    # its tool is named as the host names it (Bash -> exec)
    assert messages["msg_2"]["content"] == [
        text("Let me look."),
        {"type": "toolCall", "id": "toolu_1", "name": "exec", "arguments": {"command": "ls"}}]
    assert messages["msg_2"]["stopReason"] == "toolUse"
    assert messages["u3:toolu_1"] == {
        "role": "toolResult", "toolCallId": "toolu_1", "toolName": "exec",
        "content": [text("a.txt\nb.txt")], "isError": False,
        "timestamp": messages["u3:toolu_1"]["timestamp"]}
    assert messages["msg_3"]["stopReason"] == "stop"
    assert (session.model, session.cwd) == ("claude-opus-5", "/home/someone/project")
    assert session.left_out == (
        "context the CLI injected (reminders, command caveats) (1)",
        "the model's thinking (signed for Anthropic's API only) (1)",
        "sub-agent conversations (1)")


def test_the_branch_resume_continues_is_the_one_read(tmp_path: Path) -> None:
    # the user rewound to u1 and asked something else: the last leaf's chain counts
    lines = [
        user("u1", None, "first question"),
        reply("a1", "u1", "msg_1", text("first answer")),
        user("u2", "a1", "abandoned question"),
        reply("a2", "u2", "msg_2", text("abandoned answer")),
        user("u3", "a1", "the question asked instead"),
        reply("a3", "u3", "msg_3", text("the answer kept")),
    ]
    texts = [m["content"][0]["text"] for _, m in parse(write_session(tmp_path, lines)).messages]
    assert texts == ["first question", "first answer", "the question asked instead",
                     "the answer kept"]


def test_a_compaction_keeps_the_messages_before_it_and_drops_its_summary(
        tmp_path: Path) -> None:
    lines = [
        user("u1", None, "before the compaction"),
        reply("a1", "u1", "msg_1", text("early answer")),
        {"type": "system", "subtype": "compact_boundary", "uuid": "b1", "parentUuid": None,
         "logicalParentUuid": "a1", "sessionId": SESSION, "content": "Conversation compacted"},
        user("s1", "b1", "This session is being continued... summary", isCompactSummary=True),
        user("u2", "s1", "after the compaction"),
        reply("a2", "u2", "msg_2", text("late answer")),
    ]
    session = parse(write_session(tmp_path, lines))
    assert [m["content"][0]["text"] for _, m in session.messages] == [
        "before the compaction", "early answer", "after the compaction", "late answer"]
    assert any("compaction's summary" in note for note in session.left_out)


def test_api_errors_and_slash_commands_are_not_conversation(tmp_path: Path) -> None:
    lines = [
        user("u1", None, "<command-name>/model</command-name>"),
        user("u2", "u1", "hello"),
        {**reply("a1", "u2", "msg_e", text("API Error: 500")), "isApiErrorMessage": True},
        reply("a2", "a1", "msg_2", text("hi")),
    ]
    session = parse(write_session(tmp_path, lines))
    assert [k for k, _ in session.messages] == ["u2", "msg_2"]
    assert len(session.left_out) == 2


def test_a_codex_rollout_is_refused_as_another_runtimes(tmp_path: Path) -> None:
    path = write_session(tmp_path, [CODEX_ROLLOUT_LINE])
    with pytest.raises(NativeSessionFormatError, match=r"line 1: .*Codex rollout") as err:
        parse(path)
    assert str(path) in str(err.value) and "--from codex" in (err.value.hint or "")


def test_json_lines_without_a_conversation_are_not_a_session(tmp_path: Path) -> None:
    path = write_session(tmp_path, [{"type": "note", "x": 1}, {"type": "other"}])
    with pytest.raises(NativeSessionFormatError, match=r"no `user` or `assistant` line.*"
                       r"note, other"):
        parse(path)


def test_a_file_of_another_session_is_refused(tmp_path: Path) -> None:
    path = write_session(tmp_path, conversation())
    other = "11111111-2222-4333-8444-555555555555"
    with pytest.raises(NativeSessionFormatError, match=f"not {other}"):
        parse(path, other)


def test_a_truncated_session_file_is_refused_whole(tmp_path: Path) -> None:
    lines = conversation()
    path = write_session(tmp_path, lines)
    data = path.read_bytes()
    path.write_bytes(data[:-40])  # the last line cut in the middle, as a crash leaves it
    with pytest.raises(NativeSessionFormatError, match=f"line {len(lines)}: the line is cut off"):
        read_session_lines(path, what=WHAT)


@pytest.mark.parametrize(("path", "slug"), [
    # reference values from Claude Code's own function, run under node
    ("/tmp/adopt-exp/proj", "-tmp-adopt-exp-proj"),
    ("/home/ünïcode/proj 1", "-home--n-code-proj-1"),
    ("/x/🦆/y", "-x----y"),
    ("/very/long/" + "segment-name/" * 20 + "end",
     "-very-long-" + "segment-name-" * 14 + "segment-ftn8vm"),
])
def test_project_slugs_are_claude_codes(path: str, slug: str) -> None:
    assert project_slug(path) == slug


def test_handed_off_lines_chain_from_a_user_to_a_reply() -> None:
    lines = handoff_lines([("assistant", "hello first"), ("user", "a question"),
                           ("assistant", "an answer"), ("user", "unanswered")],
                          session_id=SESSION, cwd="/w", model="claude-opus-5",
                          version="2.1.197", started_ms=1_800_000_000_000)
    assert [o["type"] for o in lines] == ["user", "assistant", "user", "assistant", "user",
                                          "assistant"]
    assert lines[0]["parentUuid"] is None
    assert all(b["parentUuid"] == a["uuid"] for a, b in itertools.pairwise(lines))
    assert {o["sessionId"] for o in lines} == {SESSION} and {o["cwd"] for o in lines} == {"/w"}
    assert lines[2]["message"] == {"role": "user", "content": "a question"}
    assert lines[3]["message"]["content"] == [text("an answer")]
    assert "handed over before this message was answered" in json.dumps(lines[-1])
    # and it reads back as the same conversation
    encoded = encode_lines(lines)
    assert encoded.endswith(b"\n") and encoded.count(b"\n") == len(lines)
    back = parse_claude_session("f", read_session_lines("f", what=WHAT, data=encoded),
                                session_id=SESSION)
    assert [m["content"][0]["text"] for _, m in back.messages][1:5] == [
        "hello first", "a question", "an answer", "unanswered"]
