"""A tool refused by policy: the CLI and the tool result the model sees name the rule."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_rig import invoke, only_json, scripted_config

SCRIPT = {"responses": [
    {"match": "run it", "repeat": True,
     "tool_calls": [{"name": "exec", "arguments": {"command": "echo hi"}}]},
    {"match": "fetch it", "tool_calls": [{"name": "web_fetch",
                                          "arguments": {"url": "http://127.0.0.1:9/"}}]},
    {"match": "not available", "text": "the tool was refused", "repeat": True},
], "exhausted": "text"}


def refused_tool_result(config: Path, session: str) -> str:
    shown = only_json(invoke("sessions", "show", session, "--config", str(config), "--json"))
    [result] = [e for e in shown["entries"] if e["role"] == "toolResult"]
    return str(result["text"])


@pytest.mark.parametrize(("tools", "rule"), [
    ({"tools": {"deny": ["group:runtime"]}}, 'tools.deny list (entry "group:runtime")'),
    ({"agents": {"entries": {"main": {"default": True, "tools": {"deny": ["exec"]}}}}},
     'agents.entries.main.tools.deny list (entry "exec")'),
    ({"tools": {"profile": "minimal"}}, 'tool profile "minimal" (tools.profile)'),
])
def test_a_denied_tool_names_its_rule_to_the_user_and_the_model(
        tmp_path: Path, tools: dict[str, Any], rule: str) -> None:
    with scripted_config(tmp_path, SCRIPT, tools) as config:
        text = invoke("agent", "--config", str(config), "-s", "t", "-m", "please run it")
        data = json.loads(invoke("agent", "--config", str(config), "-s", "j", "--json",
                                 "-m", "please run it").stdout)
        seen_by_model = refused_tool_result(config, "t")
    assert text.exit_code == 0, text.output
    assert "tool exec failed" in text.stdout and rule in text.stdout
    assert "tool exec failed" not in text.stdout.split(rule)[1]  # the reason, not a repeat
    [call] = data["toolCalls"]
    assert call["name"] == "exec" and call["ok"] is False and rule in call["error"]
    assert rule in seen_by_model


def test_web_fetch_off_by_default_says_how_to_enable_it(tmp_path: Path) -> None:
    with scripted_config(tmp_path, SCRIPT) as config:
        text = invoke("agent", "--config", str(config), "-s", "w", "-m", "please fetch it")
        seen_by_model = refused_tool_result(config, "w")
    assert "tool web_fetch failed" in text.stdout
    assert "tools.web.fetch.enabled" in text.stdout
    assert "set tools.web.fetch.enabled to true" in seen_by_model
