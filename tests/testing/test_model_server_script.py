"""Script loading and validation: bad scripts raise ConfigError naming file, item and key."""

from __future__ import annotations

import pytest

from clawharness.errors import ConfigError
from clawharness.testing import ScriptPlayer, load_script, parse_script


@pytest.mark.parametrize(
    ("item", "key_path"),
    [
        ({"text": "x", "colour": "red"}, "responses[1].colour"),
        ({"text": 3}, "responses[1].text"),
        ({"tool_calls": "f"}, "responses[1].tool_calls"),
        ({"tool_calls": [{"arguments": {}}]}, "responses[1].tool_calls[0].name"),
        ({"tool_calls": [{"name": "f", "arguments": [1]}]}, "responses[1].tool_calls[0].arguments"),
        ({"tool_calls": [{"name": "f", "args": {}}]}, "responses[1].tool_calls[0].args"),
        ({"tool_calls": [{"name": "apply_patch", "custom": True}]},
         "responses[1].tool_calls[0].input"),
        ({"error": {"status": 200, "message": "m"}}, "responses[1].error.status"),
        ({"error": {"status": 500}}, "responses[1].error.message"),
        ({"error": {"status": 500, "message": "m"}, "text": "t"}, "responses[1].error"),
        ({"cut": "yes"}, "responses[1].cut"),
        ({"text": "x", "delay_ms": -1}, "responses[1].delay_ms"),
        ({"text": "x", "delay_ms": "5"}, "responses[1].delay_ms"),
        ({"text": "x", "match": "("}, "responses[1].match"),
        ({"text": "x", "repeat": True}, "responses[1].repeat"),
        ({"text": "x", "usage": {"input_tokens": "many"}}, "responses[1].usage.input_tokens"),
        ({"text": "x", "usage": {"cached": 1}}, "responses[1].usage.cached"),
        ({"delay_ms": 5}, "responses[1]"),
        ("just text", "responses[1]"),
    ],
)
def test_bad_item_names_its_index_and_key(item, key_path):
    with pytest.raises(ConfigError) as caught:
        parse_script({"responses": [{"text": "fine"}, item]}, source="s.json")

    assert caught.value.key_path == key_path
    assert caught.value.path == "s.json"
    assert key_path in str(caught.value)


@pytest.mark.parametrize(
    ("script", "key_path"),
    [
        ({"responses": {"text": "x"}}, "responses"),
        ({}, "responses"),
        ({"responses": [], "exhausted": "loop"}, "exhausted"),
        ({"responses": [], "responses_stream": "chatty"}, "responses_stream"),
        ({"responses": [], "extra": 1}, "extra"),
    ],
)
def test_bad_top_level_is_refused(script, key_path):
    with pytest.raises(ConfigError) as caught:
        parse_script(script)

    assert caught.value.key_path == key_path


def test_yaml_and_json_files_load_to_the_same_script(tmp_path):
    yaml_file = tmp_path / "s.yaml"
    yaml_file.write_text(
        "exhausted: error\n"
        "responses:\n"
        "  - text: hi\n"
        "    delay_ms: 5\n"
        "  - match: 'tool (\\w+)'\n"
        "    tool_calls:\n"
        "      - {name: exec_command, arguments: {cmd: ls}, id: c1}\n"
        "  - error: {status: 503, message: down}\n"
        "  - cut: true\n"
    )
    json_file = tmp_path / "s.json"
    json_file.write_text(
        '{"exhausted": "error", "responses": [{"text": "hi", "delay_ms": 5},'
        ' {"match": "tool (\\\\w+)", "tool_calls": [{"name": "exec_command",'
        ' "arguments": {"cmd": "ls"}, "id": "c1"}]},'
        ' {"error": {"status": 503, "message": "down"}}, {"cut": true}]}'
    )

    from_yaml, from_json = load_script(yaml_file), load_script(json_file)

    assert from_yaml.responses == from_json.responses
    assert from_yaml.exhausted == "error"
    assert from_yaml.responses[1].tool_calls[0].arguments == {"cmd": "ls"}
    assert from_yaml.source == str(yaml_file)


def test_unreadable_or_malformed_file_names_the_file(tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    with pytest.raises(ConfigError) as malformed:
        load_script(broken)
    with pytest.raises(ConfigError) as missing:
        load_script(tmp_path / "absent.yaml")

    assert malformed.value.path == str(broken)
    assert "absent.yaml" in str(missing.value)


def test_player_falls_back_to_the_exhausted_answer():
    player = ScriptPlayer(parse_script({"responses": [{"text": "one"}]}))

    assert player.choose("a").text == "one"
    assert player.choose("a").index == -1
    assert player.used == {0}
