"""Delegated execution: may a trusted plugin run a harness owner's model-locked session?

A harness owner lists the plugins it trusts in `delegated_execution_plugin_ids` (static
owner consent, not a core allowlist). A delegate gets work admission and embedded
execution only, and only against the exact stored session: same session key, store
path and session id; `model_selection_locked=True`; the same `agent_harness_id` and
`agent_harness_runtime_override`. Creating, patching, resetting, deleting or archiving
sessions and mutating the Gateway stay with the owner.

Pure: `check_delegate` reads facts and either returns a grant or raises
`DelegationRefusedError` naming the first mismatch.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from clawharness.errors import HarnessError

__all__ = [
    "DELEGATE_ACTIONS",
    "OWNER_ONLY_ACTIONS",
    "DelegateRequest",
    "DelegationGrant",
    "DelegationRefusal",
    "DelegationRefusedError",
    "StoredSession",
    "check_delegate",
]

#: what a delegate may do with an owner's session
DELEGATE_ACTIONS = frozenset({"admit", "execute"})
#: what only the owning plugin may do
OWNER_ONLY_ACTIONS = frozenset({"create", "patch", "reset", "delete", "archive", "gateway-mutation"})

DelegationRefusal = Literal[
    "unknown-action",
    "owner-only-action",
    "not-delegated",
    "no-stored-session",
    "session-not-owned-by-harness",
    "session-key-mismatch",
    "store-path-mismatch",
    "session-id-mismatch",
    "model-selection-unlocked",
    "harness-id-mismatch",
    "runtime-override-mismatch",
]


class DelegationRefusedError(HarnessError):
    """A delegate asked for something the owner's consent does not cover."""

    code = "delegation_refused"

    def __init__(self, reason: DelegationRefusal, message: str, *, plugin_id: str) -> None:
        super().__init__(message)
        self.reason: DelegationRefusal = reason
        self.plugin_id = plugin_id


@dataclass(frozen=True, slots=True)
class DelegateRequest:
    """What the delegate asks to do, and the session identity it names."""

    action: str
    session_key: str
    store_path: str
    session_id: str
    model_selection_locked: bool
    agent_harness_id: str | None
    agent_harness_runtime_override: str | None = None


@dataclass(frozen=True, slots=True)
class StoredSession:
    """The session row as the host stored it."""

    session_key: str
    store_path: str
    session_id: str
    model_selection_locked: bool
    agent_harness_id: str | None
    agent_harness_runtime_override: str | None = None


@dataclass(frozen=True, slots=True)
class DelegationGrant:
    """Permission for one action, scoped through the harness owner."""

    plugin_id: str
    owner_harness_id: str
    owner_plugin_id: str | None
    action: str
    session_key: str
    session_id: str


def _refuse(reason: DelegationRefusal, plugin_id: str, message: str) -> DelegationRefusedError:
    return DelegationRefusedError(reason, f'Plugin "{plugin_id}" refused: {message}',
                                  plugin_id=plugin_id)


def check_delegate(
    harness: Any,
    plugin_id: str,
    request: DelegateRequest,
    stored_session: StoredSession | None,
) -> DelegationGrant:
    """Grant `request` to delegate `plugin_id` on `harness`'s session, or raise why not."""
    harness_id = str(getattr(harness, "id", ""))
    owner_plugin = getattr(harness, "plugin_id", None)
    action = request.action.strip().lower()
    if action in OWNER_ONLY_ACTIONS:
        raise _refuse("owner-only-action", plugin_id,
                      f'"{action}" on a delegated session is reserved to the harness owner')
    if action not in DELEGATE_ACTIONS:
        raise _refuse("unknown-action", plugin_id,
                      f'"{request.action}" is not a delegated action (admit or execute)')
    consent = getattr(harness, "delegated_execution_plugin_ids", None) or ()
    if plugin_id not in tuple(consent):
        raise _refuse("not-delegated", plugin_id,
                      f'agent harness "{harness_id}" does not list it in '
                      "delegated_execution_plugin_ids")
    if stored_session is None:
        raise _refuse("no-stored-session", plugin_id,
                      f'no stored session for "{request.session_key}"; delegates cannot create one')
    if stored_session.agent_harness_id != harness_id:
        raise _refuse("session-not-owned-by-harness", plugin_id,
                      f'session "{stored_session.session_key}" is not owned by "{harness_id}"')
    checks: tuple[tuple[DelegationRefusal, str, Any, Any], ...] = (
        ("session-key-mismatch", "session key", request.session_key, stored_session.session_key),
        ("store-path-mismatch", "store path", request.store_path, stored_session.store_path),
        ("session-id-mismatch", "session id", request.session_id, stored_session.session_id),
    )
    for reason, label, asked, stored in checks:
        if asked != stored:
            raise _refuse(reason, plugin_id, f"{label} {asked!r} does not exactly match {stored!r}")
    if not (request.model_selection_locked and stored_session.model_selection_locked):
        raise _refuse("model-selection-unlocked", plugin_id,
                      "delegated execution requires a model-locked session "
                      "(model_selection_locked=True)")
    if request.agent_harness_id != stored_session.agent_harness_id:
        raise _refuse("harness-id-mismatch", plugin_id,
                      f"agent_harness_id {request.agent_harness_id!r} does not match "
                      f"{stored_session.agent_harness_id!r}")
    if request.agent_harness_runtime_override != stored_session.agent_harness_runtime_override:
        raise _refuse("runtime-override-mismatch", plugin_id,
                      f"agent_harness_runtime_override {request.agent_harness_runtime_override!r}"
                      f" does not match {stored_session.agent_harness_runtime_override!r}")
    return DelegationGrant(
        plugin_id=plugin_id,
        owner_harness_id=harness_id,
        owner_plugin_id=owner_plugin if isinstance(owner_plugin, str) else None,
        action=action,
        session_key=stored_session.session_key,
        session_id=stored_session.session_id,
    )
