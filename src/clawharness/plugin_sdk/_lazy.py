"""Lazy re-exports for the SDK modules.

Some SDK names are the core's shared rules, which live in modules that are costly to
import or that import much of the core. Loading them on first attribute access keeps
`import clawharness.plugin_sdk.X` cheap and free of import cycles. Each SDK module that
does this also imports the same names under `TYPE_CHECKING`, so a type checker sees
their real types (a test keeps the two lists equal).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping

__all__ = ["LazyTable", "install_lazy_exports"]

#: public name -> (providing module, attribute)
LazyTable = Mapping[str, tuple[str, str]]


def install_lazy_exports(
    module_name: str, table: LazyTable,
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """Build `__getattr__` / `__dir__` for `module_name` from `table`."""

    def __getattr__(name: str) -> object:
        target = table.get(name)
        if target is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        provider, attr = target
        module = importlib.import_module(provider)
        try:
            value = getattr(module, attr)
        except AttributeError:
            raise AttributeError(
                f"{module_name}.{name} should come from {provider}.{attr}, which does not exist"
            ) from None
        # cache so later lookups are plain module attribute reads
        setattr(sys.modules[module_name], name, value)
        return value

    def __dir__() -> list[str]:
        own = list(vars(sys.modules[module_name]))
        return sorted(set(own) | set(table))

    return __getattr__, __dir__
