"""A turn's routes are remembered per config: the same ref gives the same route until
the config is replaced, the key's environment variable changes, or a plugin's provider
comes or goes; a failure is never kept."""

from __future__ import annotations

import pytest

from clawharness.config.schema import ClawConfig
from clawharness.errors import ModelRefError
from clawharness.models.routes import RouteCache, resolve_route
from clawharness.names.model_refs import ModelRef


def config(base_url: str) -> ClawConfig:
    return ClawConfig.model_validate({"models": {"providers": {"acme": {
        "api": "openai-completions", "baseUrl": base_url, "apiKey": "${ACME_KEY}",
        "models": [{"id": "m1", "params": {"temperature": 0.5}}]}}}})


def test_a_route_is_kept_until_its_config_or_its_key_changes() -> None:
    cache = RouteCache()
    ref = ModelRef("acme", "m1")
    first_config = config("http://one.test/v1")
    env = {"ACME_KEY": "key-one"}
    first = cache.resolve(first_config, ref, env=env)
    assert first == resolve_route(first_config, ref, env=env)
    assert cache.resolve(first_config, ref, env=env) is first
    # the key's variable changed: read again
    env["ACME_KEY"] = "key-two"
    second = cache.resolve(first_config, ref, env=env)
    assert second.auth.api_key == "key-two"
    # a new config (a reload, another host's): its own route
    replaced = cache.resolve(config("http://two.test/v1"), ref, env=env)
    assert replaced.model.base_url == "http://two.test/v1"
    # a built-in provider's key comes from its variable
    env["OPENAI_API_KEY"] = "sk-one"
    openai = ModelRef("openai", "gpt-x")
    assert cache.resolve(first_config, openai, env=env).auth.api_key == "sk-one"
    env["OPENAI_API_KEY"] = "sk-two"
    assert cache.resolve(first_config, openai, env=env).auth.api_key == "sk-two"


def test_a_plugin_provider_is_known_while_it_is_registered() -> None:
    cache = RouteCache()
    ref = ModelRef("plugged", "m")
    empty = ClawConfig()
    assert cache.resolve(empty, ref, env={}, extra_providers={"plugged": object()}).ref == ref
    with pytest.raises(ModelRefError):
        cache.resolve(empty, ref, env={}, extra_providers={})
    with pytest.raises(ModelRefError):  # and a failure was not kept either way
        cache.resolve(empty, ModelRef("nobody", "m"), env={})


def test_a_thinking_plan_is_kept_until_its_config_route_or_levels_change() -> None:
    from clawharness.models import ThinkingPlans, plan_turn_thinking

    def thinking_config(default: str) -> ClawConfig:
        return ClawConfig.model_validate({
            "agents": {"defaults": {"thinkingDefault": default}},
            "models": {"providers": {"acme": {"api": "openai-responses",
                                              "models": [{"id": "gpt-5.2"}]}}}})

    plans = ThinkingPlans()
    low = thinking_config("low")
    route = resolve_route(low, ModelRef("acme", "gpt-5.2"), env={})
    first = plans.plan(low, "main", route)
    assert first == plan_turn_thinking(low, "main", route) and first.level == "low"
    assert plans.plan(low, "main", route) is first
    # the message's and the session's levels are part of what is kept
    assert plans.plan(low, "main", route, message="high").level == "high"
    assert plans.plan(low, "main", route, session="medium").level == "medium"
    # a new config: planned again
    high = thinking_config("high")
    assert plans.plan(high, "main", route).level == "high"
    # another route object for the same ref: planned again, for that route
    other = resolve_route(high, ModelRef("acme", "gpt-5.2"), env={})
    assert plans.plan(high, "main", other) == plan_turn_thinking(high, "main", other)
