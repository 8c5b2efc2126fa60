"""Seed 004 "Request-transport contract": the secret-free facts `supports(ctx)` receives."""

from __future__ import annotations

from typing import Any

import pytest

from clawharness.config.schema import ClawConfig
from clawharness.harness.support import (
    ProviderRoute,
    authored_override_presence,
    build_support_context,
    classify_openai_route,
    normalize_model_id_for_provider,
)
from clawharness.harness.types import AuthFacts, ModelProviderFacts, RuntimePolicyFact


def cfg(data: dict[str, Any]) -> ClawConfig:
    return ClawConfig.model_validate(data)


@pytest.mark.parametrize("provider_cfg", [
    {"headers": {"x-tenant": "t"}},
    {"request": {"auth": {"mode": "header"}}},
    {"request": {"proxy": "http://proxy:3128"}},
    {"request": {"tls": {"ca": "/etc/ca.pem"}}},
    {"request": {"allowPrivateNetwork": True}},
    {"models": [{"id": "m", "headers": {"x": "y"}}]},
    {"models": [{"id": "m", "params": {"max_output_tokens": 10}}]},
])
def test_authored_request_behaviour_is_reported_present(provider_cfg: dict[str, Any]) -> None:
    config = cfg({"models": {"providers": {"acme": {"baseUrl": "https://a.example", **provider_cfg}}}})
    assert authored_override_presence(config, "acme", "m") == "present"
    ctx = build_support_context(provider="acme", model_id="m", config=config)
    assert ctx.model_provider is not None
    assert ctx.model_provider.request_transport_overrides == "present"


def test_typed_runtime_controls_are_not_request_overrides() -> None:
    config = cfg({"agents": {"defaults": {"models": {
        "acme/m": {"params": {"fastMode": "auto", "thinking": "high"}}}}},
        "models": {"providers": {"acme": {"baseUrl": "https://a.example"}}}})
    assert authored_override_presence(config, "acme", "m") == "none"


def test_agent_entry_params_count_for_that_agent_only() -> None:
    config = cfg({"agents": {"entries": {"w": {"models": {"acme/m": {"params": {"top_p": 1}}}}}}})
    assert authored_override_presence(config, "acme", "m", agent_id="w") == "present"
    assert authored_override_presence(config, "acme", "m", agent_id="other") == "none"


def test_facts_never_carry_secret_values() -> None:
    config = cfg({"models": {"providers": {"acme": {
        "baseUrl": "https://a.example", "apiKey": "sk-live-SECRET", "headers": {"authorization": "Bearer TOPSECRET"},
        "request": {"proxy": "http://user:PROXYPASS@proxy"}}}}})
    ctx = build_support_context(provider="acme", model_id="m", config=config)
    text = repr(ctx)
    for secret in ("SECRET", "TOPSECRET", "PROXYPASS"):
        assert secret not in text


def test_missing_runtime_policy_stays_undeclared() -> None:
    config = cfg({"models": {"providers": {"acme": {"baseUrl": "https://a.example"}}}})
    ctx = build_support_context(provider="acme", model_id="m", config=config)
    assert ctx.model_provider is not None and ctx.model_provider.runtime_policy is None


def test_prepared_runtime_policy_wins_and_prepared_absence_is_not_inferred() -> None:
    config = cfg({"models": {"providers": {"acme": {
        "baseUrl": "https://a.example", "runtimePolicy": {"compatibleIds": ["native"]}}}}})
    from_config = build_support_context(provider="acme", model_id="m", config=config)
    assert from_config.model_provider is not None
    assert from_config.model_provider.runtime_policy == RuntimePolicyFact(("native",))
    prepared = ModelProviderFacts(runtime_policy=RuntimePolicyFact(("other",)))
    ctx = build_support_context(provider="acme", model_id="m", config=config,
                                model_provider=prepared)
    assert ctx.model_provider is not None
    assert ctx.model_provider.runtime_policy == RuntimePolicyFact(("other",))
    bare = ModelProviderFacts(api="openai-responses", base_url="https://a.example")
    ctx = build_support_context(provider="acme", model_id="m", config=config, model_provider=bare,
                                prepared_model_provider=True)
    assert ctx.model_provider is not None and ctx.model_provider.runtime_policy is None


def test_prepared_harness_auth_is_an_owner_not_route_support() -> None:
    routes = [ModelProviderFacts(runtime_policy=RuntimePolicyFact(("native",))),
              ModelProviderFacts(runtime_policy=None)]
    prepared = ModelProviderFacts(prepared_auth=AuthFacts(source="harness"))
    ctx = build_support_context(provider="acme", model_id="m", model_provider=prepared,
                                retry_routes=routes)
    assert ctx.model_provider is not None
    assert ctx.model_provider.prepared_auth == AuthFacts(source="harness")
    assert ctx.model_provider.runtime_policy == RuntimePolicyFact(())


def test_any_retry_route_with_overrides_makes_the_set_present() -> None:
    routes = [ModelProviderFacts(runtime_policy=RuntimePolicyFact(("native",))),
              ModelProviderFacts(runtime_policy=RuntimePolicyFact(("native",)),
                                 request_transport_overrides="present")]
    ctx = build_support_context(provider="acme", model_id="m", retry_routes=routes)
    assert ctx.model_provider is not None
    assert ctx.model_provider.request_transport_overrides == "present"
    assert ctx.model_provider.runtime_policy == RuntimePolicyFact(("native",))


def test_plugin_declared_provider_routes_supply_the_policy() -> None:
    routes = {"acp": (ProviderRoute(api="acp", runtime_policy=RuntimePolicyFact(("acp",))),)}
    ctx = build_support_context(provider="acp", model_id="claude", provider_routes=routes,
                                provider_owner_plugin_ids=["acp-plugin"])
    assert ctx.model_provider is not None
    assert ctx.model_provider.runtime_policy == RuntimePolicyFact(("acp",))
    assert ctx.provider_owner_status == "owned"
    assert ctx.provider_owner_plugin_ids == ("acp-plugin",)
    nobody = build_support_context(provider="zzz", model_id="m", provider_owner_plugin_ids=[])
    assert nobody.model_provider is None and nobody.provider_owner_status == "unowned"


def test_model_id_prefix_is_stripped_only_for_the_same_provider() -> None:
    assert normalize_model_id_for_provider("openai", "openai/gpt-x") == "gpt-x"
    assert normalize_model_id_for_provider("openrouter", "openai/gpt-x") == "openai/gpt-x"
    assert normalize_model_id_for_provider("openai", "  ") is None


@pytest.mark.parametrize(("api", "url", "overrides", "verdict"), [
    (None, None, "none", "codex-compatible"),
    ("openai-responses", "https://api.openai.com/v1/", "none", "codex-compatible"),
    ("openai-responses", "https://api.openai.com/v1", "present", "openclaw"),
    ("openai-completions", "https://api.openai.com/v1", "none", "openclaw"),
    ("openai-chatgpt-responses", "https://chatgpt.com/backend-api", "none", "codex-compatible"),
    ("openai-responses", "https://chatgpt.com/backend-api", "none", "openclaw"),
    ("openai-responses", "http://api.openai.com/v1", "none", "rejected"),
    ("openai-responses", "https://api.openai.com/v1?x=1", "none", "openclaw"),
    ("openai-responses", "https://eu.api.openai.com/v1", "none", "openclaw"),
])
def test_openai_route_contract(api: str | None, url: str | None, overrides: Any,
                               verdict: str) -> None:
    assert classify_openai_route(api, url, overrides) == verdict


class RouteSetHarness:
    """Supports a route set only when every route declares it (via the intersection)."""

    id = "native"
    label = "Native"

    def __init__(self, fallback: bool = False) -> None:
        self.fallback = fallback

    def supports(self, ctx: Any) -> Any:
        from clawharness.harness.types import Supported, Unsupported

        mp = ctx.model_provider
        if mp is not None and mp.runtime_policy is not None and (
                "native" in mp.runtime_policy.compatible_ids):
            return Supported()
        return Unsupported(reason="not every retry route is native-compatible",
                           fallback_runtime="openclaw" if self.fallback else None)

    async def run_attempt(self, params: Any) -> Any:
        raise NotImplementedError


ROUTES = (ModelProviderFacts(runtime_policy=RuntimePolicyFact(("native", "openclaw"))),
          ModelProviderFacts(runtime_policy=RuntimePolicyFact(("openclaw",))))


def test_one_harness_must_support_every_retry_route_before_dispatch() -> None:
    from clawharness.errors import AgentHarnessUnsupportedError
    from clawharness.harness.registry import HarnessRegistry
    from clawharness.harness.selection import SelectionRequest, select_harness

    def registry(fallback: bool = False) -> HarnessRegistry:
        reg = HarnessRegistry()
        reg.register(RouteSetHarness(fallback))  # type: ignore[arg-type]
        return reg

    implicit = select_harness(None, registry(), SelectionRequest(
        provider="acme", model_id="m", retry_routes=ROUTES), env={})
    assert implicit.selected_reason == "auto_openclaw"
    single = select_harness(None, registry(), SelectionRequest(
        provider="acme", model_id="m", retry_routes=ROUTES[:1]), env={})
    assert single.selected_reason == "auto_plugin"
    explicit = cfg({"models": {"providers": {"acme": {"agentRuntime": {"id": "native"}}}}})
    with pytest.raises(AgentHarnessUnsupportedError):
        select_harness(explicit, registry(), SelectionRequest(
            provider="acme", model_id="m", retry_routes=ROUTES), env={})
    with pytest.raises(AgentHarnessUnsupportedError):
        select_harness(None, registry(), SelectionRequest(
            provider="acme", model_id="m", retry_routes=ROUTES, agent_harness_id="native",
            prepared_model_provider=True), env={})
    lossless = select_harness(explicit, registry(fallback=True), SelectionRequest(
        provider="acme", model_id="m", retry_routes=ROUTES), env={})
    assert lossless.selected_reason == "plugin_declared_fallback_openclaw"
