"""Default factories of the config schema's fields, cheap for pydantic to inspect.

Pydantic reads each `default_factory`'s signature as it builds a model (does the factory
take the validated data?). Given a model class, that builds the whole model's signature
(field by field), and given `dict`, it parses the builtin's text signature: about 9 M
instructions of every process that imports the schema, where a plain function's
signature costs next to nothing. The values are the same.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["made", "no_entries"]

T = TypeVar("T")


def no_entries() -> dict[str, Any]:
    """An empty mapping (the default of the mapping fields)."""
    return {}


def made(model: Callable[[], T]) -> Callable[[], T]:
    """A factory of `model()` (the default of a nested section)."""

    def make() -> T:
        return model()

    make.__qualname__ = make.__name__ = f"made_{getattr(model, '__name__', 'value')}"
    return make
