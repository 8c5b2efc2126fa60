"""docs/scripted-model.md's example scripts are valid scripts and do what the page says."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from clawharness.providers.script import EXHAUSTED_TEXT, ScriptPlayer, parse_script

DOC = Path(__file__).resolve().parents[2] / "docs" / "scripted-model.md"
BLOCK = re.compile(r"```(json|yaml)\n(.*?)```", re.S)


def example_scripts() -> list[tuple[str, Any]]:
    found = []
    for kind, body in BLOCK.findall(DOC.read_text(encoding="utf-8")):
        data = json.loads(body) if kind == "json" else yaml.safe_load(body)
        if isinstance(data, dict) and "responses" in data:
            found.append((kind, data))
    return found


def test_every_example_script_on_the_page_is_valid() -> None:
    scripts = example_scripts()
    assert len(scripts) >= 5
    for _, data in scripts:
        parse_script(data, source=str(DOC))


def test_the_first_example_answers_a_greeting_then_a_tool_turn() -> None:
    player = ScriptPlayer(parse_script(example_scripts()[0][1]))
    assert player.choose("hello").text == "Hello! I am a scripted model."
    assert [c.name for c in player.choose("take a note").tool_calls] == ["write"]
    assert player.choose("Successfully wrote 7 bytes to notes.md").text == "Saved your note."
    assert player.choose("anything").text == EXHAUSTED_TEXT


def test_the_yaml_chat_example_answers_in_any_order_again_and_again() -> None:
    chat = next(data for kind, data in example_scripts() if kind == "yaml")
    player = ScriptPlayer(parse_script(chat))
    for _ in range(2):
        assert player.choose("Hi there").text == "Hello from the scripted model."
        call = player.choose("please put milk on my list").tool_calls[0]
        assert call.name == "write" and call.arguments == {"path": "list.txt", "content": "milk\n"}
        assert player.choose("Successfully wrote 5 bytes to list.txt").text == (
            "Added milk to list.txt.")
    assert player.choose("something else").text == EXHAUSTED_TEXT
