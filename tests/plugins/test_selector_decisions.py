"""A harness selector keeps its decisions, and decides again when what it decided from
changes: the registered harnesses, the plugins' providers, the config."""

from __future__ import annotations

from dataclasses import dataclass, field

from clawharness.config.schema import ClawConfig
from clawharness.harness.registry import HarnessRegistry
from clawharness.harness.types import SupportContext, Supported, SupportResult, Unsupported
from clawharness.models.routes import resolve_route
from clawharness.names.model_refs import ModelRef
from clawharness.plugins.entry import PluginApi
from clawharness.plugins.selector import HarnessSelector


@dataclass
class Claiming:
    """A plugin harness that claims the routes of one provider, counting its questions."""

    id: str
    provider: str
    label: str = "claiming harness"
    asked: list[SupportContext] = field(default_factory=list)

    def supports(self, ctx: SupportContext) -> SupportResult:
        self.asked.append(ctx)
        if ctx.provider == self.provider:
            return Supported(priority=5)
        return Unsupported(f"serves {self.provider} only")

    async def run_attempt(self, params: object) -> object:
        raise AssertionError("not run here")


def test_a_decision_is_kept_until_what_it_was_made_from_changes() -> None:
    registry = HarnessRegistry()
    selector = HarnessSelector(ClawConfig(), registry, env={})
    route = resolve_route(ClawConfig(), ModelRef("acme", "m1"), env={},
                          extra_providers={"acme": ()})
    first = selector.select(agent_id="main", route=route, pinned=None, session_key="agent:main:a")
    assert first.builtin
    again = selector.select(agent_id="main", route=route, pinned=None,
                            session_key="agent:main:b")
    assert again is first  # another session of the same agent and route

    # a harness registered since: the route is decided again, and it claims it
    claiming = Claiming("acmerun", "acme")
    registry.register(claiming)
    taken = selector.select(agent_id="main", route=route, pinned=None,
                            session_key="agent:main:a")
    assert taken.selected_harness_id == "acmerun" and not taken.builtin
    asked = len(claiming.asked)
    assert asked >= 1
    assert selector.select(agent_id="main", route=route, pinned=None,
                           session_key="agent:main:c") is taken
    assert len(claiming.asked) == asked  # kept: not asked again

    # another agent, or a pinned session, is a decision of its own
    other = selector.select(agent_id="ops", route=route, pinned="openclaw",
                            session_key="agent:ops:a")
    assert other.builtin and len(claiming.asked) >= asked

    # a provider registered since changes what selection reads: decided again
    PluginApi(plugin_id="p", registry=registry,
              registrations=selector.registrations).register_provider(
        "acme", compatible_runtime_ids=["acmerun"])
    assert "acme" in selector.providers
    before = len(claiming.asked)
    redone = selector.select(agent_id="main", route=route, pinned=None,
                             session_key="agent:main:a")
    assert redone is not taken and redone.selected_harness_id == "acmerun"
    assert len(claiming.asked) > before

    # a new config (a reload) is decided from afresh
    selector.config = ClawConfig.model_validate(
        {"models": {"providers": {"acme": {"agentRuntime": {"id": "openclaw"}}}}})
    forced = selector.select(agent_id="main", route=route, pinned=None,
                             session_key="agent:main:a")
    assert forced.builtin


def test_provider_routes_follow_registrations_and_rollbacks() -> None:
    registry = HarnessRegistry()
    selector = HarnessSelector(ClawConfig(), registry, env={})
    assert selector.providers == {}
    plugin_api = PluginApi(plugin_id="p", registry=registry,
                           registrations=selector.registrations)
    plugin_api.register_provider("acme", compatible_runtime_ids=["acmerun"])
    routes = selector.providers
    assert list(routes) == ["acme"]
    assert selector.providers is routes  # worked out once
    plugin_api.register_provider("acme", api="second")
    assert [r.api for r in selector.providers["acme"]] == [None, "second"]
    selector.registrations.providers.clear()
    selector.registrations.providers_changed()
    assert selector.providers == {}
