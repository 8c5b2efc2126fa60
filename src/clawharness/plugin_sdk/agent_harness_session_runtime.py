"""`clawharness.plugin_sdk.agent_harness_session_runtime`: native session bindings.

The binding lifecycle (leases, deletion, generations; digest §6) lives in
`clawharness.sessions.bindings`. This namespace serves every name that module lists in
its `__all__`, loaded on first access; names promoted into the stable surface go into
`LAZY_EXPORTS` and `__all__`.
"""

from __future__ import annotations

from clawharness.plugin_sdk._lazy import LazyTable, install_lazy_exports

#: the module that defines the binding lifecycle
BINDINGS_MODULE = "clawharness.sessions.bindings"

#: public name -> (providing module, attribute); empty until the lifecycle lands
LAZY_EXPORTS: LazyTable = {}

__all__: list[str] = []

_lazy_getattr, _lazy_dir = install_lazy_exports(__name__, LAZY_EXPORTS, passthrough=BINDINGS_MODULE)


def __getattr__(name: str) -> object:
    return _lazy_getattr(name)


def __dir__() -> list[str]:
    return _lazy_dir()
