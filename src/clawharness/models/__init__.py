"""Models as configured: provider routes (from a model ref and the config to the exact
transport model, its provider row and prepared auth) and the model catalog
(`clawharness models list`), and the check for default and agent models whose provider is
not configured (`provider_check`), and thinking levels: their resolution and what each
provider's request carries (`thinking`, docs/thinking.md). Model refs themselves are names (`clawharness.names`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness._faces import lazy_face

if TYPE_CHECKING:
    from clawharness.models.builtin_providers import BUILTIN_PROVIDERS
    from clawharness.models.catalog import ModelCatalog, build_model_catalog
    from clawharness.models.provider_check import unknown_provider_problems
    from clawharness.models.routes import (
        Route,
        RouteCache,
        expand_secret,
        known_provider_ids,
        resolve_route,
    )
    from clawharness.models.thinking import (
        THINKING_LEVELS,
        ResolvedThinking,
        ThinkingLevelError,
        ThinkingPlan,
        ThinkingPlans,
        apply_thinking,
        parse_thinking_level,
        plan_turn_thinking,
        resolve_agent_thinking,
    )

__all__ = [
    "BUILTIN_PROVIDERS",
    "THINKING_LEVELS",
    "ModelCatalog",
    "ResolvedThinking",
    "Route",
    "RouteCache",
    "ThinkingLevelError",
    "ThinkingPlan",
    "ThinkingPlans",
    "apply_thinking",
    "build_model_catalog",
    "expand_secret",
    "known_provider_ids",
    "parse_thinking_level",
    "plan_turn_thinking",
    "resolve_agent_thinking",
    "resolve_route",
    "unknown_provider_problems",
]

__getattr__, __dir__ = lazy_face(__name__, {
    "BUILTIN_PROVIDERS": "clawharness.models.builtin_providers",
    "Route": "clawharness.models.routes",
    "RouteCache": "clawharness.models.routes",
    "expand_secret": "clawharness.models.routes",
    "known_provider_ids": "clawharness.models.routes",
    "resolve_route": "clawharness.models.routes",
    "ModelCatalog": "clawharness.models.catalog",
    "build_model_catalog": "clawharness.models.catalog",
    "unknown_provider_problems": "clawharness.models.provider_check",
    "THINKING_LEVELS": "clawharness.models.thinking",
    "ResolvedThinking": "clawharness.models.thinking",
    "ThinkingLevelError": "clawharness.models.thinking",
    "ThinkingPlan": "clawharness.models.thinking",
    "ThinkingPlans": "clawharness.models.thinking",
    "apply_thinking": "clawharness.models.thinking",
    "parse_thinking_level": "clawharness.models.thinking",
    "plan_turn_thinking": "clawharness.models.thinking",
    "resolve_agent_thinking": "clawharness.models.thinking",
})
