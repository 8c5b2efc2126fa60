"""`clawharness status` and `clawharness doctor [--fix]` through the real CLI (CliRunner)."""

from __future__ import annotations

import json
from pathlib import Path

import json5
import pytest
import typer
from rich.console import Console
from typer.testing import CliRunner

from clawharness.cli import doctor_cmd, status_cmd
from clawharness.config.loader import load_config
from clawharness.plugins import loader as plugin_loader

LEGACY_CONFIG = """// written by hand
{
  agents: {
    defaults: {
      model: { primary: "codex/gpt-5.6-sol", fallbacks: ["anthropic/claude-opus-5"] },
      agentRuntime: { id: "codex" },
    },
  },
}
"""


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> typer.Typer:
    monkeypatch.setenv("CLAWHARNESS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("CLAWHARNESS_CONFIG", raising=False)
    for name in ("OPENCLAW_BUILD_PRIVATE_QA", "CLAWHARNESS_BUILD_PRIVATE_QA"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(plugin_loader, "BUNDLED_PLUGINS", ())
    # a wide console so table cells are not wrapped mid-word
    monkeypatch.setattr(status_cmd, "console", Console(width=200))
    monkeypatch.setattr(doctor_cmd, "console", Console(width=200))
    application = typer.Typer()
    status_cmd.register(application)
    doctor_cmd.register(application)
    return application


def write_config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.json5"
    path.write_text(text)
    return path


def test_status_json(app: typer.Typer, tmp_path: Path) -> None:
    path = write_config(tmp_path, '{agents: {defaults: {model: "anthropic/claude-opus-5"}}}')
    result = CliRunner().invoke(app, ["status", "--config", str(path), "--json",
                                      "--session", "agent:main:chat"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout.strip().splitlines()[-1])
    assert data["version"] == 1
    [agent] = data["agents"]
    assert agent["agentId"] == "main" and agent["default"] is True
    [model] = agent["models"]
    assert (model["runtime"], model["reason"]) == ("openclaw", "auto_openclaw")
    assert model["policy"] == {"runtime": "auto", "source": "implicit", "scope": None,
                               "forcedByEnvironment": False}
    assert data["sessions"][0]["sessionKey"] == "agent:main:chat"


def test_status_table_for_people(app: typer.Typer, tmp_path: Path) -> None:
    path = write_config(tmp_path, '{agents: {defaults: {model: "anthropic/claude-opus-5"}}}')
    result = CliRunner().invoke(app, ["status", "--config", str(path)])
    assert result.exit_code == 0, result.output
    assert "OpenClaw Default" in result.stdout and "anthropic/claude-opus-5" in result.stdout


def test_status_missing_config_is_a_clean_error(app: typer.Typer, tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["status", "--config", str(tmp_path / "nope.json"),
                                      "--json"])
    assert result.exit_code == 1
    assert json.loads(result.stdout)["error"]["type"] == "config_invalid"


def test_doctor_reports_without_changing_anything(app: typer.Typer, tmp_path: Path) -> None:
    path = write_config(tmp_path, LEGACY_CONFIG)
    result = CliRunner().invoke(app, ["doctor", "--config", str(path), "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["fixed"] is False and data["ok"] is True
    assert {f["code"] for f in data["findings"]} == {"legacy-model-ref", "legacy-agent-runtime"}
    assert path.read_text() == LEGACY_CONFIG


def test_doctor_fix_writes_backup_and_a_config_that_validates(
    app: typer.Typer, tmp_path: Path,
) -> None:
    path = write_config(tmp_path, LEGACY_CONFIG)
    result = CliRunner().invoke(app, ["doctor", "--config", str(path), "--fix", "--json"])
    data = json.loads(result.stdout)
    assert data["fixed"] is True
    backup = Path(data["backup"])
    assert backup.parent == tmp_path and backup.name.startswith("config.json5.bak-")
    assert backup.read_text() == LEGACY_CONFIG
    written = json5.loads(path.read_text())
    assert written["agents"]["defaults"]["model"]["primary"] == "openai/gpt-5.6-sol"
    assert "agentRuntime" not in written["agents"]["defaults"]
    # edited in place: the comment, unquoted keys and trailing commas stay
    text = path.read_text()
    assert text.startswith("// written by hand\n{\n  agents: {\n    defaults: {\n")
    assert 'fallbacks: ["anthropic/claude-opus-5"] },\n' in text and "    },\n  },\n}\n" in text
    loaded = load_config(path)
    assert loaded.config.agents.defaults.model is not None
    # what remains: the codex runtime the legacy ref implied is not installed here
    assert [f["code"] for f in data["findings"]] == ["unknown-runtime"]
    assert result.exit_code == 1
    again = CliRunner().invoke(app, ["doctor", "--config", str(path), "--json"])
    assert {f["code"] for f in json.loads(again.stdout)["findings"]} == {"unknown-runtime"}


def test_doctor_rich_output(app: typer.Typer, tmp_path: Path) -> None:
    path = write_config(tmp_path, LEGACY_CONFIG)
    result = CliRunner().invoke(app, ["doctor", "--config", str(path)])
    assert result.exit_code == 0
    assert "legacy-model-ref" in result.stdout and "--fix" in result.stdout
    clean = write_config(tmp_path, "{}")
    result = CliRunner().invoke(app, ["doctor", "--config", str(clean)])
    assert "no problems found" in result.stdout


def test_doctor_reports_a_corrupt_store_and_fix_leaves_it_alone(
    app: typer.Typer, tmp_path: Path,
) -> None:
    # issue 31: a corrupt SQLite store gave "no problems found"
    store = tmp_path / "state" / "clawharness.db"
    store.parent.mkdir()
    store.write_bytes(b"SQLite format 3\x00" + bytes(range(256)) * 64)
    before = store.read_bytes()
    path = write_config(tmp_path, LEGACY_CONFIG)
    result = CliRunner().invoke(app, ["doctor", "--config", str(path)])
    assert result.exit_code == 1
    assert "store-corrupt" in result.stdout and "no problems" not in result.stdout
    fixed = CliRunner().invoke(app, ["doctor", "--config", str(path), "--fix", "--json"])
    data = json.loads(fixed.stdout)
    assert data["fixed"] is True  # the config's legacy refs, not the store
    [finding] = [f for f in data["findings"] if f["code"] == "store-corrupt"]
    assert finding["fixable"] is False and str(store) in finding["message"]
    assert store.read_bytes() == before
    assert sorted(p.name for p in store.parent.iterdir()) == ["clawharness.db"]


def test_status_shows_each_agents_thinking_level(app: typer.Typer, tmp_path: Path) -> None:
    path = write_config(tmp_path, '{agents: {defaults: {model: "anthropic/claude-opus-5", '
                                  'thinkingDefault: "low"}, entries: {main: {default: true}, '
                                  'deep: {thinkingDefault: "high"}}}}')
    result = CliRunner().invoke(app, ["status", "--config", str(path), "--json",
                                      "--session", "agent:deep:x"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout.strip().splitlines()[-1])
    assert [(a["agentId"], a["thinking"]) for a in data["agents"]] == [
        ("deep", {"level": "high", "source": "agent"})]
    assert data["sessions"][0]["thinking"] == {"level": "high", "source": "agent"}
    table = CliRunner().invoke(app, ["status", "--config", str(path)])
    assert "Thinking: main low (default), deep high (agent)" in table.stdout
