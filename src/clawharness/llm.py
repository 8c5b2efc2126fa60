"""`host.llm.complete(...)`: one prompt-only model call for product paths.

With `execution={"mode": "isolated-agent-runtime"}` the call goes to the harness that
would run the model's turns, through its `run_isolated_completion_v2` (a harness that
cannot prove a zero-tool, no-thread call fails closed, never replayed elsewhere). Without
it, the built-in runtime makes the call on the host's exact transport and credential.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from clawharness.attempt.isolated import (
    HarnessAuthorization,
    HostAuthorization,
    IsolatedCompletionRequest,
    IsolatedCompletionResult,
    complete_isolated,
)
from clawharness.models.routes import known_provider_ids, resolve_route
from clawharness.names.model_refs import parse_model_ref

if TYPE_CHECKING:
    from clawharness.attempt.services import HarnessChoice
    from clawharness.config.schema import ClawConfig
    from clawharness.harness.types import AgentHarness

__all__ = ["LlmApi", "LlmContext"]


@dataclass(frozen=True, slots=True)
class LlmContext:
    """What a completion reads from its host, and nothing more (the host builds it).

    `start` makes sure the host is started (its plugins loaded); it is idempotent.
    """

    config: ClawConfig
    #: harness selection (the plugin runtime's `selector`)
    harnesses: HarnessChoice
    #: the built-in harness, for a completion that is not isolated
    builtin: AgentHarness
    env: Mapping[str, str]
    default_agent_id: Callable[[], str]
    start: Callable[[], Awaitable[object]]


class LlmApi:
    """The completion door of one host."""

    def __init__(self, context: LlmContext) -> None:
        self._context = context

    async def complete(
        self,
        prompt: str,
        *,
        model: str | None = None,
        system_prompt: str = "",
        agent_id: str | None = None,
        execution: Mapping[str, Any] | None = None,
        timeout: float = 60.0,
        output_text_policy: Literal["strict-visible"] | None = None,
        max_tokens: int | None = None,
    ) -> IsolatedCompletionResult:
        """Complete `prompt` once; raises `IsolatedCompletionError` when refused."""
        context = self._context
        await context.start()
        config = context.config
        agent = agent_id or context.default_agent_id()
        text = model or (config.agents.defaults.model.primary if config.agents.defaults.model
                         else None)
        models_by_provider = {p: [m.id for m in c.models] for p, c in config.models.providers.items()}
        ref = parse_model_ref(text or "", known_providers=known_provider_ids(
            config, context.harnesses.providers), models_by_provider=models_by_provider)
        route = resolve_route(config, ref, env=context.env, extra_providers=context.harnesses.providers)
        isolated = (execution or {}).get("mode") == "isolated-agent-runtime"
        if isolated:
            decision = context.harnesses.select(agent_id=agent, route=route, pinned=None,
                                               session_key=f"agent:{agent}:llm")
            harness: Any = decision.harness
        else:
            harness = context.builtin
        owns_auth = getattr(harness, "auth_bootstrap", None) == "harness"
        authorization = (HarnessAuthorization(plan={"provider": route.model.provider},
                                              auth_profile_store={}, profile_id=None)
                         if owns_auth else HostAuthorization(route.model, route.auth))
        request = IsolatedCompletionRequest(
            provider=route.model.provider, model_id=route.model.model_id,
            system_prompt=system_prompt, prompt=prompt, agent_id=agent,
            output_text_policy=output_text_policy, max_tokens=max_tokens)
        return await complete_isolated(harness, request, auth_attempts=[authorization],
                                       deadline=time.monotonic() + timeout)
