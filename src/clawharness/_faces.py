"""A package's public face, loaded name by name.

Each package of `clawharness` answers other packages through its `__init__`: `__all__`
lists what it offers, and every name is imported from the module that defines it the
first time it is asked for (PEP 562), so `from clawharness.tools import ToolPolicy` loads
the policy module and nothing else of the package. The `__init__` also imports the same
names under `TYPE_CHECKING`, so a type checker sees their real types;
`tests/test_layers.py` keeps the table, those imports and `__all__` equal.

    if TYPE_CHECKING:
        from clawharness.tools.policy import ToolPolicy

    __all__ = ["ToolPolicy"]
    __getattr__, __dir__ = lazy_face(__name__, {"ToolPolicy": "clawharness.tools.policy"})
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping

__all__ = ["lazy_face"]


def lazy_face(package: str,
              table: Mapping[str, str]) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `package`'s face: public name -> defining module."""

    def __getattr__(name: str) -> object:
        module_name = table.get(name)
        if module_name is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module_name), name)
        setattr(sys.modules[package], name, value)  # later reads skip this function
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(table))

    return __getattr__, __dir__
