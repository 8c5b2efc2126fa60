"""Scripted-model scripts are read within limits: size, nesting, and no YAML aliases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from clawharness.errors import ConfigError
from clawharness.limits import MAX_SCRIPT_BYTES
from clawharness.providers.script import load_script


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_yaml_alias_bomb_is_refused_before_it_expands(tmp_path: Path) -> None:
    # nine levels of nine aliases stand for 9**9 items once the arguments are serialised
    lines = ["l0: &l0 [x, x, x, x, x, x, x, x, x]"]
    for level in range(1, 9):
        refs = ", ".join([f"*l{level - 1}"] * 9)
        lines.append(f"l{level}: &l{level} [{refs}]")
    lines.append("responses: [{tool_calls: [{name: write, arguments: {content: *l8}}]}]")
    with pytest.raises(ConfigError, match=r"aliases \(\*name\) are not allowed"):
        load_script(write(tmp_path, "bomb.yaml", "\n".join(lines)))


@pytest.mark.parametrize(("name", "text"), [
    ("deep.yaml", "responses: " + "[" * 5000 + "]" * 5000),
    ("deep.json", json.dumps({"responses": []})[:-1] + ', "x": ' + "[" * 5000 + "]" * 5000
     + "}"),
    ("mid.yaml", "responses: [{text: hi, usage: " + "[" * 200 + "]" * 200 + "}]"),
])
def test_a_script_nested_too_deep_is_a_config_error(tmp_path: Path, name: str,
                                                     text: str) -> None:
    # before: RecursionError from the YAML composer or the JSON decoder
    with pytest.raises(ConfigError, match="nested deeper than 128 levels"):
        load_script(write(tmp_path, name, text))


def test_a_script_over_the_size_limit_is_refused_unread(tmp_path: Path) -> None:
    path = tmp_path / "huge.json"
    with path.open("w") as fh:
        fh.write('{"responses": [{"text": "')
        fh.write("x" * MAX_SCRIPT_BYTES)
        fh.write('"}]}')
    with pytest.raises(ConfigError, match=r"over the limit of 8,388,608 bytes"):
        load_script(path)


def test_an_ordinary_script_still_loads(tmp_path: Path) -> None:
    script = load_script(write(tmp_path, "ok.yaml", "responses:\n  - text: hello\n"))
    assert script.responses[0].text == "hello"
