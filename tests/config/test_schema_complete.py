"""The config schema's models are complete when their modules are imported: no forward
reference is left for pydantic to resolve (and rebuild a model's validator for) at the
first validation, which every command pays (docs/cli.md, "Start-up")."""

from __future__ import annotations

import subprocess
import sys

#: every module that defines config models (the schema's sections live in private modules)
MODULES = ("clawharness.config.schema", "clawharness.config._node", "clawharness.config._models",
           "clawharness.config._agents", "clawharness.config._tools",
           "clawharness.config._gateway", "clawharness.config._store_cluster",
           "clawharness.config._mcp", "clawharness.config._diagnostics",
           "clawharness.config.context", "clawharness.config.sandbox",
           "clawharness.config.spend")

PROBE = f"""
import importlib
import pydantic
import clawharness.config.schema
models = [v for m in map(importlib.import_module, {MODULES!r})
          for v in vars(m).values()
          if isinstance(v, type) and issubclass(v, pydantic.BaseModel)
          and v.__module__ == m.__name__]
assert len(models) > 40, len(models)
print(sorted(v.__name__ for v in models if not v.__pydantic_complete__))
"""


def test_every_config_model_is_complete_when_imported() -> None:
    # a fresh process: in this one an earlier validation may have completed them
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True,
                         check=True, timeout=120)
    assert out.stdout.strip() == "[]"


def test_every_default_factory_is_a_plain_function() -> None:
    """Pydantic reads each default factory's signature as it builds a model: a model
    class's costs building that model's whole signature, `dict`'s parsing its text
    (`clawharness.config._factories`)."""
    import importlib
    import types

    import pydantic

    modules = [importlib.import_module(name) for name in MODULES]
    factories = {f"{model.__name__}.{name}": field.default_factory
                 for module in modules for model in vars(module).values()
                 if isinstance(model, type) and issubclass(model, pydantic.BaseModel)
                 and model.__module__ == module.__name__
                 for name, field in model.model_fields.items()
                 if field.default_factory is not None}
    assert len(factories) > 40
    assert {name: f for name, f in factories.items()
            if not isinstance(f, types.FunctionType)} == {}
    for factory in factories.values():  # each still makes a fresh value
        assert factory() is not factory()
