"""Native session bindings of a CLI-backend harness.

A binding row maps `<agent id>:<session key>` to the CLI's native session id (plus the host
session id it belongs to and the working directory its transcript lives under). Rows live
in the host's plugin-state store (`PluginApi.store`), or in a file under the plugin's
state dir when the harness runs on its own, owned through the SDK's binding lifecycle.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clawharness.plugin_sdk.agent_harness_session_runtime import (
    DictRecordCodec,
    HarnessBindingStore,
    Store,
)

__all__ = ["BindingRecord", "Bindings", "binding_key"]

#: a binding row's body: {"nativeSessionId", "hostSessionId", "cwd", "harness"}
BindingRecord = dict[str, Any]


def binding_key(agent_id: str, session_key: str) -> str:
    """The binding row key of one host session."""
    return f"{agent_id}:{session_key}"


def _validate(body: dict[str, Any]) -> dict[str, Any]:
    sid = body.get("nativeSessionId")
    if sid is not None and not isinstance(sid, str):
        raise ValueError("nativeSessionId must be a string or null")
    return body


def Bindings(harness_id: str, state_dir: Path | None,
             store: Store | None = None) -> HarnessBindingStore[BindingRecord]:
    """The binding store of one harness id."""
    return HarnessBindingStore(
        f"{harness_id}.bindings", codec=DictRecordCodec(version=1, validate=_validate),
        store=store, state_dir=state_dir,
        exclusive_operation=f"a {harness_id} session operation")
