"""Digest conformance scenarios 1-17, 20, 21 and 25: harness selection."""

from __future__ import annotations

from typing import Any

import pytest
from harness_fakes import FakeHarness, make_params

from clawharness.config.schema import ClawConfig
from clawharness.errors import AgentHarnessNotRegisteredError, AgentHarnessUnsupportedError
from clawharness.harness import selection as selection_module
from clawharness.harness.dispatch import run_selected_attempt
from clawharness.harness.registry import HarnessRegistry
from clawharness.harness.runtime_ids import normalize_runtime_id
from clawharness.harness.selection import (
    SelectionRequest,
    log_harness_selection,
    select_harness,
)
from clawharness.harness.support import build_support_context
from clawharness.harness.types import (
    ModelProviderFacts,
    RuntimePolicyFact,
    Supported,
    Unsupported,
)

NO_ENV: dict[str, str] = {}


def cfg(data: dict[str, Any] | None = None) -> ClawConfig:
    return ClawConfig.model_validate(data or {})


def provider_runtime(provider: str, runtime: str, **extra: Any) -> dict[str, Any]:
    return {"models": {"providers": {provider: {"agentRuntime": {"id": runtime}, **extra}}}}


def request(provider: str = "openai", model: str = "gpt-x", **kw: Any) -> SelectionRequest:
    return SelectionRequest(provider=provider, model_id=model, **kw)


async def test_scenario_01_no_config_no_harness_runs_builtin_with_auto_openclaw() -> None:
    builtin = FakeHarness("openclaw", "OpenClaw Default")
    registry = HarnessRegistry(builtin=builtin)  # type: ignore[arg-type]
    decision = select_harness(cfg(), registry, request("anthropic", "claude-x"), env=NO_ENV)
    assert decision.builtin is True
    assert decision.selected_harness_id == "openclaw"
    assert decision.selected_reason == "auto_openclaw"
    result = await run_selected_attempt(decision, make_params(provider="anthropic"))
    assert builtin.attempts and result.agent_harness_id == "openclaw"


def test_scenario_02_auto_picks_highest_priority_and_probes_each_once() -> None:
    a = FakeHarness("a", support=Supported(priority=10))
    b = FakeHarness("b", support=Supported(priority=100))
    c = FakeHarness("c", support=Unsupported(reason="not mine"))
    registry = HarnessRegistry()
    for harness in (a, b, c):
        registry.register(harness)  # type: ignore[arg-type]
    decision = select_harness(cfg(), registry, request("acme", "m"), env=NO_ENV)
    assert decision.selected_harness_id == "b"
    assert decision.selected_reason == "auto_plugin"
    assert decision.owner_plugin_id == "core"
    assert [len(h.supports_calls) for h in (a, b, c)] == [1, 1, 1]
    by_id = {c.id: c for c in decision.candidates}
    assert by_id["b"].supported is True and by_id["b"].priority == 100
    assert by_id["c"].supported is False and by_id["c"].reason == "not mine"


def test_scenario_03_equal_priority_lower_id_wins() -> None:
    registry = HarnessRegistry()
    for hid in ("zeta", "alpha", "mid"):
        registry.register(FakeHarness(hid, support=Supported(priority=5)))  # type: ignore[arg-type]
    decision = select_harness(cfg(), registry, request("acme", "m"), env=NO_ENV)
    assert decision.selected_harness_id == "alpha"


async def test_scenario_04_provider_policy_codex_not_registered_fails_before_builtin() -> None:
    builtin = FakeHarness("openclaw")
    registry = HarnessRegistry(builtin=builtin)  # type: ignore[arg-type]
    config = cfg(provider_runtime("openai", "codex"))
    with pytest.raises(AgentHarnessNotRegisteredError) as info:
        select_harness(config, registry, request(), env=NO_ENV)
    assert str(info.value) == 'Requested agent harness "codex" is not registered.'
    assert builtin.attempts == []


def test_scenario_05_forced_harness_refuses_route_without_fallback() -> None:
    codex = FakeHarness("codex", support=Unsupported(reason="custom endpoint"))
    registry = HarnessRegistry()
    registry.register(codex)  # type: ignore[arg-type]
    config = cfg(provider_runtime("openai", "codex"))
    with pytest.raises(AgentHarnessUnsupportedError) as info:
        select_harness(config, registry, request(), env=NO_ENV)
    assert str(info.value).startswith(
        'Requested agent harness "codex" does not support openai/gpt-x (custom endpoint)'
    )


def test_scenario_06_declared_openclaw_fallback_runs_builtin() -> None:
    codex = FakeHarness("codex", support=Unsupported(reason="override", fallback_runtime="openclaw"))
    registry = HarnessRegistry()
    registry.register(codex)  # type: ignore[arg-type]
    decision = select_harness(cfg(provider_runtime("openai", "codex")), registry, request(),
                              env=NO_ENV)
    assert decision.builtin is True
    assert decision.selected_reason == "plugin_declared_fallback_openclaw"
    assert decision.requested_policy.runtime == "codex"
    assert len(codex.supports_calls) == 1


def test_scenario_07_qa_env_force_ignores_the_declared_fallback() -> None:
    codex = FakeHarness("codex", support=Unsupported(reason="override", fallback_runtime="openclaw"))
    registry = HarnessRegistry()
    registry.register(codex)  # type: ignore[arg-type]
    env = {"OPENCLAW_BUILD_PRIVATE_QA": "1", "OPENCLAW_QA_FORCE_RUNTIME": " Codex "}
    decision = select_harness(cfg(), registry, request(), env=env)
    assert decision.selected_harness_id == "codex"
    assert decision.selected_reason == "forced_plugin"
    assert decision.policy.forced_by_environment is True


def test_scenario_08_model_scope_beats_provider_scope() -> None:
    registry = HarnessRegistry()
    registry.register(FakeHarness("codex"))  # type: ignore[arg-type]
    config = cfg({
        **provider_runtime("openai", "codex"),
        "agents": {"defaults": {"models": {"openai/gpt-x": {"agentRuntime": {"id": "openclaw"}}}}},
    })
    decision = select_harness(config, registry, request(), env=NO_ENV)
    assert decision.selected_reason == "forced_openclaw"
    assert decision.policy.source == "model"


def test_scenario_09_provider_wildcard_beats_implicit_openai_codex() -> None:
    codex = FakeHarness("codex")
    registry = HarnessRegistry()
    registry.register(codex)  # type: ignore[arg-type]
    config = cfg({"agents": {"defaults": {"models": {"openai/*": {"agentRuntime": {"id": "openclaw"}}}}}})
    decision = select_harness(config, registry, request(), env=NO_ENV)
    assert decision.builtin and decision.selected_reason == "forced_openclaw"
    assert codex.supports_calls == []


def test_scenario_10_agent_entry_map_beats_defaults_map() -> None:
    registry = HarnessRegistry()
    registry.register(FakeHarness("codex"))  # type: ignore[arg-type]
    config = cfg({"agents": {
        "defaults": {"models": {"openai/gpt-x": {"agentRuntime": {"id": "openclaw"}}}},
        "entries": {"worker": {"models": {"openai/gpt-x": {"agentRuntime": {"id": "codex"}}}}},
    }})
    decision = select_harness(config, registry, request(agent_id="worker"), env=NO_ENV)
    assert decision.selected_harness_id == "codex"
    other = select_harness(config, registry, request(agent_id="someone-else"), env=NO_ENV)
    assert other.selected_reason == "forced_openclaw"


def test_scenario_11_providerless_id_matching_two_providers_is_ambiguous_auto() -> None:
    registry = HarnessRegistry()
    config = cfg({"agents": {"defaults": {"models": {
        "openai/gpt-x": {"agentRuntime": {"id": "codex"}},
        "azure/gpt-x": {"agentRuntime": {"id": "openclaw"}},
    }}}})
    decision = select_harness(config, registry, SelectionRequest(provider=None, model_id="gpt-x"),
                              env=NO_ENV)
    assert decision.policy.runtime == "auto"
    assert decision.selected_reason == "auto_openclaw"


def test_scenario_12_legacy_whole_agent_runtime_is_ignored() -> None:
    registry = HarnessRegistry()
    registry.register(FakeHarness("codex", support=Unsupported()))  # type: ignore[arg-type]
    config = cfg({"agents": {"defaults": {"agentRuntime": {"id": "codex"}}}})
    decision = select_harness(config, registry, request("anthropic", "claude-opus-5"), env=NO_ENV)
    assert decision.builtin and decision.selected_reason == "auto_openclaw"


def test_scenario_13_implicit_codex_not_registered_falls_back_to_builtin() -> None:
    decision = select_harness(cfg(), HarnessRegistry(), request(), env=NO_ENV)
    assert decision.selected_reason == "implicit_plugin_unavailable_openclaw"
    assert (decision.requested_policy.runtime, decision.requested_policy.source) == (
        "codex", "implicit")
    assert (decision.policy.runtime, decision.policy.source) == ("openclaw", "implicit")


def test_scenario_14_implicit_codex_rejecting_route_falls_back_to_builtin() -> None:
    codex = FakeHarness("codex", support=Unsupported(reason="no"))
    registry = HarnessRegistry()
    registry.register(codex)  # type: ignore[arg-type]
    decision = select_harness(cfg(), registry, request(), env=NO_ENV)
    assert decision.selected_reason == "implicit_plugin_unsupported_openclaw"
    assert len(codex.supports_calls) == 1


def test_scenario_15_session_pin_skips_probe_until_prepared_facts_exist() -> None:
    codex = FakeHarness("codex", support=Unsupported(reason="route changed"))
    registry = HarnessRegistry()
    registry.register(codex)  # type: ignore[arg-type]
    pinned = select_harness(cfg(), registry, request("anthropic", "m", agent_harness_id="codex"),
                            env=NO_ENV)
    assert pinned.selected_harness_id == "codex" and codex.supports_calls == []
    with pytest.raises(AgentHarnessUnsupportedError):
        select_harness(cfg(), registry, request("anthropic", "m", agent_harness_id="codex",
                                                prepared_model_provider=True), env=NO_ENV)
    assert len(codex.supports_calls) == 1


@pytest.mark.parametrize("override", ["auto", "default", " AUTO "])
def test_scenario_16_auto_or_default_override_is_ignored(override: str) -> None:
    registry = HarnessRegistry()
    registry.register(FakeHarness("codex"))  # type: ignore[arg-type]
    config = cfg({"agents": {"defaults": {"models": {"openai/gpt-x": {"agentRuntime": {"id": "openclaw"}}}}}})
    decision = select_harness(config, registry,
                              request(agent_harness_runtime_override=override), env=NO_ENV)
    assert decision.selected_reason == "forced_openclaw"


@pytest.mark.parametrize(("raw", "expected"), [
    ("PI", "openclaw"), (" openclaw ", "openclaw"), ("codex-app-server", "codex"),
    ("", "openclaw"), ("auto", "auto"), ("default", "auto"), (None, "auto"),
])
def test_scenario_17_runtime_ids_are_normalized(raw: str | None, expected: str) -> None:
    assert normalize_runtime_id(raw) == expected


def test_scenario_20_retry_routes_intersect_and_one_undeclared_route_empties() -> None:
    both = ModelProviderFacts(runtime_policy=RuntimePolicyFact(("codex", "x", "codex")))
    only = ModelProviderFacts(runtime_policy=RuntimePolicyFact(("codex",)))
    ctx = build_support_context(provider="openai", model_id="gpt-x", retry_routes=[both, only])
    assert ctx.model_provider is not None and ctx.model_provider.runtime_policy is not None
    assert ctx.model_provider.runtime_policy.compatible_ids == ("codex",)
    undeclared = ModelProviderFacts(runtime_policy=None)
    ctx = build_support_context(provider="openai", model_id="gpt-x", retry_routes=[both, undeclared])
    assert ctx.model_provider is not None and ctx.model_provider.runtime_policy is not None
    assert ctx.model_provider.runtime_policy.compatible_ids == ()


def test_scenario_21_configured_model_extra_params_mark_overrides_present() -> None:
    config = cfg({"agents": {"defaults": {"models": {"openai/gpt-x": {"params": {"temperature": 0.2}}}}}})
    ctx = build_support_context(provider="openai", model_id="gpt-x", config=config)
    assert ctx.model_provider is not None
    assert ctx.model_provider.request_transport_overrides == "present"
    plain = build_support_context(provider="openai", model_id="gpt-x", config=cfg())
    assert plain.model_provider is not None
    assert plain.model_provider.request_transport_overrides == "none"


def test_scenario_25_debug_record_only_when_agents_harness_debug_is_on(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    registry = HarnessRegistry()
    registry.register(FakeHarness("a", support=Supported(priority=3)))  # type: ignore[arg-type]
    registry.register(FakeHarness("b", support=Unsupported(reason="nope")))  # type: ignore[arg-type]
    req = request("acme", "m", session_key="agent:main:main", agent_id="main")
    decision = select_harness(cfg(), registry, req, env=NO_ENV)
    records: list[Any] = []
    record = log_harness_selection(decision, req, debug=["agents/harness"], sink=records.append)
    assert records == [record] and record is not None
    payload = record.as_dict()
    assert payload["message"] == "agent harness selected"
    assert payload["selectedHarnessId"] == "a" and payload["selectedReason"] == "auto_plugin"
    assert payload["runtime"] == "auto"
    assert payload["candidates"] == [
        {"id": "a", "label": "a harness", "supported": True, "priority": 3},
        {"id": "b", "label": "b harness", "supported": False, "reason": "nope"},
    ]

    def explode(*_: Any, **__: Any) -> Any:
        raise AssertionError("a record was built while debug was off")

    monkeypatch.setattr(selection_module, "HarnessSelectedRecord", explode)
    assert log_harness_selection(decision, req, debug=["other/subsystem"], sink=records.append) is None
    assert log_harness_selection(decision, req, debug=None) is None
    assert len(records) == 1
