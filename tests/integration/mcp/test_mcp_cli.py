"""`clawharness mcp list|show|probe|tools` against real servers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from mcp_rig import everything_server, invoke, needs_everything

pytestmark = pytest.mark.integration


def _config(tmp_path: Path) -> Path:
    server = everything_server(env={"API_TOKEN": "${MCP_CLI_TEST_TOKEN}"})
    path = tmp_path / "config.json"
    path.write_text(json.dumps({
        "mcp": {"servers": {
            "everything": everything_server(),
            "with-secret": {**server, "enabled": False},
            "broken": {"command": str(tmp_path / "no-such-server"), "connectionTimeoutMs": 5000},
        }},
        "tools": {"deny": ["everything__get-env"]},
        "store": {"url": str(tmp_path / "state.db")},
    }))
    return path


def test_list_and_show_never_print_secret_values(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_CLI_TEST_TOKEN", "tok-very-secret-value")
    config = _config(tmp_path)
    out = invoke("mcp", "list", "--config", str(config), "--json")
    assert out.exit_code == 0, out.output
    servers = {s["name"]: s for s in json.loads(out.stdout)["servers"]}
    assert list(servers) == ["everything", "with-secret", "broken"]
    assert servers["with-secret"]["enabled"] is False
    assert servers["with-secret"]["envKeys"] == ["API_TOKEN"]
    shown = invoke("mcp", "show", "with-secret", "--config", str(config))
    assert shown.exit_code == 0, shown.output
    for text in (out.stdout, shown.stdout):
        assert "tok-very-secret" not in text and "${MCP_CLI_TEST_TOKEN}" not in text


@needs_everything
def test_probe_reports_tools_resources_prompts_with_timings(tmp_path: Path) -> None:
    out = invoke("mcp", "probe", "everything", "--config", str(_config(tmp_path)), "--json")
    assert out.exit_code == 0, out.output
    probe = json.loads(out.stdout)
    assert probe["serverInfo"]["name"] == "mcp-servers/everything"
    assert "echo" in probe["tools"] and probe["resources"] and probe["prompts"]
    assert set(probe["timingsMs"]) == {"connect", "tools", "resources", "prompts"}


@needs_everything
def test_tools_shows_model_facing_names_and_the_policy(tmp_path: Path) -> None:
    out = invoke("mcp", "tools", "everything", "--config", str(_config(tmp_path)), "--json")
    assert out.exit_code == 0, out.output
    tools = {t["name"]: t for t in json.loads(out.stdout)["tools"]}
    assert tools["everything__echo"]["offered"] is True
    assert tools["everything__get-env"]["offered"] is False
    assert "tools.deny" in tools["everything__get-env"]["deniedBecause"]


def test_a_server_that_cannot_start_fails_probe_with_the_error_envelope(tmp_path: Path) -> None:
    out = invoke("mcp", "probe", "broken", "--config", str(_config(tmp_path)), "--json")
    assert out.exit_code == 1
    error = json.loads(out.stdout)["error"]
    assert error["type"] == "mcp_connect_failed"
    assert "'broken'" in error["message"] and "mcp.servers.broken" in error["hint"]
    missing = invoke("mcp", "show", "nope", "--config", str(_config(tmp_path)), "--json")
    assert json.loads(missing.stdout)["error"]["type"] == "mcp_server_not_found"
