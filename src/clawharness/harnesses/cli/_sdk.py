"""The one place the CLI-backend harnesses reach past `clawharness.plugin_sdk`.

# TODO(sdk): every name below is missing from (or only untyped in) the plugin SDK. When
# the SDK grows them, replace each import with its `clawharness.plugin_sdk.*` spelling;
# nothing else in this package imports the core.

- `HarnessError`: the harness branch of the error tree, to root this plugin's errors.
- The native binding lifecycle: `agent_harness_session_runtime` serves these only
  through a module `__getattr__`, so they type as `object` under mypy strict:
  `DictRecordCodec`, `NativeSessionBindingLifecycle`, `create_native_session_binding_lifecycle`,
  `harness_session_hooks`, `HostRun`.
- A store for plugin state: `Store`, `open_store` (a plugin cannot reach the host's store:
  `PluginApi` has no plugin-state accessor and `AttemptParams` carries none), so the
  plugin keeps its bindings in its own SQLite file under its state dir.
- `SessionHookParams`: the parameter type of `reset` / `with_session_deletion`.
- `BeforeToolCallDecision`: the return type of `HostCapabilities.run_before_tool_call`.
"""

from __future__ import annotations

from clawharness.errors import HarnessError  # TODO(sdk)
from clawharness.harness.capabilities import BeforeToolCallDecision  # TODO(sdk)
from clawharness.sessions.bindings import (  # TODO(sdk)
    DictRecordCodec,
    HostRun,
    NativeSessionBindingLifecycle,
    create_native_session_binding_lifecycle,
    harness_session_hooks,
)
from clawharness.sessions.lifecycle import SessionHookParams  # TODO(sdk)
from clawharness.store import Store, open_store  # TODO(sdk)

__all__ = [
    "BeforeToolCallDecision",
    "DictRecordCodec",
    "HarnessError",
    "HostRun",
    "NativeSessionBindingLifecycle",
    "SessionHookParams",
    "Store",
    "create_native_session_binding_lifecycle",
    "harness_session_hooks",
    "open_store",
]
