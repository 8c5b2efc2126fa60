"""The portable-session contract's own helpers: reading JSON-lines session files within
their errors, the conversation a handoff carries, and the runtime names."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawharness.errors import (
    InputLimitError,
    NativeSessionFormatError,
    NativeSessionNotFoundError,
    NativeSessionUnsupportedError,
)
from clawharness.harness.portable import HandoffRequest, portable_runtime, read_session_lines

WHAT = "a test session file"


def write(tmp_path: Path, data: bytes, name: str = "s.jsonl") -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_lines_come_with_their_numbers_and_blank_lines_are_skipped(tmp_path: Path) -> None:
    path = write(tmp_path, b'{"a": 1}\n\n{"b": 2}\n')
    assert read_session_lines(path, what=WHAT) == ((1, {"a": 1}), (3, {"b": 2}))


def test_a_last_line_cut_off_mid_object_is_a_truncated_file(tmp_path: Path) -> None:
    path = write(tmp_path, b'{"a": 1}\n{"b": 2}\n{"c": [1, 2')
    with pytest.raises(NativeSessionFormatError, match=r"line 3: the line is cut off") as err:
        read_session_lines(path, what=WHAT)
    assert str(path) in str(err.value) and err.value.hint


def test_a_bad_line_in_the_middle_is_not_this_format(tmp_path: Path) -> None:
    path = write(tmp_path, b'{"a": 1}\nnot json at all\n{"c": 3}\n')
    with pytest.raises(NativeSessionFormatError, match=r"line 2: not JSON .*not a test session"):
        read_session_lines(path, what=WHAT)


@pytest.mark.parametrize(("data", "words"), [
    (b"", "is empty"),
    (b"\n\n", "is empty"),
    (b'["a list"]\n', "line 1: a JSON list, not an object"),
    (b'{"a": 1}\n\xff\xfe{"b"}\n', "line 2: not UTF-8 text"),
])
def test_other_bad_files_are_named_with_their_line(tmp_path: Path, data: bytes,
                                                   words: str) -> None:
    path = write(tmp_path, data)
    with pytest.raises(NativeSessionFormatError, match=words):
        read_session_lines(path, what=WHAT)


def test_a_missing_file_and_a_directory(tmp_path: Path) -> None:
    with pytest.raises(NativeSessionNotFoundError, match="no such file"):
        read_session_lines(tmp_path / "nope.jsonl", what=WHAT)
    with pytest.raises(NativeSessionFormatError, match="is not a file"):
        read_session_lines(tmp_path, what=WHAT)


def test_a_file_over_its_limit_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    path = write(tmp_path, b'{"a": "' + b"x" * 200 + b'"}\n')
    with pytest.raises(InputLimitError, match="over the limit of 100 bytes"):
        read_session_lines(path, what=WHAT, max_bytes=100)


def test_bytes_already_read_are_parsed_and_the_path_only_names_them(tmp_path: Path) -> None:
    assert read_session_lines(tmp_path / "never-read.jsonl", what=WHAT,
                              data=b'{"x": true}\n') == ((1, {"x": True}),)


def request(*history: dict[str, object]) -> HandoffRequest:
    return HandoffRequest(agent_id="main", session_key="agent:main:k",
                          history=tuple(history), cwd="/tmp", state_dir="/tmp")  # type: ignore[arg-type]


def test_the_conversation_folds_tool_calls_into_replies_and_alternates() -> None:
    turns = request(
        {"role": "user", "content": [{"type": "text", "text": "list the files"}]},
        {"role": "assistant", "stopReason": "toolUse", "content": [
            {"type": "text", "text": "Looking."},
            {"type": "toolCall", "id": "c1", "name": "exec", "arguments": {"command": "ls"}}]},
        {"role": "toolResult", "toolCallId": "c1", "toolName": "exec",
         "content": [{"type": "text", "text": "a.txt\nb.txt"}], "isError": False},
        {"role": "assistant", "stopReason": "stop",
         "content": [{"type": "text", "text": "Two files."}]},
        {"role": "user", "content": [{"type": "text", "text": "thanks"},
                                     {"type": "image", "data": "AAA", "mimeType": "image/png"}]},
        {"role": "assistant", "stopReason": "error", "content": [{"type": "text", "text": "x"}]},
        {"role": "user", "content": [{"type": "text", "text": "   "}]},
    ).conversation()
    assert turns == (
        ("user", "list the files"),
        ("assistant", 'Looking.\n[called exec with {"command": "ls"}]\n\n'
                      "[exec returned: a.txt\nb.txt]\n\nTwo files."),
        ("user", "thanks\n[image]"),
    )


def test_a_failed_tool_result_says_so() -> None:
    turns = request(
        {"role": "toolResult", "toolCallId": "c", "toolName": "read", "isError": True,
         "content": [{"type": "text", "text": "no such file"}]}).conversation()
    assert turns == (("assistant", "[read returned (failed): no such file]"),)


@pytest.mark.parametrize(("name", "expected"), [
    ("claude-code", ("claude-cli", None)), ("Claude", ("claude-cli", None)),
    ("claude-cli", ("claude-cli", None)), ("codex", ("codex", None)),
    ("acp/gemini", ("acp", "gemini")),
])
def test_runtime_names(name: str, expected: tuple[str, str | None]) -> None:
    assert portable_runtime(name) == expected


@pytest.mark.parametrize(("name", "words"), [("acp", "name the ACP agent"),
                                             ("acp/", "unknown runtime"),
                                             ("openclaw", "use claude-code, codex or acp")])
def test_unknown_runtime_names_are_refused(name: str, words: str) -> None:
    with pytest.raises(NativeSessionUnsupportedError, match=words):
        portable_runtime(name)
