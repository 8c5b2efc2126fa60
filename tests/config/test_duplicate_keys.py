"""A key written twice in one object is an error naming both lines (issue 31): the
decoders keep the last silently, so a second `tools` block dropped the first's `deny`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clawharness.config.loader import load_config
from clawharness.config.source import decode_config_text
from clawharness.errors import ConfigError
from clawharness.host import Host

AUDIT_CASE = """{
  // a second tools block silently dropped deny
  tools: { deny: ["exec"] },
  agents: { defaults: { model: "x/y" } },
  tools: { profile: "coding" },
}
"""


def problems_of(text: str) -> list[tuple[str, int | None, str]]:
    with pytest.raises(ConfigError) as caught:
        decode_config_text(text, source="c.json5")
    return [(p.key_path, p.line, p.message) for p in caught.value.problems]


def test_a_second_tools_block_is_an_error_naming_both_lines(tmp_path: Path) -> None:
    path = tmp_path / "config.json5"
    path.write_text(AUDIT_CASE)
    with pytest.raises(ConfigError) as caught:
        load_config(path, env={})
    [problem] = caught.value.problems
    assert problem.key_path == "tools" and problem.line == 5
    assert problem.code == "config-duplicate-key"
    assert "lines 3 and 5" in problem.message
    assert f"{path}:5 at tools" in str(caught.value)
    with pytest.raises(ConfigError, match="lines 3 and 5"):
        Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)})


def test_plain_json_takes_the_same_rule() -> None:
    text = '{\n  "tools": {"deny": ["exec"]},\n  "tools": {}\n}'
    json.loads(text)  # the standard decoder alone would take it
    assert problems_of(text) == [("tools", 3, "`tools` is written twice in the same object "
                                  "(lines 2 and 3); only the last would count, silently "
                                  "dropping the first")]


def test_repeats_anywhere_are_all_named_with_their_paths() -> None:
    text = """{
  agents: { entries: { main: { tools: { deny: ["exec"], "deny": [] } } } },
  mcp: { servers: { a: { command: "x", env: { K: "secret-value-1", 'K': "v2" } } } },
  list: [ { x: 1 }, { x: 1,
                      x: 2 } ],
}"""
    found = problems_of(text)
    assert [(path, line) for path, line, _ in found] == [
        ("agents.entries.main.tools.deny", 2), ("mcp.servers.a.env.K", 3), ("list[1].x", 5)]
    assert "both on line 3" in found[1][2]
    assert all("secret-value-1" not in message for _, _, message in found)


def test_what_is_not_a_repeat_passes() -> None:
    text = '{a: {x: 1}, b: {x: 1}, c: [{x: 1}, {x: 2}], Tools: 1, tools: 2, "a.b": 1}'
    assert decode_config_text(text).raw["c"] == [{"x": 1}, {"x": 2}]


def test_a_repeat_the_scan_cannot_see_is_still_refused() -> None:
    # the scan does not decode \\u escapes in keys; the decoder's own list then stands
    [(path, line, message)] = problems_of('{"t\\u006fols": {deny: ["exec"]}, tools: {}}')
    assert (path, line) == ("", None)
    assert "'tools' is written twice" in message


@settings(max_examples=60, deadline=None)
@given(keys=st.lists(st.from_regex(r"[a-z][a-z0-9_]{0,6}", fullmatch=True), min_size=1,
                     max_size=6, unique=True),
       repeat=st.integers(min_value=0, max_value=5), depth=st.integers(0, 3))
def test_any_repeated_key_at_any_depth_is_found_with_its_line(keys: list[str], repeat: int,
                                                               depth: int) -> None:
    again = keys[repeat % len(keys)]
    members = [f'  "{k}": {i},' for i, k in enumerate(keys)] + [f"  {again}: 99,"]
    text = "{\n" + "\n".join(members) + "\n}"
    for _ in range(depth):
        text = "{ wrap: " + text + " }"
    [(path, line, _message)] = problems_of(text)
    assert path.split(".")[-1] == again and path.count("wrap") == depth
    assert line == len(keys) + 2
