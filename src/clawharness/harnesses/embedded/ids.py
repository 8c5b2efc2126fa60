"""The built-in runtime's harness id, apart from its code (the registration object names
it without importing the turn loop, and the loop names it in its results)."""

from __future__ import annotations

__all__ = ["HARNESS_ID"]

HARNESS_ID = "openclaw"
