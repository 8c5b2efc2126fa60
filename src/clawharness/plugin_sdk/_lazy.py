"""Lazy re-exports for the SDK modules.

The SDK re-exports helpers that live in other core modules. Importing them lazily (on
first attribute access) keeps `import clawharness.plugin_sdk.X` cheap and lets the SDK
module load even while one of the providing modules is still missing: the failure then
names the missing module instead of breaking every plugin import.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping

__all__ = ["LazyTable", "install_lazy_exports"]

#: public name -> (providing module, attribute)
LazyTable = Mapping[str, tuple[str, str]]


def install_lazy_exports(
    module_name: str, table: LazyTable, *, passthrough: str | None = None
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """Build `__getattr__` / `__dir__` for `module_name` from `table`.

    `passthrough` names a module whose own `__all__` names are also served (for a
    namespace whose contents another module defines).
    """

    def __getattr__(name: str) -> object:
        target = table.get(name)
        if target is None and passthrough is not None and not name.startswith("_"):
            target = (passthrough, name)
        if target is None:
            raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
        provider, attr = target
        try:
            module = importlib.import_module(provider)
        except ModuleNotFoundError as exc:
            if exc.name is not None and provider.startswith(exc.name):
                raise AttributeError(
                    f"{module_name}.{name} is provided by {provider}, which is not available "
                    "in this build yet"
                ) from exc
            raise
        if passthrough == provider and name not in table:
            exported = getattr(module, "__all__", ())
            if name not in exported:
                raise AttributeError(f"module {module_name!r} has no attribute {name!r}")
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
