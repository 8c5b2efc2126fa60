"""The plugin config, the process environment, config.toml, and the plugin entry."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clawharness.harness.registry import HarnessRegistry
from clawharness.harnesses.codex.config import (
    AppServerConfig,
    build_env,
    parse_app_server_config,
    render_config_toml,
)
from clawharness.harnesses.codex.errors import CodexConfigError
from clawharness.harnesses.codex.plugin import entry
from clawharness.harnesses.codex.protocol import parse_server_version, parse_version
from clawharness.harnesses.codex.tomlw import dumps, merge
from clawharness.plugins.entry import PluginApi


def test_the_plugin_config_is_read_from_app_server() -> None:
    config = parse_app_server_config({"appServer": {
        "command": "/opt/codex", "env": {"K": "v", "N": 3, "GONE": None},
        "config": {"model_provider": "mock"}, "minVersion": "0.150.0", "maxProcesses": 2,
        "idleTimeoutSeconds": 5, "approvalPolicy": "on-failure", "sandbox": "read-only"}})
    assert config.command == "/opt/codex"
    assert dict(config.env) == {"K": "v", "N": "3", "GONE": None}
    assert config.min_version == "0.150.0" and config.max_processes == 2
    assert config.idle_timeout_seconds == 5.0
    assert config.approval_policy == "on-request"  # on-failure maps to on-request
    assert config.sandbox == "read-only"


def test_defaults_when_the_block_is_absent() -> None:
    config = parse_app_server_config({})
    assert config == AppServerConfig(env=config.env, config=config.config)
    assert config.command is None and config.args == ("app-server",)


@pytest.mark.parametrize(("block", "key"), [
    ({"maxProcesses": 0}, "maxProcesses"),
    ({"maxProcesses": 1.5}, "maxProcesses"),
    ({"maxProcesses": True}, "maxProcesses"),
    ({"minVersion": "latest"}, "minVersion"),
    ({"env": {"A": ["x"]}}, "env.A"),
    ({"args": "app-server"}, "args"),
    ({"sandbox": "yolo"}, "sandbox"),
    ({"approvalPolicy": "sometimes"}, "approvalPolicy"),
    ({"config": {"bad": object()}}, "config"),
    ({"command": ""}, "command"),
])
def test_invalid_values_name_their_key(block: dict[str, Any], key: str) -> None:
    with pytest.raises(CodexConfigError, match=f"appServer.{key}"):
        parse_app_server_config({"appServer": block})


def test_a_bad_env_value_is_named_by_kind_never_shown() -> None:
    secret = "sk-proj-Zq8vN3xK7bT2mW9pL4rJ6hY1cF5dG0sA"
    with pytest.raises(CodexConfigError) as caught:
        parse_app_server_config({"appServer": {"env": {"OPENAI_API_KEY": [secret]}}})
    assert "env.OPENAI_API_KEY" in str(caught.value) and "a list" in str(caught.value)
    assert secret not in str(caught.value)


def test_the_process_environment_is_minimal(tmp_path: Path) -> None:
    host = {"PATH": "/usr/bin", "HOME": "/root", "SECRET_TOKEN": "s3cret", "LANG": "C.UTF-8",
            "OPENAI_API_KEY": "sk-host", "AWS_SECRET_ACCESS_KEY": "x"}
    config = AppServerConfig(env={"MOCK_OPENAI_API_KEY": "sk-mock", "LANG": None})
    env = build_env(config, str(tmp_path / "home"), "/usr/bin/codex", host_env=host)
    assert env == {"PATH": "/usr/bin", "OPENAI_API_KEY": "sk-host",
                   "CODEX_HOME": str(tmp_path / "home"), "HOME": str(tmp_path / "home"),
                   "MOCK_OPENAI_API_KEY": "sk-mock"}


def test_the_npm_helper_directory_goes_on_path(tmp_path: Path) -> None:
    vendor = tmp_path / "vendor"
    (vendor / "bin").mkdir(parents=True)
    (vendor / "codex-path").mkdir()
    env = build_env(AppServerConfig(), "/h", str(vendor / "bin" / "codex"),
                    host_env={"PATH": "/usr/bin"})
    assert env["PATH"] == f"{vendor / 'codex-path'}:/usr/bin"


def test_config_toml_merges_the_operator_table_over_the_base() -> None:
    config = AppServerConfig(config={
        "model": "gpt-5.5", "features": {"plugins": True, "goals": False},
        "model_providers": {"mock": {"base_url": "http://127.0.0.1:1/v1", "retries": 0}},
        "profiles": [{"name": "a"}, {"name": "b"}]})
    parsed = tomllib.loads(render_config_toml(config))
    assert parsed["model"] == "gpt-5.5"
    assert parsed["features"] == {"plugins": True, "apps": False, "remote_plugin": False,
                                  "plugin_sharing": False, "tool_suggest": False,
                                  "goals": False}
    assert parsed["model_providers"]["mock"]["retries"] == 0
    assert parsed["analytics"] == {"enabled": False}
    assert parsed["profiles"] == [{"name": "a"}, {"name": "b"}]


_keys = st.text(min_size=1, max_size=8)
_scalars = st.one_of(st.booleans(), st.integers(-10**6, 10**6), st.text(max_size=20),
                     st.floats(allow_nan=False, allow_infinity=False))
_tables = st.recursive(st.dictionaries(_keys, _scalars, max_size=4),
                       lambda inner: st.dictionaries(_keys, st.one_of(_scalars, inner),
                                                     max_size=4), max_leaves=12)


#: generation time is not what these check: a shared 2-core CI machine can stall a draw
#: past Hypothesis's timing health check and deadline
CI_SAFE = settings(deadline=None, suppress_health_check=[HealthCheck.too_slow])


@CI_SAFE
@given(_tables)
def test_toml_round_trips_through_tomllib(document: dict[str, Any]) -> None:
    assert tomllib.loads(dumps(document)) == document


def test_merge_is_deep_and_the_override_wins() -> None:
    assert merge({"a": {"b": 1, "c": 2}, "d": 1}, {"a": {"b": 3}, "d": {"x": 1}}) == {
        "a": {"b": 3, "c": 2}, "d": {"x": 1}}


@pytest.mark.parametrize(("agent", "version"), [
    ("codex_cli_rs/0.169.0 (Debian 12.0.0; x86_64) unknown (probe; 0.1)", "0.169.0"),
    ("clawharness/0.170.0-alpha.2 (Mac OS 15; arm64)", "0.170.0-alpha.2"),
    ("no-slash-here", None),
    ("trailing/", None),
])
def test_the_server_version_is_the_token_after_the_first_slash(agent: str,
                                                               version: str | None) -> None:
    assert parse_server_version(agent) == version


def test_versions_order_by_semver() -> None:
    v = parse_version
    assert v("0.170.0-alpha.2") < v("0.170.0") < v("0.170.1")  # type: ignore[operator]
    assert v("0.149.0") > v("0.99.9")  # type: ignore[operator]
    assert v("0.169") is None and v("x.y.z") is None


def test_the_plugin_entry_registers_the_harness(tmp_path: Path) -> None:
    registry = HarnessRegistry()
    api = PluginApi(plugin_id="codex", registry=registry,
                    config={"appServer": {"maxProcesses": 3}}, state_dir=tmp_path)
    assert entry.id == "codex" and entry.enabled_by_default is False
    entry.register(api)
    assert api.harness_ids == ("codex",)
    registered = registry.get("codex")
    assert registered is not None and registered.owner_plugin_id == "codex"
    assert registered.harness.label == "OpenAI Codex"


def test_the_plugin_entry_refuses_a_bad_config(tmp_path: Path) -> None:
    api = PluginApi(plugin_id="codex", registry=HarnessRegistry(),
                    config={"appServer": {"sandbox": "nope"}}, state_dir=tmp_path)
    with pytest.raises(CodexConfigError):
        entry.register(api)


def test_a_key_ending_in_a_newline_is_quoted() -> None:
    assert tomllib.loads(dumps({"0\n": False, "a": {"b\n": 1}})) == {"0\n": False, "a": {"b\n": 1}}
