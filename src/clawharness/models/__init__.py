"""Models as configured: provider routes (from a model ref and the config to the exact
transport model, its provider row and prepared auth) and the model catalog
(`clawharness models list`). Model refs themselves are names (`clawharness.names`).
"""

from __future__ import annotations

from clawharness.models.routes import (
    BUILTIN_PROVIDERS,
    Route,
    expand_secret,
    known_provider_ids,
    resolve_route,
)

__all__ = ["BUILTIN_PROVIDERS", "Route", "expand_secret", "known_provider_ids", "resolve_route"]
