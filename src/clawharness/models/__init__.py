"""Models as configured: provider routes (from a model ref and the config to the exact
transport model, its provider row and prepared auth) and the model catalog
(`clawharness models list`), and the check for default and agent models whose provider is
not configured (`provider_check`). Model refs themselves are names (`clawharness.names`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness._faces import lazy_face
from clawharness.models.routes import (
    BUILTIN_PROVIDERS,
    Route,
    expand_secret,
    known_provider_ids,
    resolve_route,
)

if TYPE_CHECKING:
    from clawharness.models.catalog import ModelCatalog, build_model_catalog
    from clawharness.models.provider_check import unknown_provider_problems

__all__ = [
    "BUILTIN_PROVIDERS",
    "ModelCatalog",
    "Route",
    "build_model_catalog",
    "expand_secret",
    "known_provider_ids",
    "resolve_route",
    "unknown_provider_problems",
]

__getattr__, __dir__ = lazy_face(__name__, {
    "ModelCatalog": "clawharness.models.catalog",
    "build_model_catalog": "clawharness.models.catalog",
    "unknown_provider_problems": "clawharness.models.provider_check",
})
