"""The map from the original's export names to their Python implementations.

Each area contributes a fragment module with a `FUNCTIONS` dict; this module merges
them. A name maps to a callable, a class (for vectors with `"new": true`) or a constant.
"""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

__all__ = ["FRAGMENTS", "functions", "resolve"]

#: fragment modules, each with `FUNCTIONS: dict[str, Any]`
FRAGMENTS = (
    "clawharness.conformance.fns_tools",
    "clawharness.conformance.fns_delivery",
    "clawharness.conformance.fns_attempt",
    "clawharness.conformance.fns_runtime",
)


@cache
def functions() -> dict[str, Any]:
    merged: dict[str, Any] = {}
    for name in FRAGMENTS:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:
                continue
            raise
        merged.update(module.FUNCTIONS)
    return merged


def resolve(fn: str) -> Any:
    """The implementation for `fn`, or KeyError naming what is missing."""
    table = functions()
    if fn in table:
        return table[fn]
    raise KeyError(f"no implementation registered for {fn!r}")
