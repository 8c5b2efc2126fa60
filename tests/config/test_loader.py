from __future__ import annotations

from pathlib import Path

import pytest

from clawharness.config.loader import load_config, parse_config
from clawharness.errors import ConfigError


def write(tmp_path: Path, text: str, name: str = "config.json5") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_json5_config_with_comments_and_trailing_commas_loads(tmp_path: Path) -> None:
    path = write(tmp_path, """{
      // the seed's shape, as it is
      models: { providers: { openai: { agentRuntime: { id: "codex" }, models: [{ id: "gpt-x" },] } } },
      agents: { defaults: { model: "openai/gpt-x", models: { "openai/gpt-x": { agentRuntime: { id: "openclaw" } } } } },
    }""")
    loaded = load_config(path, env={})
    assert loaded.path == path
    assert loaded.config.agents.defaults.model is not None
    assert loaded.config.agents.defaults.model.primary == "openai/gpt-x"
    assert loaded.config.models.providers["openai"].agent_runtime is not None
    assert loaded.config.models.providers["openai"].agent_runtime.id == "codex"
    assert loaded.warnings == []


def test_model_setting_accepts_primary_and_fallbacks_object() -> None:
    config, _ = parse_config({"agents": {"defaults": {"model": {"primary": "a/b", "fallbacks": ["c/d"]}}}})
    assert config.agents.defaults.model is not None
    assert config.agents.defaults.model.fallbacks == ["c/d"]


def test_malformed_json5_names_the_file(tmp_path: Path) -> None:
    path = write(tmp_path, "{ models: { ")
    with pytest.raises(ConfigError) as info:
        load_config(path, env={})
    assert str(path) in str(info.value)
    assert "malformed JSON5" in str(info.value)


def test_wrong_type_names_file_key_path_and_expectation(tmp_path: Path) -> None:
    path = write(tmp_path, '{ tools: { exec: { security: "sometimes" } } }')
    with pytest.raises(ConfigError) as info:
        load_config(path, env={})
    message = str(info.value)
    assert str(path) in message
    assert "tools.exec.security" in message
    assert "'deny', 'allowlist' or 'full'" in message


def test_wrong_type_in_a_list_reports_the_index(tmp_path: Path) -> None:
    path = write(tmp_path, '{ models: { providers: { p: { models: [ { id: "ok" }, { id: 5 } ] } } } }')
    with pytest.raises(ConfigError) as info:
        load_config(path, env={})
    assert "models.providers.p.models[1].id" in str(info.value)


def test_unknown_keys_warn_but_load(tmp_path: Path) -> None:
    path = write(tmp_path, '{ agents: { defaults: { modle: "x" } }, surprise: 1 }')
    loaded = load_config(path, env={})
    assert any("agents.defaults.modle" in w for w in loaded.warnings)
    assert any("'surprise'" in w for w in loaded.warnings)


def test_top_level_must_be_an_object(tmp_path: Path) -> None:
    path = write(tmp_path, "[1, 2]")
    with pytest.raises(ConfigError, match="expected an object"):
        load_config(path, env={})


def test_location_order_explicit_then_env_then_state_dir(tmp_path: Path) -> None:
    state = tmp_path / "state"
    state.mkdir()
    in_state = write(state, "{}")
    from_env = write(tmp_path, "{}", "env.json5")
    explicit = write(tmp_path, "{}", "explicit.json5")
    env = {"CLAWHARNESS_STATE_DIR": str(state), "CLAWHARNESS_CONFIG": str(from_env)}
    assert load_config(explicit, env=env).path == explicit
    assert load_config(None, env=env).path == from_env
    assert load_config(None, env={"CLAWHARNESS_STATE_DIR": str(state)}).path == in_state


def test_no_config_anywhere_is_the_empty_default(tmp_path: Path) -> None:
    loaded = load_config(None, env={"CLAWHARNESS_STATE_DIR": str(tmp_path / "none")})
    assert loaded.path is None
    assert loaded.config.models.providers == {}


def test_missing_explicit_file_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "missing.json5", env={})
