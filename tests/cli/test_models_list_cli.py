"""`clawharness models list`: configured models per provider with the default, fallbacks,
aliases and the effective runtime of each (table for people, JSON for scripts)."""

from __future__ import annotations

import json
from pathlib import Path

from cli_rig import assert_envelope, invoke, only_json

CONFIG = {
    "models": {"providers": {
        "local": {"baseUrl": "http://127.0.0.1:9/v1", "api": "openai-responses",
                  "models": [{"id": "m", "name": "Local M"}, {"id": "m2"}]},
        "anthropic": {"models": [{"id": "claude-x"}]},
    }},
    "agents": {
        "defaults": {"model": {"primary": "local/m",
                               "fallbacks": ["anthropic/claude-x", "openai/gpt-x"]},
                     "models": {"local/m2": {"alias": "small"}}},
        "entries": {"other": {"model": "local/m2"}},
    },
}


def write(tmp_path: Path) -> str:
    path = tmp_path / "config.json5"
    path.write_text(json.dumps({**CONFIG, "store": {"url": str(tmp_path / "s.db")}}))
    return str(path)


def test_json_lists_every_model_with_its_role_and_runtime(tmp_path: Path) -> None:
    data = only_json(invoke("models", "list", "--config", write(tmp_path), "--json"))
    assert data["version"] == 1 and data["agentId"] == "main"
    assert data["default"] == "local/m"
    assert data["fallbacks"] == ["anthropic/claude-x", "openai/gpt-x"]
    rows = {m["ref"]: m for m in data["models"]}
    assert list(rows) == ["local/m", "local/m2", "anthropic/claude-x", "openai/gpt-x"]
    assert rows["local/m"]["default"] is True and rows["local/m"]["name"] == "Local M"
    assert rows["local/m"]["url"] == "http://127.0.0.1:9/v1"
    assert rows["local/m2"]["aliases"] == ["small"]
    assert rows["anthropic/claude-x"]["fallback"] == 1
    assert rows["anthropic/claude-x"]["api"] == "anthropic-messages"
    assert rows["anthropic/claude-x"]["url"] == "https://api.anthropic.com"
    assert rows["openai/gpt-x"]["listed"] is False and rows["openai/gpt-x"]["fallback"] == 2
    for row in rows.values():
        assert row["runtime"] == "openclaw" and row["runtimeLabel"] == "OpenClaw Default"
        assert row["reason"] and row["error"] is None


def test_agent_option_shows_another_agents_view(tmp_path: Path) -> None:
    data = only_json(invoke("models", "list", "--config", write(tmp_path), "--agent", "other",
                            "--json"))
    assert data["agentId"] == "other" and data["default"] == "local/m2"
    assert data["fallbacks"] == []


def test_table_for_people(tmp_path: Path) -> None:
    out = invoke("models", "list", "--config", write(tmp_path))
    assert out.exit_code == 0, out.output
    lines = out.stdout.splitlines()
    row = next(line for line in lines if "local/m " in line or "local/m │" in line)
    assert "Local M" in row and "default" in row and "auto_openclaw" in row
    assert any("alias small" in line for line in lines)
    assert any("fallback 2" in line and "not in models.providers" in line for line in lines)


def test_an_unknown_provider_is_an_error_on_its_row(tmp_path: Path) -> None:
    path = tmp_path / "c.json5"
    path.write_text(json.dumps({"agents": {"defaults": {"model": "nowhere/m"}},
                                "store": {"url": str(tmp_path / "s.db")}}))
    data = only_json(invoke("models", "list", "--config", str(path), "--json"))
    [row] = data["models"]
    assert row["ref"] == "nowhere/m" and "unknown provider" in row["error"]


def test_no_models_says_how_to_add_one(tmp_path: Path) -> None:
    path = tmp_path / "c.json5"
    path.write_text(json.dumps({"store": {"url": str(tmp_path / "s.db")}}))
    out = invoke("models", "list", "--config", str(path))
    assert out.exit_code == 0 and "no models configured" in out.stdout
    assert only_json(invoke("models", "list", "--config", str(path), "--json"))["models"] == []


def test_a_bad_config_is_the_envelope(tmp_path: Path) -> None:
    assert_envelope(invoke("models", "list", "--config", str(tmp_path / "none.json5"),
                           "--json"), "config_invalid")
