"""`validate_config`: every problem, in user terms, with key paths, lines and hints."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from clawharness.config.loader import load_config, parse_config, validate_config
from clawharness.config.source import decode_config_text
from clawharness.errors import ConfigError
from clawharness.problems import ConfigProblem


def problems(raw: Any) -> dict[str, ConfigProblem]:
    return {p.key_path: p for p in validate_config(raw).errors}


def test_every_problem_is_listed_not_only_the_first() -> None:
    found = problems({"agents": {"defaults": {"model": 42, "maxSteps": "many"}},
                      "tools": {"exec": {"security": "sometimes"}},
                      "gateway": {"port": 99999}})
    assert set(found) == {"agents.defaults.model", "agents.defaults.maxSteps",
                          "tools.exec.security", "gateway.port"}
    with pytest.raises(ConfigError) as caught:
        parse_config({"agents": {"defaults": {"model": 42, "maxSteps": "many"}}}, source="c.json5")
    assert len(caught.value.problems) == 2
    assert "more problem" not in str(caught.value)
    assert "agents.defaults.model" in str(caught.value)
    assert "agents.defaults.maxSteps" in str(caught.value)


def test_a_wrong_model_type_says_which_forms_are_accepted_without_class_names() -> None:
    message = problems({"agents": {"defaults": {"model": 42}}})["agents.defaults.model"].message
    assert '"provider/model"' in message and "primary" in message and "fallbacks" in message
    assert "ModelRefSetting" not in message and "dictionary" not in message
    assert message.endswith("got 42")
    nested = problems({"models": []})["models"]
    assert "ModelsConfig" not in nested.message and nested.hint == "its keys: providers"


def test_a_misspelled_choice_lists_the_valid_ones_and_suggests_the_closest() -> None:
    found = problems({"tools": {"exec": {"security": "allowlst", "ask": "sometimes"}},
                      "models": {"providers": {"p": {"api": "openai-response"}}}})
    security = found["tools.exec.security"]
    assert "'deny', 'allowlist' or 'full'" in security.message
    assert security.hint == "did you mean 'allowlist'?"
    assert found["models.providers.p.api"].hint == "did you mean 'openai-responses'?"
    # nothing close: the valid values, no guess
    assert found["tools.exec.ask"].hint is None
    assert "'off', 'on-miss' or 'always'" in found["tools.exec.ask"].message


def test_a_string_where_a_list_belongs_shows_how_to_write_the_list() -> None:
    deny = problems({"tools": {"deny": "exec"}})["tools.deny"]
    assert deny.message.startswith("expected a list")
    assert deny.hint == "write a list, e.g. ['exec']"


def test_a_missing_key_and_an_index_in_a_list() -> None:
    found = problems({"models": {"providers": {"p": {"models": [{"id": "ok"}, {"name": "x"}]}}}})
    assert found["models.providers.p.models[1].id"].message == "this key is required"


def test_numbers_out_of_range_are_refused() -> None:
    found = problems({"agents": {"defaults": {"maxSteps": 0, "timeoutSeconds": float("nan")}},
                      "tools": {"exec": {"timeoutSec": -1}}})
    assert found["agents.defaults.maxSteps"].message == "must be at least 1; got 0"
    assert "finite" in found["agents.defaults.timeoutSeconds"].message
    assert found["tools.exec.timeoutSec"].message.startswith("must be more than 0")


def test_problems_carry_the_line_of_their_key_in_the_file(tmp_path: Path) -> None:
    text = """// my config
{
  agents: {
    defaults: { model: 42 },
  },
  tools: {
    profile: "minimall",
  },
}
"""
    decoded = decode_config_text(text, source="c.json5")
    report = validate_config(decoded.raw, source="c.json5", scan=decoded.scan)
    lines = {p.key_path: p.line for p in report.errors}
    assert lines == {"agents.defaults.model": 4, "tools.profile": 7}
    path = tmp_path / "c.json5"
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        load_config(path, env={})
    assert f"{path}: 2 problems" in str(caught.value)
    assert "line 7 at tools.profile" in str(caught.value)


def test_unknown_keys_warn_with_the_closest_known_key() -> None:
    report = validate_config({"agents": {"defaults": {"modle": "a/b"}}})
    [warning] = report.warnings
    assert (warning.key_path, warning.code, warning.hint) == (
        "agents.defaults.modle", "unknown-key", "did you mean 'model'?")


def test_a_misspelled_tool_name_in_deny_warns_because_it_denies_nothing() -> None:
    report = validate_config({"tools": {"deny": ["exce", "web_fetch", "my_plugin_tool"]}})
    assert report.config is not None
    found = {w.key_path: w for w in report.warnings}
    assert set(found) == {"tools.deny[0]", "tools.deny[2]"}
    assert found["tools.deny[0]"].hint == "did you mean 'exec'?"


def test_the_top_level_must_be_an_object() -> None:
    [problem] = validate_config([1, 2]).errors
    assert problem.message == "expected an object at the top level, got a list"
