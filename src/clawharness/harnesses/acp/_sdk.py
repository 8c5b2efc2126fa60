"""The one place the ACP harness reaches past `clawharness.plugin_sdk`.

# TODO(sdk): every name below is missing from (or only untyped in) the plugin SDK. When
# the SDK grows them, replace each import with its `clawharness.plugin_sdk.*` spelling;
# nothing else in this package imports the core.

- `HarnessError`: the harness branch of the error tree, to root this plugin's errors.
- The native binding lifecycle (served by `agent_harness_session_runtime` only through a
  module `__getattr__`, so untyped under mypy strict): `DictRecordCodec`,
  `NativeSessionBindingLifecycle`, `create_native_session_binding_lifecycle`,
  `harness_session_hooks`, `HostRun`, and the state-dir migration `resolve_state_dir`.
- A store for plugin state: `Store`, `open_store` (no plugin-state accessor in the SDK yet).
- `SessionHookParams`: the parameter type of `reset` / `with_session_deletion`.
- The workspace path rules for `fs/read_text_file` / `fs/write_text_file`:
  `resolve_workspace_path` and `WorkspacePathEscapeError` (`clawharness.tools.workspace`).
"""

from __future__ import annotations

from clawharness.errors import HarnessError, WorkspacePathEscapeError  # TODO(sdk)
from clawharness.sessions.bindings import (  # TODO(sdk)
    DictRecordCodec,
    HostRun,
    NativeSessionBindingLifecycle,
    create_native_session_binding_lifecycle,
    harness_session_hooks,
    resolve_state_dir,
)
from clawharness.sessions.lifecycle import SessionHookParams  # TODO(sdk)
from clawharness.store import Store, open_store  # TODO(sdk)
from clawharness.tools.workspace import resolve_workspace_path  # TODO(sdk)

__all__ = [
    "DictRecordCodec",
    "HarnessError",
    "HostRun",
    "NativeSessionBindingLifecycle",
    "SessionHookParams",
    "Store",
    "WorkspacePathEscapeError",
    "create_native_session_binding_lifecycle",
    "harness_session_hooks",
    "open_store",
    "resolve_state_dir",
    "resolve_workspace_path",
]
