"""`doctor` and `status` say when a plugin failed to load, and when a provider declares
a runtime nobody registers (its routes would fall back to the built-in runtime)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from rich.console import Console
from typer.testing import CliRunner

from clawharness.cli import doctor_cmd, status_cmd
from clawharness.plugins import loader as plugin_loader

GHOST_PLUGIN = '''
from clawharness.plugin_sdk.agent_harness import define_plugin_entry


def register(api):
    api.register_provider("haunted", compatible_runtime_ids=["ghost"], models=["m"])


entry = define_plugin_entry("ghost-provider", "Ghost provider", "declares a runtime", register)
'''


@pytest.fixture
def app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> typer.Typer:
    monkeypatch.setenv("CLAWHARNESS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("CLAWHARNESS_CONFIG", raising=False)
    monkeypatch.setattr(plugin_loader, "BUNDLED_PLUGINS", ())
    monkeypatch.setattr(status_cmd, "console", Console(width=200))
    monkeypatch.setattr(doctor_cmd, "console", Console(width=200))
    (tmp_path / "ghost_provider_plugin.py").write_text(GHOST_PLUGIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    application = typer.Typer()
    status_cmd.register(application)
    doctor_cmd.register(application)
    return application


def config(tmp_path: Path, *load: str) -> str:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"agents": {"defaults": {"model": "anthropic/claude-opus-5"}},
                                "plugins": {"load": list(load)}}))
    return str(path)


def doctor_json(app: typer.Typer, path: str) -> tuple[int, dict[str, object]]:
    result = CliRunner().invoke(app, ["doctor", "--config", path, "--json"])
    return result.exit_code, json.loads(result.stdout.strip().splitlines()[-1])


def test_doctor_reports_a_plugin_that_failed_to_import_as_an_error(
        app: typer.Typer, tmp_path: Path) -> None:
    code, report = doctor_json(app, config(tmp_path, "no_such_plugin_module:entry"))
    assert code == 1 and report["ok"] is False
    findings = report["findings"]
    assert isinstance(findings, list)
    [finding] = [f for f in findings if f["code"] == "plugin-load-failed"]
    assert finding["severity"] == "error"
    assert finding["path"] == "plugins[no_such_plugin_module:entry]"
    assert "ModuleNotFoundError" in finding["message"]
    assert "remove it from plugins.load" in finding["message"]
    table = CliRunner().invoke(app, ["doctor", "--config", config(tmp_path,
                                                                   "no_such_plugin_module")])
    assert "no problems found" not in table.stdout and "plugin-load-failed" in table.stdout


def test_a_provider_declaring_an_unregistered_runtime_is_a_warning_at_doctor_and_status(
        app: typer.Typer, tmp_path: Path) -> None:
    path = config(tmp_path, "ghost_provider_plugin:entry")
    code, report = doctor_json(app, path)
    assert code == 0  # a warning, not an error
    findings = report["findings"]
    assert isinstance(findings, list)
    [finding] = [f for f in findings if f["code"] == "unregistered-compatible-runtime"]
    assert finding["severity"] == "warning" and finding["path"] == "plugins.entries.ghost-provider"
    assert '"haunted"' in finding["message"] and '"ghost"' in finding["message"]
    status = CliRunner().invoke(app, ["status", "--config", path, "--json"])
    assert status.exit_code == 0, status.output
    warnings = json.loads(status.stdout.strip().splitlines()[-1])["warnings"]
    assert any('runtime "ghost"' in w and "built-in runtime" in w for w in warnings)


def test_a_healthy_plugin_set_has_no_plugin_findings(app: typer.Typer, tmp_path: Path) -> None:
    code, report = doctor_json(app, config(tmp_path))
    findings = report["findings"]
    assert isinstance(findings, list)
    assert code == 0 and not [f for f in findings if str(f["code"]).startswith("plugin")]
