"""`config validate|get|set`, secrets in errors, fail-closed tool profiles, doctor --fix."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import json5
import pytest
from typer.testing import CliRunner

from clawharness.cli.main import app
from clawharness.testing import ScriptedModelServer

SECRET = "sk-proj-Zq8vN3xK7bT2mW9pL4rJ6hY1cF5dG0sA"


@pytest.fixture(autouse=True)
def isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAWHARNESS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("CLAWHARNESS_CONFIG", raising=False)
    for name in ("OPENCLAW_GATEWAY_TOKEN", "CLAWHARNESS_GATEWAY_TOKEN"):
        monkeypatch.delenv(name, raising=False)


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def everything(result: Any) -> str:
    return f"{result.stdout}\n{result.stderr}"


def write(tmp_path: Path, text: str, name: str = "config.json5") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


BAD = """// three problems and a warning
{
  agents: { defaults: { model: 42, modle: "x" } },
  tools: { profile: "minimall" },
  store: { url: "mysql://x" },
}
"""


def test_validate_lists_every_problem_with_key_path_line_and_hint(tmp_path: Path) -> None:
    path = write(tmp_path, BAD)
    result = invoke("config", "validate", "--config", str(path), "--json")
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["ok"] is False and report["path"] == str(path)
    rows = {p["keyPath"]: p for p in report["problems"]}
    assert list(rows) == ["agents.defaults.model", "tools.profile", "store.url"]
    assert [rows[k]["line"] for k in rows] == [3, 4, 5]
    assert all(p["severity"] == "error" and p["message"] for p in report["problems"])
    assert rows["tools.profile"]["hint"].startswith("did you mean 'minimal'?")
    assert "ModelRefSetting" not in result.stdout and "more problem" not in result.stdout
    # the bad model hides the unknown key's warning: warnings come with a config that loads
    text = invoke("config", "validate", "--config", str(path))
    assert text.exit_code == 1
    for key in rows:
        assert key in text.stderr
    assert "invalid" in text.stderr and "3 errors" in text.stderr


def test_validate_of_a_valid_file_reports_warnings_and_exit_zero(tmp_path: Path) -> None:
    path = write(tmp_path, '{ agents: { defaults: { model: "openai/gpt-x", modle: 1 } } }')
    result = invoke("config", "validate", "--config", str(path), "--json")
    assert result.exit_code == 0
    report = json.loads(result.stdout)
    assert report["ok"] is True and report["problems"] == []
    [warning] = report["warnings"]
    assert warning["keyPath"] == "agents.defaults.modle" and warning["severity"] == "warning"


def test_validate_of_an_unparsable_file_uses_the_cli_error_shape(tmp_path: Path) -> None:
    path = write(tmp_path, "{ agents: ")
    result = invoke("config", "validate", "--config", str(path), "--json")
    assert result.exit_code == 1
    error = json.loads(result.stdout)["error"]
    assert error["type"] == "config_invalid" and "malformed JSON5" in error["message"]
    deep = write(tmp_path, "[" * 5000, "deep.json5")
    result = invoke("config", "validate", "--config", str(deep))
    assert result.exit_code == 1 and "the limit is 64" in result.stderr
    assert "Traceback" not in everything(result)


SECRET_CONFIGS = [
    f'{{ models: {{ providers: {{ p: {{ apiKey: ["{SECRET}"] }} }} }} }}',
    f'{{ models: {{ providers: {{ p: {{ apiKey: {{ value: "{SECRET}" }} }} }} }} }}',
    f'{{ models: {{ providers: {{ p: {{ headers: "Bearer {SECRET}" }} }} }} }}',
    f'{{ models: {{ providers: {{ p: {{ models: [{{ id: "m", headers: ["{SECRET}"] }}] }} }} }} }}',
    f'{{ gateway: {{ auth: {{ mode: "token", token: ["{SECRET}"] }} }} }}',
    f'{{ auth: {{ profiles: {{ openai: "{SECRET}" }} }} }}',
    f'{{ store: {{ url: "mysql://admin:{SECRET}@db.example.com/app" }} }}',
]


@pytest.mark.parametrize("text", SECRET_CONFIGS)
def test_a_secret_in_a_bad_value_is_printed_by_no_command(text: str, tmp_path: Path) -> None:
    path = write(tmp_path, text)
    runs = [
        invoke("config", "validate", "--config", str(path)),
        invoke("config", "validate", "--config", str(path), "--json"),
        invoke("status", "--config", str(path), "--json"),
        invoke("status", "--config", str(path)),
        invoke("agent", "--config", str(path), "-m", "hi"),
        invoke("agent", "--config", str(path), "-m", "hi", "--json"),
        invoke("doctor", "--config", str(path), "--json"),
    ]
    for result in runs:
        assert result.exit_code == 1, everything(result)
        assert SECRET not in everything(result)
        assert SECRET[8:24] not in everything(result)
    report = json.loads(runs[1].stdout)
    [problem] = report["problems"]
    assert "not shown" in problem["message"] or "***@" in problem["message"]


def test_config_get_reads_the_file_then_the_defaults_and_redacts_secrets(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, json.dumps({
        "models": {"providers": {"openai": {"apiKey": SECRET, "models": [{"id": "gpt-x"}]}}},
        "agents": {"defaults": {"models": {"openai/gpt-x": {"alias": "x"}}}}}))
    found = invoke("config", "get", "models.providers.openai.models[0].id", "--config", str(path))
    assert found.exit_code == 0 and found.stdout.strip() == "gpt-x"
    quoted = invoke("config", "get", 'agents.defaults.models["openai/gpt-x"].alias', "-c",
                    str(path), "--json")
    assert json.loads(quoted.stdout) == {
        "keyPath": 'agents.defaults.models["openai/gpt-x"].alias', "value": "x",
        "source": "file"}
    default = invoke("config", "get", "gateway.port", "-c", str(path), "--json")
    assert json.loads(default.stdout)["value"] == 18789
    assert json.loads(default.stdout)["source"] == "default"
    provider = invoke("config", "get", "models.providers.openai", "-c", str(path), "--json")
    assert json.loads(provider.stdout)["value"]["apiKey"] == "<redacted>"
    assert SECRET not in everything(provider)
    revealed = invoke("config", "get", "models.providers.openai.apiKey", "-c", str(path),
                      "--reveal")
    assert revealed.stdout.strip() == SECRET
    missing = invoke("config", "get", "gateway.prot", "-c", str(path), "--json")
    assert missing.exit_code == 1
    assert "gateway.port" in json.loads(missing.stdout)["error"]["message"]


def test_config_set_parses_json5_writes_a_backup_and_validates_first(tmp_path: Path) -> None:
    original = "// notes\n{ gateway: { port: 18789 } }\n"
    path = write(tmp_path, original)
    result = invoke("config", "set", "gateway.port", "8080", "-c", str(path), "--json")
    assert result.exit_code == 0, everything(result)
    outcome = json.loads(result.stdout)
    assert outcome["written"] is True and outcome["value"] == 8080
    assert Path(outcome["backup"]).read_text() == original
    assert path.read_text() == "// notes\n{ gateway: { port: 8080 } }\n"  # edited in place
    assert invoke("config", "set", "agents.defaults.model", "openai/gpt-5", "-c",
                  str(path)).exit_code == 0
    assert invoke("config", "set", "tools.deny", '["exec", "group:web"]', "-c",
                  str(path)).exit_code == 0
    assert invoke("config", "set", 'agents.defaults.models["openai/gpt-5"].agentRuntime',
                  '{id: "openclaw"}', "-c", str(path)).exit_code == 0
    written = json5.loads(path.read_text())
    assert path.read_text().startswith("// notes\n{ gateway: { port: 8080 }, agents: {")
    assert written["agents"]["defaults"]["model"] == "openai/gpt-5"
    assert written["tools"]["deny"] == ["exec", "group:web"]
    assert written["agents"]["defaults"]["models"] == {
        "openai/gpt-5": {"agentRuntime": {"id": "openclaw"}}}
    unset = invoke("config", "set", "gateway.port", "--unset", "-c", str(path))
    assert unset.exit_code == 0 and "gateway" in json5.loads(path.read_text())
    assert "port" not in json5.loads(path.read_text())["gateway"]


def test_config_set_refuses_an_invalid_value_and_changes_nothing(tmp_path: Path) -> None:
    original = "{ tools: { profile: 'minimal' } }"
    path = write(tmp_path, original)
    before = sorted(p.name for p in tmp_path.iterdir())
    result = invoke("config", "set", "tools.profile", "minimall", "-c", str(path), "--json")
    assert result.exit_code == 1
    refused = json.loads(result.stdout)
    assert refused["ok"] is False and refused["written"] is False
    assert refused["problems"][0]["keyPath"] == "tools.profile"
    text = invoke("config", "set", "gateway.port", "99999", "-c", str(path))
    assert text.exit_code == 1 and "was not changed" in text.stderr and "gateway.port" in text.stderr
    through = invoke("config", "set", "tools.profile.x", "1", "-c", str(path))
    assert through.exit_code == 1 and "not an object" in through.stderr
    assert path.read_text() == original
    assert sorted(p.name for p in tmp_path.iterdir()) == before


def test_config_set_creates_the_config_in_the_state_dir_when_there_is_none(
    tmp_path: Path,
) -> None:
    result = invoke("config", "set", "tools.profile", "coding")
    assert result.exit_code == 0, everything(result)
    created = tmp_path / "state" / "config.json5"
    assert json.loads(created.read_text()) == {"tools": {"profile": "coding"}}


def test_config_set_never_echoes_a_secret_it_writes(tmp_path: Path) -> None:
    path = write(tmp_path, "{}")
    result = invoke("config", "set", "models.providers.openai.apiKey", SECRET, "-c", str(path))
    assert result.exit_code == 0 and SECRET not in everything(result)
    assert json.loads(path.read_text())["models"]["providers"]["openai"]["apiKey"] == SECRET


def test_doctor_fix_of_a_legacy_codex_ref_enables_the_bundled_plugin_and_says_so(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, '// legacy\n{ agents: { defaults: { model: "codex/gpt-5.6-sol" } } }')
    before = invoke("doctor", "--config", str(path), "--json")
    [finding] = json.loads(before.stdout)["findings"]
    assert "plugins.entries.codex.enabled: true" in finding["message"]
    fixed = invoke("doctor", "--config", str(path), "--fix", "--json")
    data = json.loads(fixed.stdout)
    assert fixed.exit_code == 0, everything(fixed)
    assert data["fixed"] is True and data["findings"] == []
    assert [f["code"] for f in data["applied"]] == ["legacy-model-ref"]
    written = json5.loads(path.read_text())
    assert path.read_text().startswith("// legacy\n{ agents: { defaults: {")
    assert written["plugins"] == {"entries": {"codex": {"enabled": True}}}
    assert written["agents"]["defaults"]["models"] == {
        "openai/gpt-5.6-sol": {"agentRuntime": {"id": "codex"}}}


def test_an_unregistered_runtime_names_the_key_that_enables_its_plugin(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps({"models": {"providers": {
        "openai": {"agentRuntime": {"id": "codex"}}}}}))
    data = json.loads(invoke("doctor", "--config", str(path), "--json").stdout)
    [finding] = data["findings"]
    assert finding["code"] == "unknown-runtime"
    assert "set plugins.entries.codex.enabled: true" in finding["message"]
    denied = write(tmp_path, json.dumps({"plugins": {"deny": ["codex"]}, "models": {"providers": {
        "openai": {"agentRuntime": {"id": "codex"}}}}}), "denied.json")
    [finding] = json.loads(invoke("doctor", "--config", str(denied), "--json").stdout)["findings"]
    assert 'plugins.deny lists "codex"' in finding["message"]


@pytest.fixture
def exec_server() -> Iterator[ScriptedModelServer]:
    script = {"responses": [
        {"match": "run it", "tool_calls": [{"name": "exec", "arguments": {"command": "echo hi"}}]},
        {"text": "done"},
    ], "exhausted": "text"}
    server = ScriptedModelServer(script)
    with server.run_in_thread():
        yield server


def agent_config(tmp_path: Path, server: ScriptedModelServer, profile: str) -> Path:
    return write(tmp_path, json.dumps({
        "models": {"providers": {"scripted": {"baseUrl": server.base_url_openai,
                                              "api": "openai-responses", "apiKey": "k",
                                              "models": [{"id": "m"}]}}},
        "agents": {"defaults": {"model": "scripted/m", "workspace": str(tmp_path / "ws")}},
        "store": {"url": str(tmp_path / "state.db")},
        "tools": {"profile": profile},
    }), f"{profile}.json")


def test_exec_is_refused_under_minimal_and_a_misspelled_profile_refuses_to_start(
    tmp_path: Path, exec_server: ScriptedModelServer,
) -> None:
    minimal = agent_config(tmp_path, exec_server, "minimal")
    ran = invoke("agent", "--config", str(minimal), "--json", "-m", "run it")
    assert ran.exit_code == 0, everything(ran)
    [call] = json.loads(ran.stdout.strip().splitlines()[-1])["toolCalls"]
    assert call["name"] == "exec" and call["ok"] is False
    assert '"minimal"' in call["error"] and "tools.profile" in call["error"]
    misspelled = agent_config(tmp_path, exec_server, "minimall")
    refused = invoke("agent", "--config", str(misspelled), "--json", "-m", "run it")
    assert refused.exit_code == 1
    error = json.loads(refused.stdout)["error"]
    assert error["type"] == "config_invalid" and "tools.profile" in error["message"]
    assert "'minimal'" in error["message"]
