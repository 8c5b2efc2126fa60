"""The one place the Codex harness reaches past `clawharness.plugin_sdk`.

# TODO(sdk): every name below is missing from (or only untyped in) the plugin SDK. When
# the SDK grows them, replace each import with its `clawharness.plugin_sdk.*` spelling;
# nothing else in this package imports the core.

- `HarnessError`: the harness branch of the error tree, to root this plugin's own
  errors (the SDK exports only its leaves, e.g. `AgentHarnessPreflightError`).
- The native binding lifecycle (`agent_harness_session_runtime` serves these names only
  through a module `__getattr__`, so they type as `object` under mypy strict):
  `BindingOperationParams`, `DictRecordCodec`, `NativeSessionBindingLifecycle`,
  `LeaseTimings`, `CODEX_LEASE_TIMINGS`, `create_native_session_binding_lifecycle`.
- A store for plugin state: `Store` and `open_store`. A plugin has no way to reach the
  host's store yet (`PluginApi` has no `store` / plugin-state accessor, `AttemptParams`
  carries none, `SessionHookParams` carries only `store_url`), so the bundled plugin
  opens its own SQLite file under its state dir until the SDK offers one.
- `SessionHookParams`: the parameter type of `reset` / `with_session_deletion`.
"""

from __future__ import annotations

from clawharness.errors import HarnessError  # TODO(sdk)
from clawharness.sessions.bindings import (  # TODO(sdk)
    CODEX_LEASE_TIMINGS,
    BindingOperationParams,
    DictRecordCodec,
    LeaseTimings,
    NativeSessionBindingLifecycle,
    create_native_session_binding_lifecycle,
)
from clawharness.sessions.lifecycle import SessionHookParams  # TODO(sdk)
from clawharness.store import Store, open_store  # TODO(sdk)

__all__ = [
    "CODEX_LEASE_TIMINGS",
    "BindingOperationParams",
    "DictRecordCodec",
    "HarnessError",
    "LeaseTimings",
    "NativeSessionBindingLifecycle",
    "SessionHookParams",
    "Store",
    "create_native_session_binding_lifecycle",
    "open_store",
]
