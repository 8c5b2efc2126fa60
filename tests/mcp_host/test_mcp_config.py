"""`mcp.servers` in config: bad entries reported with key paths, secrets never shown."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from clawharness.cli.main import app


def test_config_validate_reports_each_bad_mcp_entry_by_key_path(tmp_path: Path) -> None:
    path = tmp_path / "c.json"
    path.write_text(json.dumps({"mcp": {"servers": {
        "none": {"args": ["x"]},
        "ftp": {"url": "ftp://example.com"},
        "slow": {"command": "x", "toolTimeoutMs": 0},
        "bad-env": {"command": "x", "env": {"TOKEN": ["sk-live-1234567890abcdef"]}},
        "good": {"command": "x", "env": {"TOKEN": "${TOKEN}"}},
    }}}))
    out = CliRunner().invoke(app, ["config", "validate", "--config", str(path), "--json"])
    assert out.exit_code == 1
    report = json.loads(out.stdout)
    paths = [p["keyPath"] for p in report["problems"]]
    assert paths[:3] == ["mcp.servers.none", "mcp.servers.ftp", "mcp.servers.slow.toolTimeoutMs"]
    assert any(p.startswith("mcp.servers.bad-env.env.TOKEN") for p in paths)
    assert "command` (stdio) or `url`" in report["problems"][0]["message"]
    assert "sk-live" not in out.stdout
    assert not any(p.startswith("mcp.servers.good") for p in paths)
