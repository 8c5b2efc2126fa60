"""`clawharness chat` under a terminal keeps its prompt open while a turn runs: a line
typed then is steered into the running turn (docs/steering.md), which the model's next
request carries after the tool result; the transcript holds it once."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from chat_terminal import Terminal, terminal_env

from clawharness.host import Host


@pytest.fixture
def steer_chat(tmp_path: Path) -> Iterator[tuple[Terminal, Path]]:
    script = {"responses": [
        # the steered line is the last message of the model's next request only if the
        # running turn carried it there, after the tool result
        {"match": "in French$", "repeat": True, "text": "fini"},
        {"match": "^start$", "tool_calls": [{"name": "exec", "arguments": {
            # waits for the test (the exec runs in the agent's workspace)
            "command": "while [ ! -f go ]; do sleep 0.05; done; echo released"}}]},
        {"match": "[\\s\\S]", "repeat": True, "text": "not steered"},
    ]}
    config = tmp_path / "config.json5"
    config.write_text(json.dumps({
        "models": {"providers": {"scripted": {"api": "scripted", "models": [
            {"id": "main", "params": {"script": script}}]}}},
        "agents": {"defaults": {"model": "scripted/main"}},
        "tools": {"exec": {"security": "full", "ask": "off"}},
    }))
    term = Terminal(["chat", "--config", str(config), "--session", "steer"],
                    terminal_env(tmp_path / "state"))
    yield term, config
    term.close()


async def test_a_line_typed_while_a_turn_runs_is_steered_into_it(
        steer_chat: tuple[Terminal, Path], tmp_path: Path) -> None:
    terminal, config = steer_chat
    terminal.wait_for("you›")
    terminal.send_line("start")
    terminal.wait_for("tool exec")
    terminal.send_line("answer in French")
    terminal.wait_for("sent to the running turn's session")
    (tmp_path / "state" / "workspace" / "main" / "go").touch()
    terminal.wait_for("fini")
    terminal.wait_for("was steered into the running turn")
    terminal.wait_for("you›")
    terminal.send_control("d")
    assert terminal.wait_exit() == 0
    assert "not steered" not in terminal.screen

    async with Host.from_config(config, env={"CLAWHARNESS_STATE_DIR": str(tmp_path / "state")}) as host:
        entries = [(e.role, e.text) for e in await host.history("steer")]
    assert [role for role, _ in entries] == [
        "user", "assistant", "toolResult", "user", "assistant"]
    assert entries[0] == ("user", "start") and entries[3] == ("user", "answer in French")
    assert entries[4] == ("assistant", "fini")
    assert [text for _, text in entries].count("answer in French") == 1


async def test_queue_followup_runs_the_typed_line_as_the_next_turn(
        steer_chat: tuple[Terminal, Path], tmp_path: Path) -> None:
    terminal, config = steer_chat
    terminal.wait_for("you›")
    terminal.send_line("/queue bogus")
    terminal.wait_for("unknown queue mode 'bogus'")
    terminal.send_line("/queue followup")
    terminal.wait_for("queue mode followup")
    terminal.send_line("start")
    terminal.wait_for("tool exec")
    terminal.send_line("answer in French")
    terminal.wait_for("sent to the running turn's session (followup)")
    (tmp_path / "state" / "workspace" / "main" / "go").touch()
    terminal.wait_for("not steered")
    terminal.wait_for("fini")
    terminal.wait_for("you›")
    terminal.send_control("d")
    assert terminal.wait_exit() == 0
    assert "into the running turn" not in terminal.screen

    async with Host.from_config(config, env={"CLAWHARNESS_STATE_DIR": str(tmp_path / "state")}) as host:
        entries = [(e.role, e.text) for e in await host.history("steer")]
    assert [role for role, _ in entries] == [
        "user", "assistant", "toolResult", "assistant", "user", "assistant"]
    assert entries[3:] == [("assistant", "not steered"), ("user", "answer in French"),
                           ("assistant", "fini")]
