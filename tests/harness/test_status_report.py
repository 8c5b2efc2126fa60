"""`build_status`: effective runtime, reason and policy source per agent/model and session."""

from __future__ import annotations

import json
from typing import Any

from harness_fakes import FakeHarness

from clawharness.config.schema import ClawConfig
from clawharness.harness.registry import HarnessRegistry
from clawharness.harness.status import SessionPin, build_status
from clawharness.harness.types import Unsupported

NO_ENV: dict[str, str] = {}


def cfg(data: dict[str, Any]) -> ClawConfig:
    return ClawConfig.model_validate(data)


def rows(report: Any) -> dict[tuple[str, str], Any]:
    return {(a.agent_id, m.ref): m for a in report.agents for m in a.models}


def test_status_rows_per_agent_and_model() -> None:
    registry = HarnessRegistry()
    registry.register(FakeHarness("codex", "OpenAI Codex"), owner_plugin_id="codex")  # type: ignore[arg-type]
    config = cfg({
        "models": {"providers": {"anthropic": {"agentRuntime": {"id": "openclaw"}}}},
        "agents": {
            "defaults": {"model": {"primary": "openai/gpt-x", "fallbacks": ["anthropic/claude"]}},
            "entries": {"worker": {"model": "anthropic/claude",
                                   "models": {"anthropic/claude": {"agentRuntime": {"id": "nope"}}}}},
        },
    })
    report = build_status(config, registry, env=NO_ENV)
    assert [(a.agent_id, a.default) for a in report.agents] == [("main", True), ("worker", False)]
    by = rows(report)
    main_openai = by[("main", "openai/gpt-x")]
    assert (main_openai.runtime, main_openai.runtime_label, main_openai.reason) == (
        "codex", "OpenAI Codex", "forced_plugin")
    assert (main_openai.policy_runtime, main_openai.policy_source) == ("codex", "implicit")
    assert main_openai.role == "primary"
    fallback = by[("main", "anthropic/claude")]
    assert fallback.role == "fallback" and fallback.runtime == "openclaw"
    assert fallback.reason == "forced_openclaw" and fallback.policy_source == "provider"
    assert fallback.policy_scope == "models.providers.anthropic.agentRuntime"
    broken = by[("worker", "anthropic/claude")]
    assert broken.runtime is None
    assert broken.error == 'Requested agent harness "nope" is not registered.'


def test_session_pin_is_shown_and_needs_support_only_once_prepared() -> None:
    registry = HarnessRegistry()
    registry.register(FakeHarness("codex", support=Unsupported()))  # type: ignore[arg-type]
    config = cfg({"agents": {"defaults": {"model": "anthropic/claude"}}})
    report = build_status(config, registry, [
        SessionPin("agent:main:chat", agent_harness_id="codex"),
        SessionPin("agent:main:other"),
    ], env=NO_ENV)
    pinned, plain = report.sessions
    assert pinned.agent_id == "main" and pinned.pinned_harness_id == "codex"
    assert pinned.model is not None and pinned.model.runtime == "codex"
    assert pinned.model.policy_source == "model" and pinned.model.policy_scope == "session"
    assert plain.model is not None and plain.model.reason == "auto_openclaw"


def test_legacy_refs_are_flagged_and_codex_refs_keep_the_codex_alias() -> None:
    config = cfg({"agents": {"defaults": {"model": "codex/gpt-x", "agentRuntime": {"id": "codex"}}}})
    report = build_status(config, HarnessRegistry(), env=NO_ENV)
    row = rows(report)[("main", "codex/gpt-x")]
    assert row.legacy_ref and row.provider == "openai"
    assert row.error == 'Requested agent harness "codex" is not registered.'
    assert (row.policy_runtime, row.policy_source) == ("codex", "model")
    assert row.policy_scope == "legacy model ref codex/gpt-x"
    assert any("agents.defaults.agentRuntime is legacy" in w for w in report.warnings)


def test_status_json_shape() -> None:
    registry = HarnessRegistry()
    registry.register(FakeHarness("native", "Native"), owner_plugin_id="native-plugin")  # type: ignore[arg-type]
    config = cfg({"agents": {"defaults": {"model": "acme/m"}},
                  "models": {"providers": {"acme": {"agentRuntime": {"id": "native"}}}}})
    data = build_status(config, registry, [SessionPin("agent:main:x")], env=NO_ENV).to_json()
    json.dumps(data)  # serialisable
    assert set(data) == {"version", "builtinRuntime", "harnesses", "agents", "sessions", "warnings"}
    assert data["version"] == 1
    assert data["builtinRuntime"] == {"id": "openclaw", "label": "OpenClaw Default"}
    assert data["harnesses"] == [{"id": "native", "label": "Native", "pluginId": "native-plugin"}]
    model = data["agents"][0]["models"][0]
    assert model == {
        "ref": "acme/m", "role": "primary", "provider": "acme", "modelId": "m",
        "runtime": "native", "runtimeLabel": "Native", "reason": "forced_plugin",
        "policy": {"runtime": "native", "source": "provider",
                   "scope": "models.providers.acme.agentRuntime", "forcedByEnvironment": False},
        "legacyRef": False, "error": None,
    }
    session = data["sessions"][0]
    assert set(session) == {"sessionKey", "agentId", "pinnedHarnessId", "runtimeOverride", "model",
                            "withoutPin", "thinking"}
    assert session["withoutPin"] is None  # no pin, so nothing differs from `model`
    assert session["thinking"] is None and data["agents"][0]["thinking"] is None  # none set


def test_agents_filter_and_unparseable_refs() -> None:
    config = cfg({"agents": {"defaults": {"model": "no-provider-model"},
                             "entries": {"a": {}, "b": {}}}})
    report = build_status(config, HarnessRegistry(), env=NO_ENV, agents=["b"])
    assert [a.agent_id for a in report.agents] == ["b"]
    [row] = report.agents[0].models
    assert row.error is not None and "has no provider" in row.error
