"""Seed 004 "Selection policy" and "Runtime strictness", and the digest §2.1 precedence."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from harness_fakes import FakeHarness
from pydantic import ValidationError

from clawharness.config.schema import ClawConfig, ModelsConfig, ProviderConfig
from clawharness.errors import AgentHarnessNotRegisteredError, AgentHarnessUnsupportedError
from clawharness.harness.policy import resolve_harness_policy, resolve_model_runtime_policy
from clawharness.harness.registry import HarnessRegistry
from clawharness.harness.selection import SelectionRequest, select_harness
from clawharness.harness.types import (
    ModelProviderFacts,
    RuntimePolicyFact,
    SupportContext,
    Supported,
    SupportResult,
    Unsupported,
)

NO_ENV: dict[str, str] = {}


def cfg(data: dict[str, Any]) -> ClawConfig:
    return ClawConfig.model_validate(data)


class SeedExampleHarness(FakeHarness):
    """The seed's `supports` example: route compatibility and no authored overrides."""

    def supports(self, ctx: SupportContext) -> SupportResult:
        self.supports_calls.append(ctx)
        mp = ctx.model_provider
        compatible = mp is not None and mp.runtime_policy is not None and (
            self.id in mp.runtime_policy.compatible_ids)
        reproducible = mp is None or mp.request_transport_overrides != "present"
        if compatible and reproducible:
            return Supported(priority=100)
        return Unsupported(reason="effective route is not harness-compatible")


def test_codex_only_provider_config_fails_instead_of_embedded_when_codex_is_missing() -> None:
    config = cfg({"models": {"providers": {"openai": {"agentRuntime": {"id": "codex"}}}},
                  "agents": {"defaults": {"model": "openai/gpt-5.6-sol"}}})
    policy = resolve_harness_policy(config, provider="openai", model_id="gpt-5.6-sol", env=NO_ENV)
    assert (policy.runtime, policy.source) == ("codex", "provider")
    assert policy.scope == "models.providers.openai.agentRuntime"
    with pytest.raises(AgentHarnessNotRegisteredError):
        select_harness(config, HarnessRegistry(),
                       SelectionRequest(provider="openai", model_id="gpt-5.6-sol"), env=NO_ENV)


def test_explicit_runtime_does_not_make_an_incompatible_route_compatible() -> None:
    registry = HarnessRegistry()
    registry.register(SeedExampleHarness("codex"))  # type: ignore[arg-type]
    config = cfg({"models": {"providers": {"openai": {
        "agentRuntime": {"id": "codex"}, "baseUrl": "https://proxy.example/v1"}}}})
    with pytest.raises(AgentHarnessUnsupportedError, match="not harness-compatible"):
        select_harness(config, registry, SelectionRequest(provider="openai", model_id="gpt-x"),
                       env=NO_ENV)


def test_model_scoped_cli_runtime_passes_through_when_no_harness_registers_it() -> None:
    config = cfg({"agents": {"defaults": {
        "model": "anthropic/claude-opus-5",
        "models": {"anthropic/claude-opus-5": {"agentRuntime": {"id": "claude-cli"}}}}}})
    decision = select_harness(config, HarnessRegistry(),
                              SelectionRequest(provider="anthropic", model_id="claude-opus-5"),
                              env=NO_ENV)
    assert decision.builtin and decision.selected_reason == "cli_runtime_passthrough_openclaw"
    registry = HarnessRegistry()
    registry.register(FakeHarness("claude-cli"))  # type: ignore[arg-type]
    decision = select_harness(config, registry,
                              SelectionRequest(provider="anthropic", model_id="claude-opus-5"),
                              env=NO_ENV)
    assert decision.selected_harness_id == "claude-cli"
    assert decision.selected_reason == "forced_plugin"


def test_per_agent_model_scoped_override() -> None:
    config = cfg({"agents": {"entries": {"codex-only": {
        "default": True, "model": "openai/gpt-5.6-sol",
        "models": {"openai/gpt-5.6-sol": {"agentRuntime": {"id": "codex"}}}}}}})
    # with no agent id the default agent's map applies
    policy = resolve_harness_policy(config, provider="openai", model_id="gpt-5.6-sol", env=NO_ENV)
    assert (policy.runtime, policy.source) == ("codex", "model")
    assert policy.scope == 'agents.entries.codex-only.models["openai/gpt-5.6-sol"].agentRuntime'


@pytest.mark.parametrize("where", ["defaults", "entry"])
def test_legacy_whole_agent_runtime_keys_are_ignored(where: str) -> None:
    agents: dict[str, Any] = (
        {"defaults": {"agentRuntime": {"id": "codex"}}} if where == "defaults"
        else {"entries": {"main": {"agentRuntime": {"id": "codex"}}}}
    )
    config = cfg({"agents": agents})
    assert resolve_model_runtime_policy(config, provider="anthropic", model_id="m",
                                        agent_id="main", env=NO_ENV) is None


def test_explicit_openclaw_runtime_is_never_blocked() -> None:
    registry = HarnessRegistry(builtin=FakeHarness("openclaw"))  # type: ignore[arg-type]
    config = cfg({"models": {"providers": {"openai": {"agentRuntime": {"id": "openclaw"}}}}})
    decision = select_harness(config, registry, SelectionRequest(provider="openai", model_id="x"),
                              env=NO_ENV)
    assert decision.builtin and decision.selected_reason == "forced_openclaw"


def test_prefix_alone_never_selects_a_harness() -> None:
    codex = SeedExampleHarness("codex")
    registry = HarnessRegistry()
    registry.register(codex)  # type: ignore[arg-type]
    config = cfg({"models": {"providers": {"openai": {"baseUrl": "https://gateway.example/v1"}}}})
    decision = select_harness(config, registry, SelectionRequest(provider="openai", model_id="gpt-x"),
                              env=NO_ENV)
    assert decision.policy.runtime == "auto"
    assert decision.selected_reason == "auto_openclaw"
    official = select_harness(cfg({}), registry, SelectionRequest(provider="openai", model_id="gpt-x"),
                              env=NO_ENV)
    assert official.selected_harness_id == "codex" and official.policy.source == "implicit"


@pytest.mark.parametrize(("provider_cfg", "expected"), [
    ({}, "codex"),
    ({"baseUrl": "https://api.openai.com/v1"}, "codex"),
    ({"baseUrl": "https://api.openai.com"}, "codex"),
    ({"baseUrl": "https://api.openai.com/v2"}, "auto"),
    ({"baseUrl": "https://api.openai.com:8443/v1"}, "auto"),
    ({"api": "openai-completions"}, "auto"),
    ({"headers": {"x-org": "a"}}, "auto"),
    ({"request": {"proxy": "http://proxy:3128"}}, "auto"),
    ({"models": [{"id": "gpt-x", "params": {"temperature": 0}}]}, "auto"),
    ({"models": [{"id": "gpt-x", "params": {"fastMode": True}}]}, "codex"),
])
def test_implicit_openai_codex_only_for_exact_official_responses_route(
    provider_cfg: dict[str, Any], expected: str,
) -> None:
    config = cfg({"models": {"providers": {"openai": provider_cfg}}})
    policy = resolve_harness_policy(config, provider="openai", model_id="gpt-x", env=NO_ENV)
    assert policy.runtime == expected


def test_a_plaintext_official_route_is_refused_by_the_config_and_never_implicit_codex() -> None:
    with pytest.raises(ValidationError, match="plaintext HTTP"):
        cfg({"models": {"providers": {"openai": {"baseUrl": "http://api.openai.com/v1"}}}})
    # built without validation, the route still does not get the Codex harness implicitly
    provider = ProviderConfig.model_construct(base_url="http://api.openai.com/v1")
    config = ClawConfig.model_construct(models=ModelsConfig.model_construct(
        providers={"openai": provider}))
    policy = resolve_harness_policy(config, provider="openai", model_id="gpt-x", env=NO_ENV)
    assert policy.runtime == "auto"


def test_implicit_codex_for_official_chatgpt_route_from_prepared_facts() -> None:
    facts = ModelProviderFacts(api="openai-chatgpt-responses",
                               base_url="https://chatgpt.com/backend-api/codex")
    policy = resolve_harness_policy(None, provider="openai", model_id="gpt-x", env=NO_ENV,
                                    model_provider=facts)
    assert (policy.runtime, policy.source) == ("codex", "implicit")
    declared_without_codex = ModelProviderFacts(
        api="openai-responses", runtime_policy=RuntimePolicyFact(("openclaw",)))
    assert resolve_harness_policy(None, provider="openai", model_id="gpt-x", env=NO_ENV,
                                  model_provider=declared_without_codex).runtime == "auto"


def test_precedence_model_row_then_wildcard_then_provider() -> None:
    base: dict[str, Any] = {"models": {"providers": {"acme": {
        "agentRuntime": {"id": "p-runtime"},
        "models": [{"id": "m1", "agentRuntime": {"id": "row-runtime"}}, {"id": "m2"}]}}},
        "agents": {"defaults": {"models": {"acme/*": {"agentRuntime": {"id": "wild"}}}}}}
    config = cfg(base)
    assert resolve_harness_policy(config, provider="acme", model_id="m1", env=NO_ENV).runtime == (
        "row-runtime")
    assert resolve_harness_policy(config, provider="acme", model_id="m2", env=NO_ENV).runtime == (
        "wild")
    del base["agents"]
    assert resolve_harness_policy(cfg(base), provider="acme", model_id="m2", env=NO_ENV) \
        .runtime == "p-runtime"


@pytest.mark.parametrize("blank", ["", "  ", "default"])
def test_empty_or_default_model_entry_counts_as_not_set(blank: str) -> None:
    config = cfg({"models": {"providers": {"acme": {"agentRuntime": {"id": "p-runtime"}}}},
                  "agents": {"defaults": {"models": {"acme/m": {"agentRuntime": {"id": blank}}}}}})
    assert resolve_harness_policy(config, provider="acme", model_id="m", env=NO_ENV).runtime == (
        "p-runtime")


def test_provider_is_inferred_from_a_qualified_model_id() -> None:
    config = cfg({"models": {"providers": {"acme": {"agentRuntime": {"id": "native"}}}}})
    policy = resolve_harness_policy(config, provider=None, model_id="acme/m", env=NO_ENV)
    assert (policy.runtime, policy.source) == ("native", "provider")


def test_auth_selected_cli_runtime_applies_only_in_auto() -> None:
    assert resolve_harness_policy(None, provider="anthropic", model_id="m", env=NO_ENV,
                                  auth_runtime="claude-cli").source == "auth"
    config = cfg({"models": {"providers": {"anthropic": {"agentRuntime": {"id": "openclaw"}}}}})
    assert resolve_harness_policy(config, provider="anthropic", model_id="m", env=NO_ENV,
                                  auth_runtime="claude-cli").runtime == "openclaw"


def test_qa_force_needs_the_build_flag_and_a_known_runtime() -> None:
    assert resolve_model_runtime_policy(None, provider="x", model_id="m",
                                        env={"OPENCLAW_QA_FORCE_RUNTIME": "codex"}) is None
    assert resolve_model_runtime_policy(
        None, provider="x", model_id="m",
        env={"OPENCLAW_BUILD_PRIVATE_QA": "1", "OPENCLAW_QA_FORCE_RUNTIME": "other"}) is None
    forced = resolve_model_runtime_policy(
        None, provider="x", model_id="m",
        env={"CLAWHARNESS_BUILD_PRIVATE_QA": "1", "CLAWHARNESS_QA_FORCE_RUNTIME": "openclaw"})
    assert forced is not None and forced.forced_by_environment


def test_auto_selection_provider_ids_limit_which_harnesses_are_probed() -> None:
    class ExplicitOnly(FakeHarness):
        auto_selection: ClassVar[dict[str, list[str]]] = {"providerIds": []}

    class OnlyAcme(FakeHarness):
        auto_selection: ClassVar[dict[str, list[str]]] = {"providerIds": ["ACME"]}

    explicit, acme = ExplicitOnly("explicit"), OnlyAcme("acme-native")
    registry = HarnessRegistry()
    registry.register(explicit)  # type: ignore[arg-type]
    registry.register(acme)  # type: ignore[arg-type]
    decision = select_harness(None, registry, SelectionRequest(provider="other", model_id="m"),
                              env=NO_ENV)
    assert decision.selected_reason == "auto_openclaw"
    assert explicit.supports_calls == [] and acme.supports_calls == []
    reasons = {c.id: c.reason for c in decision.candidates}
    assert reasons == {"explicit": "harness is explicit-only",
                       "acme-native": "provider is not auto-selectable"}
    decision = select_harness(None, registry, SelectionRequest(provider="acme", model_id="m"),
                              env=NO_ENV)
    assert decision.selected_harness_id == "acme-native" and len(acme.supports_calls) == 1
    forced = cfg({"models": {"providers": {"other": {"agentRuntime": {"id": "explicit"}}}}})
    decision = select_harness(forced, registry, SelectionRequest(provider="other", model_id="m"),
                              env=NO_ENV)
    assert decision.selected_harness_id == "explicit"


def test_a_harness_whose_supports_raises_does_not_claim_or_break_selection() -> None:
    def broken(ctx: SupportContext) -> SupportResult:
        raise ValueError("bug")

    registry = HarnessRegistry()
    registry.register(FakeHarness("broken", support=broken))  # type: ignore[arg-type]
    registry.register(FakeHarness("ok", support=Supported()))  # type: ignore[arg-type]
    decision = select_harness(None, registry, SelectionRequest(provider="x", model_id="m"),
                              env=NO_ENV)
    assert decision.selected_harness_id == "ok"
    assert {c.id: c.supported for c in decision.candidates} == {"broken": False, "ok": True}


def test_dict_shaped_support_answers_are_accepted() -> None:
    registry = HarnessRegistry()
    registry.register(FakeHarness(  # type: ignore[arg-type]
        "dicty", support=lambda ctx: {"supported": True, "priority": 7}))  # type: ignore[arg-type,return-value]
    decision = select_harness(None, registry, SelectionRequest(provider="x", model_id="m"),
                              env=NO_ENV)
    assert decision.selected_harness_id == "dicty"
    assert decision.candidates[0].priority == 7
