"""`config set` and `doctor --fix` edit a JSON5 file in place: comments, layout, key order,
quote style and trailing commas survive; only what changed is rewritten."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

from clawharness.config.editing import edit_config
from clawharness.config.roundtrip import edit_json5_text
from clawharness.config.source import decode_config_text
from clawharness.config.writer import write_config

HAND_WRITTEN = """// my clawharness config
{
  /* the model we pay for */
  models: {
    providers: {
      local: { baseUrl: 'http://127.0.0.1:9/v1', api: 'openai-responses' }, // on the laptop
    },
  },
  agents: {
    defaults: {
      model: 'local/m',  // the default
      maxSteps: 40,
    },
  },
  gateway: { port: 18789 },
}
"""


def decode(text: str) -> Any:
    return decode_config_text(text).raw


def edited(text: str, change: Any) -> str:
    old = decode(text)
    new = copy.deepcopy(old)
    change(new)
    out = edit_json5_text(text, old, new, decode)
    assert out is not None, "the edit was not made in place"
    assert decode(out) == new
    return out


def test_a_changed_value_is_the_only_change() -> None:
    out = edited(HAND_WRITTEN, lambda c: c["gateway"].update(port=8080))
    assert out == HAND_WRITTEN.replace("port: 18789", "port: 8080")
    out = edited(HAND_WRITTEN, lambda c: c["agents"]["defaults"].update(model="local/n"))
    assert out == HAND_WRITTEN.replace("model: 'local/m'", "model: 'local/n'")  # quote kept


def test_new_keys_follow_their_neighbours_style() -> None:
    def change(c: dict[str, Any]) -> None:
        c["agents"]["defaults"]["timeoutSeconds"] = 30
        c["models"]["providers"]["local"]["apiKey"] = "it's"
        c["tools"] = {"exec": {"ask": "always"}, "deny": ["web_fetch"]}

    out = edited(HAND_WRITTEN, change)
    assert "      maxSteps: 40,\n      timeoutSeconds: 30,\n    },\n" in out
    assert "api: 'openai-responses', apiKey: 'it\\'s' }, // on the laptop\n" in out
    assert out.endswith("  gateway: { port: 18789 },\n  tools: {\n    exec: {\n"
                        "      ask: 'always',\n    },\n    deny: ['web_fetch'],\n  },\n}\n")
    assert out.startswith("// my clawharness config\n{\n  /* the model we pay for */\n")


def test_a_removed_key_takes_its_line_and_nothing_else() -> None:
    out = edited(HAND_WRITTEN, lambda c: c["agents"]["defaults"].pop("model"))
    assert out == HAND_WRITTEN.replace("      model: 'local/m',  // the default\n", "")
    out = edited(HAND_WRITTEN, lambda c: c.pop("gateway"))
    assert out == HAND_WRITTEN.replace("  gateway: { port: 18789 },\n", "")


def test_strict_json_stays_strict_json_without_trailing_commas() -> None:
    text = '{\n    "a": 1,\n    "b": {"c": "x"}\n}\n'
    out = edited(text, lambda c: (c["b"].update(d=[1, 2]), c.update(e="y"), c.pop("a")))
    assert json.loads(out) == {"b": {"c": "x", "d": [1, 2]}, "e": "y"}
    assert out == '{\n    "b": {"c": "x", "d": [1, 2]},\n    "e": "y"\n}\n'


def test_an_empty_object_and_deep_new_paths() -> None:
    out = edited("{}\n", lambda c: c.update(agents={"defaults": {"model": "a/b"}}))
    assert out == '{\n  "agents": {\n    "defaults": {\n      "model": "a/b"\n    }\n  }\n}\n'


def test_what_cannot_be_edited_in_place_answers_none() -> None:
    text = "{ tools: { deny: ['exec'] } }"
    old = decode(text)
    assert edit_json5_text(text, old, {"tools": {"deny": ["exec", "ls"]}}, decode) == (
        "{ tools: { deny: ['exec', 'ls'] } }\n")  # a changed list is one new value
    assert edit_json5_text("[1]", [1], [2], decode) is None  # not an object at the top


def test_config_set_keeps_the_file_as_written(tmp_path: Path) -> None:
    path = tmp_path / "config.json5"
    path.write_text(HAND_WRITTEN)
    outcome = edit_config(path, "gateway.port", 8080)
    assert outcome.changed and outcome.backup is not None
    assert path.read_text() == HAND_WRITTEN.replace("port: 18789", "port: 8080")
    edit_config(path, 'agents.defaults.models["local/m"].alias', "fast")
    assert "      maxSteps: 40,\n      models: {\n        'local/m': {\n" in path.read_text()
    for comment in ("// my clawharness config", "/* the model we pay for */",
                    "// on the laptop", "// the default"):
        assert comment in path.read_text()


def test_a_file_written_anew_says_so(tmp_path: Path) -> None:
    path = tmp_path / "new.json5"
    result = write_config(path, {"gateway": {"port": 1234}})
    assert not result.kept_layout and json.loads(path.read_text()) == {"gateway": {"port": 1234}}
    again = write_config(path, {"gateway": {"port": 1235}})
    assert again.kept_layout and json.loads(path.read_text()) == {"gateway": {"port": 1235}}
