"""The second hour: a default or agent model whose provider is not configured, and a
plugin configured but denied, are reported by `config validate`, `status` and `doctor`
(not only by a failing turn); `config set` says so when it writes one; a running
gateway's status does not warn that serve "will refuse to start"."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from clawharness.cli.main import app
from clawharness.host import Host

CONFIG = """{
  models: { providers: { local: { baseUrl: "http://127.0.0.1:9/v1", api: "openai-responses",
                                  models: [{ id: "m" }] } } },
  agents: {
    defaults: { model: "lcoal/m" },
    entries: {
      main: { default: true },
      helper: { model: { primary: "local/m", fallbacks: ["ghost/x", "acp/codex"] } },
    },
  },
  plugins: { entries: { codex: { enabled: true } }, deny: ["codex"] },
}
"""


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAWHARNESS_STATE_DIR", str(tmp_path / "state"))
    for name in ("CLAWHARNESS_CONFIG", "OPENCLAW_GATEWAY_TOKEN", "CLAWHARNESS_GATEWAY_TOKEN"):
        monkeypatch.delenv(name, raising=False)


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def config(tmp_path: Path, text: str = CONFIG) -> Path:
    path = tmp_path / "config.json5"
    path.write_text(text)
    return path


def test_config_validate_names_the_model_its_line_and_the_likely_provider(
        tmp_path: Path) -> None:
    result = invoke("config", "validate", "-c", str(config(tmp_path)), "--json")
    assert result.exit_code == 0  # reported; the config loads (other agents' turns run)
    body = json.loads(result.stdout)
    primary, warning = [p for p in body["warnings"] if p["code"] == "unknown-model-provider"]
    assert primary["keyPath"] == "agents.defaults.model" and primary["line"] == 5
    assert '"lcoal/m" names provider "lcoal"' in primary["message"]
    assert "every turn of this agent fails" in primary["message"]
    assert primary["hint"] == 'did you mean "local/m"?'
    assert warning["keyPath"] == "agents.entries.helper.model.fallbacks[0]"
    assert "ghost/x" in warning["message"] and "never tried" in warning["message"]
    # acp/... is provided by a bundled plugin: not reported


def test_a_config_whose_models_are_all_configured_stays_valid(tmp_path: Path) -> None:
    good = CONFIG.replace('"lcoal/m"', '"local/m"').replace('"ghost/x", ', "")
    result = invoke("config", "validate", "-c", str(config(tmp_path, good)), "--json")
    assert result.exit_code == 0, result.stdout
    assert not [p for p in json.loads(result.stdout)["warnings"]
                if p["code"] == "unknown-model-provider"]


def test_status_and_doctor_report_the_model_and_the_denied_plugin(tmp_path: Path) -> None:
    path = str(config(tmp_path))
    status = json.loads(invoke("status", "-c", path, "--json").stdout)
    main = next(a for a in status["agents"] if a["agentId"] == "main")
    assert "unknown provider 'lcoal'" in main["models"][0]["error"]
    warnings = "\n".join(status["warnings"])
    assert 'agents.defaults.model: model ref "lcoal/m" names provider "lcoal"' in warnings
    assert 'plugin "codex" is configured (plugins.entries.codex) but not loaded: ' \
           "plugins.deny lists it" in warnings

    doctor = invoke("doctor", "-c", path, "--json")
    findings = {(f["code"], f["path"]) for f in json.loads(doctor.stdout)["findings"]}
    assert ("unknown-model-provider", "agents.defaults.model") in findings
    assert ("unknown-model-provider", "agents.entries.helper.model.fallbacks[0]") in findings
    assert ("plugin-denied", "plugins.entries.codex") in findings


def test_an_allow_list_that_leaves_out_a_configured_plugin_is_reported(tmp_path: Path) -> None:
    path = config(tmp_path, '{ plugins: { allow: ["acp"], entries: { echo: { config: {} } } } }')
    doctor = json.loads(invoke("doctor", "-c", str(path), "--json").stdout)
    [denied] = [f for f in doctor["findings"] if f["code"] == "plugin-denied"]
    assert 'add "echo" to plugins.allow' in denied["message"]


def test_config_set_writes_the_model_and_warns_about_its_provider(tmp_path: Path) -> None:
    path = config(tmp_path, '{ models: { providers: { local: { baseUrl: "http://x/v1", '
                            'api: "openai-responses", models: [{ id: "m" }] } } } }')
    result = invoke("config", "set", "agents.defaults.model", "nope/m", "-c", str(path))
    said = result.output
    assert result.exit_code == 0, said
    assert 'model ref "nope/m" names provider "nope", which is not configured' in said
    assert "use a configured model: local/m" in said
    assert "agents: { defaults: { model: 'nope/m' }" in path.read_text() or \
        'model: "nope/m"' in path.read_text()
    as_json = invoke("config", "set", "agents.defaults.model", "nope/n", "-c", str(path),
                     "--json")
    [warning] = json.loads(as_json.stdout)["warnings"]
    assert warning["code"] == "unknown-model-provider" and warning["severity"] == "warning"
    fine = invoke("config", "set", "agents.defaults.model", "local/m", "-c", str(path), "--json")
    assert json.loads(fine.stdout)["warnings"] == []


async def test_a_serving_host_does_not_warn_that_serve_will_refuse_to_start(
        tmp_path: Path) -> None:
    path = config(tmp_path, '{ gateway: { auth: { mode: "token" } } }')
    env = {"CLAWHARNESS_STATE_DIR": str(tmp_path / "state")}
    async with Host.from_config(path, env=env) as host:
        assert any("will refuse to start" in w for w in (await host.status()).warnings)
    async with Host.from_config(path, env=env, serving=True) as host:
        assert not any("will refuse to start" in w for w in (await host.status()).warnings)
