"""`diagnose` / `apply_fixes` / `write_fixed_config`."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from clawharness.doctor import apply_fixes, diagnose, findings_to_json, write_fixed_config
from clawharness.errors import ConfigError
from clawharness.harness.registry import HarnessRegistry
from clawharness.harness.status import SessionPin
from clawharness.harness.types import AttemptParams, AttemptResult, SupportContext, Supported


class Native:
    id = "native"
    label = "Native"

    def supports(self, ctx: SupportContext) -> Supported:
        return Supported()

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        raise NotImplementedError


LEGACY: dict[str, Any] = {
    "agents": {
        "defaults": {
            "model": {"primary": "codex/gpt-5.6-sol", "fallbacks": ["openai-codex/gpt-5", "anthropic/x"]},
            "models": {"codex-cli/gpt-4.1": {"alias": "old"}, "anthropic/x": {}},
            "agentRuntime": {"id": "codex"},
        },
        "entries": {"w": {"model": "codex/gpt-x", "agentRuntime": {"id": "pi"},
                          "models": {"codex/gpt-x": {"agentRuntime": {"id": "openclaw"}}}}},
    },
    "futureKey": {"kept": True},
}


def codes(findings: list[Any]) -> list[tuple[str, str]]:
    return sorted((f.code, f.path) for f in findings)


def test_diagnose_finds_every_legacy_ref_and_whole_agent_runtime() -> None:
    found = codes(diagnose(LEGACY))
    assert found == sorted([
        ("legacy-model-ref", "agents.defaults.model.primary"),
        ("legacy-model-ref", "agents.defaults.model.fallbacks[0]"),
        ("legacy-model-ref", 'agents.defaults.models["codex-cli/gpt-4.1"]'),
        ("legacy-agent-runtime", "agents.defaults.agentRuntime"),
        ("legacy-model-ref", "agents.entries.w.model"),
        ("legacy-model-ref", 'agents.entries.w.models["codex/gpt-x"]'),
        ("legacy-agent-runtime", "agents.entries.w.agentRuntime"),
        # doctor reports what `config validate` reports, warnings too
        ("unknown-key", "futureKey"),
    ])


def test_apply_fixes_rewrites_refs_keeps_runtime_intent_and_unknown_keys() -> None:
    fixed = apply_fixes(LEGACY, diagnose(LEGACY))
    defaults = fixed["agents"]["defaults"]
    assert defaults["model"] == {"primary": "openai/gpt-5.6-sol",
                                 "fallbacks": ["openai/gpt-5", "anthropic/x"]}
    assert list(defaults["models"]) == ["openai/gpt-4.1", "anthropic/x", "openai/gpt-5.6-sol"]
    assert defaults["models"]["openai/gpt-4.1"] == {"alias": "old"}
    # a codex/* ref meant the Codex harness: that intent moves to a model-scoped policy
    assert defaults["models"]["openai/gpt-5.6-sol"] == {"agentRuntime": {"id": "codex"}}
    assert "agentRuntime" not in defaults
    entry = fixed["agents"]["entries"]["w"]
    assert entry["model"] == "openai/gpt-x" and "agentRuntime" not in entry
    # an existing model-scoped policy wins over the legacy alias
    assert entry["models"] == {"openai/gpt-x": {"agentRuntime": {"id": "openclaw"}}}
    assert fixed["futureKey"] == {"kept": True}
    assert LEGACY["agents"]["defaults"]["model"]["primary"] == "codex/gpt-5.6-sol"  # untouched
    # a codex/* ref's repair turns the bundled codex plugin on as well
    assert fixed["plugins"] == {"entries": {"codex": {"enabled": True}}}
    # what is left: no loaded plugin registers "codex" here, and the unknown key warns
    assert sorted(f.code for f in diagnose(fixed)) == ["unknown-key", "unknown-runtime"]
    codex = Native()
    codex.id = "codex"
    registry = HarnessRegistry()
    registry.register(codex)  # type: ignore[arg-type]
    assert [f.code for f in diagnose(fixed, registry)] == ["unknown-key"]


def test_conflicting_legacy_key_is_reported_not_merged() -> None:
    raw = {"agents": {"defaults": {"models": {"codex/m": {"alias": "a"}, "openai/m": {}}}}}
    [finding] = diagnose(raw)
    assert not finding.fixable and "merge the two entries by hand" in finding.message
    assert apply_fixes(raw, [finding]) == raw


def test_unknown_runtime_ids_are_errors_unless_registered_or_cli_aliases() -> None:
    raw = {"models": {"providers": {
        "openai": {"agentRuntime": {"id": "codex"}},
        "anthropic": {"models": [{"id": "c", "agentRuntime": {"id": "claude-cli"}}]},
        "acme": {"agentRuntime": {"id": "native"}}}},
        "agents": {"defaults": {"models": {"openai/*": {"agentRuntime": {"id": "Auto"}}}}}}
    registry = HarnessRegistry()
    registry.register(Native())  # type: ignore[arg-type]
    [finding] = diagnose(raw, registry)
    assert finding.code == "unknown-runtime" and finding.severity == "error"
    assert finding.path == "models.providers.openai.agentRuntime.id"
    assert not finding.fixable


def test_stale_session_pins_are_reported_for_the_host() -> None:
    registry = HarnessRegistry()
    registry.register(Native())  # type: ignore[arg-type]
    pins = [SessionPin("agent:main:a", agent_harness_id="codex-app-server"),
            SessionPin("agent:main:b", agent_harness_id="native"),
            SessionPin("agent:main:c", agent_harness_id="pi")]
    [finding] = diagnose({}, registry, pins)
    assert finding.code == "stale-session-pin" and '"codex"' in finding.message
    assert finding.fix == {"ops": [{"op": "clear_session_pin", "sessionKey": "agent:main:a"}]}


def test_plaintext_official_endpoint_is_fixed_to_https() -> None:
    raw = {"models": {"providers": {"openai": {"baseUrl": "http://api.openai.com/v1"}}}}
    [finding] = diagnose(raw)
    assert finding.code == "plaintext-official-endpoint" and finding.severity == "error"
    fixed = apply_fixes(raw, [finding])
    assert fixed["models"]["providers"]["openai"]["baseUrl"] == "https://api.openai.com/v1"
    assert diagnose({"models": {"providers": {"openai": {"baseUrl": "http://localhost:8000"}}}}) == []


def test_invalid_config_is_reported() -> None:
    [finding] = diagnose({"agents": {"defaults": {"maxSteps": "many"}}})
    assert finding.code == "config-invalid" and "maxSteps" in finding.path


def test_write_fixed_config_backs_up_then_edits_the_file_in_place(tmp_path: Path) -> None:
    path = tmp_path / "config.json5"
    original = "// my notes\n{agents: {defaults: {model: 'codex/gpt-x'}}}\n"
    path.write_text(original)
    new_raw = {"agents": {"defaults": {"model": "openai/gpt-x"}}}
    when = datetime(2026, 9, 6, 12, 0, 0, tzinfo=UTC)
    result = write_fixed_config(path, new_raw, now=when)
    assert result.backup == tmp_path / "config.json5.bak-20260906T120000000000Z"
    assert result.backup.read_text() == original
    assert path.read_text() == "// my notes\n{agents: {defaults: {model: 'openai/gpt-x'}}}\n"
    assert result.kept_layout
    assert result.loaded.config.agents.defaults.model is not None
    assert result.loaded.config.agents.defaults.model.primary == "openai/gpt-x"


def test_write_fixed_config_refuses_invalid_content_before_touching_anything(
    tmp_path: Path,
) -> None:
    path = tmp_path / "config.json"
    path.write_text("{}")
    with pytest.raises(ConfigError):
        write_fixed_config(path, {"agents": {"defaults": {"maxSteps": "many"}}})
    assert path.read_text() == "{}" and list(tmp_path.iterdir()) == [path]


def test_findings_json_shape() -> None:
    data = findings_to_json(diagnose(LEGACY), fixed=False)
    assert set(data) == {"version", "ok", "fixed", "backup", "findings"}
    assert data["ok"] is True and data["backup"] is None
    assert set(data["findings"][0]) == {"code", "severity", "path", "message", "fixable", "fix"}
