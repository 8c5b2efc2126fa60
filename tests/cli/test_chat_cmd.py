"""`clawharness chat` as a person uses it (under a pseudo-terminal) and as a script does
(piped stdin), against a scripted model, with the store checked afterwards."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from chat_terminal import CLAWHARNESS, Terminal, terminal_env

from clawharness.host import Host

SCRIPT: dict[str, Any] = {"responses": [
    # answers to tool results first: their text could match a later item too
    {"match": "wait\\.txt$", "repeat": True, "delay_ms": 120_000, "text": "too late"},
    {"match": "^Successfully wrote", "repeat": True, "text": "Saved the note."},
    {"match": "^(Linux|Darwin)", "repeat": True, "text": "That ran."},
    {"match": "was not run", "repeat": True, "text": "Not run, then."},
    {"match": "(?i)^hello", "repeat": True, "text": "Hello from the script!"},
    {"match": "(?i)note", "repeat": True, "tool_calls": [
        {"name": "write", "arguments": {"path": "notes/todo.md", "content": "- milk\n"}}]},
    {"match": "(?i)uname", "repeat": True, "tool_calls": [
        {"name": "exec", "arguments": {"command": "uname -s"}}]},
    {"match": "(?i)wait", "repeat": True, "tool_calls": [
        {"name": "write", "arguments": {"path": "wait.txt", "content": "wait"}}]},
    {"match": "[\\s\\S]", "repeat": True, "text": "default answer"},
]}
ALT_SCRIPT: dict[str, Any] = {"responses": [
    {"match": "[\\s\\S]", "repeat": True, "text": "answer from alt"}]}


@pytest.fixture
def chat_config(tmp_path: Path) -> Iterator[Path]:
    script = tmp_path / "script.json"
    script.write_text(json.dumps(SCRIPT))
    path = tmp_path / "config.json5"
    path.write_text(json.dumps({
        "models": {"providers": {"scripted": {"api": "scripted", "models": [
            {"id": "main", "params": {"script": str(script)}},
            {"id": "alt", "params": {"script": ALT_SCRIPT}},
            {"id": "broken"},
        ]}}},
        "agents": {"defaults": {"model": "scripted/main"}},
        "tools": {"exec": {"security": "allowlist", "ask": "on-miss", "allowlist": ["ls"]}},
    }))
    yield path


def _host(config: Path, state: Path) -> Host:
    return Host.from_config(config, env={"CLAWHARNESS_STATE_DIR": str(state)})


@pytest.fixture
def terminal(chat_config: Path, tmp_path: Path) -> Iterator[Terminal]:
    term = Terminal(["chat", "--config", str(chat_config), "--session", "work"],
                    terminal_env(tmp_path / "state"))
    yield term
    term.close()


async def test_two_turns_a_tool_call_and_reset_under_a_terminal(
        terminal: Terminal, chat_config: Path, tmp_path: Path) -> None:
    terminal.wait_for("clawharness chat")
    terminal.wait_for("agent:main:work")
    terminal.wait_for("you›")
    terminal.send_line("hello")
    terminal.wait_for("Hello from the script!")
    terminal.wait_for("you›")
    terminal.send_line("take a note")
    terminal.wait_for("tool write to notes/todo.md")
    terminal.wait_for("write ok Successfully wrote 7 bytes to notes/todo.md")
    terminal.wait_for("Saved the note.")
    terminal.wait_for("you›")
    terminal.send_line("/reset")
    terminal.wait_for("fresh session agent:main:work")
    terminal.wait_for("you›")
    terminal.send_line("hello again")
    terminal.wait_for("Hello from the script!")
    terminal.wait_for("you›")
    terminal.send_control("d")
    assert terminal.wait_exit() == 0

    async with _host(chat_config, tmp_path / "state") as host:
        fresh = await host.history("work")
        assert [(e.role, e.text) for e in fresh] == [
            ("user", "hello again"), ("assistant", "Hello from the script!")]
        record = await host.get_session("work")
        old = await host.store.read_entries(record.meta.previous_session_id)
        assert [e.role for e in old] == ["user", "assistant", "user", "assistant",
                                         "toolResult", "assistant"]
    assert (tmp_path / "state" / "workspace" / "main" / "notes" / "todo.md").read_text() == "- milk\n"


async def test_an_exec_approval_is_asked_inline_and_ctrl_c_aborts_only_the_turn(
        terminal: Terminal, chat_config: Path, tmp_path: Path) -> None:
    terminal.wait_for("you›")
    terminal.send_line("run uname")
    terminal.wait_for("tool exec uname -s")
    terminal.wait_for("approval needed")
    terminal.wait_for("uname -s")
    terminal.wait_for("Allow?")
    # denied: the decision's wiring is what is tested here, not how fast bash starts
    terminal.send_line("d")
    terminal.wait_for("exec failed")
    terminal.wait_for("approval refused by the operator")
    terminal.wait_for("Not run, then.")
    terminal.wait_for("you›")
    # the model's next answer takes two minutes: Ctrl-C aborts the turn while it waits
    terminal.send_line("please wait")
    terminal.wait_for("write ok Successfully wrote 4 bytes to wait.txt")
    terminal.send_control("c")
    terminal.wait_for("aborted", timeout=20)
    terminal.wait_for("you›")
    terminal.send_line("/status")
    terminal.wait_for("last turn")
    terminal.wait_for("aborted on openclaw")
    terminal.wait_for("you›")
    terminal.send_line("hello, still there?")
    terminal.wait_for("Hello from the script!")
    terminal.wait_for("you›")
    terminal.send_line("/exit")
    assert terminal.wait_exit() == 0


def test_ctrl_c_at_the_prompt_keeps_the_chat(terminal: Terminal) -> None:
    terminal.wait_for("you›")
    terminal.send_control("c")
    terminal.wait_for("Ctrl-D leaves")
    terminal.send_line("/help")
    terminal.wait_for("/model [ref]")
    terminal.wait_for("you›")
    terminal.send_control("d")
    assert terminal.wait_exit() == 0


def _piped(config: Path, state: Path, text: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CLAWHARNESS, "chat", "--config", str(config), *args], input=text,
                          capture_output=True, text=True, timeout=120,
                          env=terminal_env(state, {"COLUMNS": "200"}))


async def test_piped_stdin_runs_each_line_and_refuses_approvals(chat_config: Path,
                                                                 tmp_path: Path) -> None:
    done = _piped(chat_config, tmp_path / "state",
                  "hello\ntake a note\nrun uname\n/model scripted/alt\nanything\n/status\n",
                  "--session", "piped")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "Hello from the script!" in out
    assert "tool write to notes/todo.md" in out and "write ok" in out
    assert "no terminal to ask, so it is refused" in out and "exec failed" in out
    assert "Not run, then." in out
    assert "model scripted/alt" in out and "answer from alt" in out
    assert "you›" not in out  # no prompt when nobody reads it
    async with _host(chat_config, tmp_path / "state") as host:
        record = await host.get_session("piped")
        assert record.model_ref == "scripted/alt"  # /model held for the following turns
        texts = [e.text for e in await host.history("piped") if e.role == "user"]
        assert texts == ["hello", "take a note", "run uname", "anything"]


def test_a_model_that_cannot_be_used_is_refused_and_the_old_one_kept(chat_config: Path,
                                                                     tmp_path: Path) -> None:
    done = _piped(chat_config, tmp_path / "state",
                  "/model nope/x\n/model\nhello\n", "--session", "m")
    assert "unknown provider 'nope'" in done.stdout
    assert "model scripted/main" in done.stdout
    assert "Hello from the script!" in done.stdout


def test_a_piped_chat_whose_turn_failed_exits_non_zero(chat_config: Path, tmp_path: Path) -> None:
    done = _piped(chat_config, tmp_path / "state", "hello\n", "--model", "scripted/broken")
    assert done.returncode == 1
    assert "failed" in done.stdout and "names no script" in done.stdout


def test_a_bad_model_flag_fails_before_the_chat_starts(chat_config: Path, tmp_path: Path) -> None:
    done = _piped(chat_config, tmp_path / "state", "hello\n", "--model", "nope/x")
    assert done.returncode == 1
    assert "unknown provider 'nope'" in done.stderr
    assert "Hello" not in done.stdout


def test_a_harness_question_is_asked_and_answered_inline(tmp_path: Path) -> None:
    # the test kit's asking harness (tests/host/host_fake_plugins.py) asks one question
    config = tmp_path / "asking.json5"
    config.write_text(json.dumps({
        "models": {"providers": {"scripted": {"api": "scripted", "models": [
            {"id": "m1", "params": {"script": ALT_SCRIPT}}]}}},
        "plugins": {"load": ["host_fake_plugins:asking_entry"]},
        "agents": {"defaults": {"model": "scripted/m1", "models": {
            "scripted/m1": {"agentRuntime": {"id": "asking"}}}}},
    }))
    fakes = Path(__file__).resolve().parents[1] / "host"
    term = Terminal(["chat", "--config", str(config)],
                    terminal_env(tmp_path / "state", {"PYTHONPATH": str(fakes)}))
    try:
        term.wait_for("you›")
        term.send_line("go")
        term.wait_for("the agent asks")
        term.wait_for("Which color?")
        term.wait_for("answer:")
        term.send_line("2")
        term.wait_for("you picked blue")
        term.wait_for("you›")
        term.send_control("d")
        assert term.wait_exit() == 0
    finally:
        term.close()


async def test_think_sets_the_sessions_level_and_status_shows_it(chat_config: Path,
                                                                 tmp_path: Path) -> None:
    done = _piped(chat_config, tmp_path / "state",
                  "/think\n/think extra high\n/status\nhello\n/think big\n/think\n",
                  "--session", "thinker")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "thinking not set" in out
    assert "thinking level xhigh for this session's turns" in out
    assert "xhigh (this session (/think))" in out  # /status and /think both say so
    assert "unknown thinking level 'big'" in out
    async with _host(chat_config, tmp_path / "state") as host:
        record = await host.get_session("thinker")
        assert record.meta.thinking_level == "xhigh"  # the bad level changed nothing
    cleared = _piped(chat_config, tmp_path / "state", "/think default\n/status\n",
                     "--session", "thinker")
    assert "back to the agent's: not set" in cleared.stdout
