"""Delegated execution: a refusal for every mismatched field, and owner-only actions."""

from __future__ import annotations

from dataclasses import dataclass, replace

import pytest

from clawharness.attempt.delegation import (
    DelegateRequest,
    DelegationRefusedError,
    StoredSession,
    check_delegate,
)


@dataclass
class CodexLike:
    id: str = "codex"
    plugin_id: str = "codex"
    delegated_execution_plugin_ids: tuple[str, ...] = ("voice",)


STORED = StoredSession(
    session_key="agent:main:voice:1", store_path="/state/sessions.sqlite",
    session_id="sess-1", model_selection_locked=True, agent_harness_id="codex",
    agent_harness_runtime_override="codex",
)
REQUEST = DelegateRequest(
    action="execute", session_key="agent:main:voice:1", store_path="/state/sessions.sqlite",
    session_id="sess-1", model_selection_locked=True, agent_harness_id="codex",
    agent_harness_runtime_override="codex",
)


def test_a_listed_delegate_with_exact_identity_may_execute_and_admit() -> None:
    grant = check_delegate(CodexLike(), "voice", REQUEST, STORED)
    assert (grant.owner_harness_id, grant.owner_plugin_id, grant.action) == (
        "codex", "codex", "execute"
    )
    assert check_delegate(CodexLike(), "voice", replace(REQUEST, action="admit"), STORED)


@pytest.mark.parametrize(
    ("request_change", "stored_change", "reason"),
    [
        ({"session_key": "agent:main:voice:2"}, {}, "session-key-mismatch"),
        ({"store_path": "/other/sessions.sqlite"}, {}, "store-path-mismatch"),
        ({"session_id": "sess-2"}, {}, "session-id-mismatch"),
        ({"model_selection_locked": False}, {}, "model-selection-unlocked"),
        ({}, {"model_selection_locked": False}, "model-selection-unlocked"),
        ({"agent_harness_id": "openclaw"}, {}, "harness-id-mismatch"),
        ({"agent_harness_runtime_override": None}, {}, "runtime-override-mismatch"),
        ({}, {"agent_harness_id": "openclaw"}, "session-not-owned-by-harness"),
    ],
)
def test_every_mismatched_field_is_refused(
    request_change: dict[str, object], stored_change: dict[str, object], reason: str
) -> None:
    with pytest.raises(DelegationRefusedError) as caught:
        check_delegate(CodexLike(), "voice", replace(REQUEST, **request_change),  # type: ignore[arg-type]
                       replace(STORED, **stored_change))  # type: ignore[arg-type]
    assert caught.value.reason == reason
    assert "voice" in str(caught.value)


def test_a_plugin_the_owner_did_not_list_is_refused() -> None:
    with pytest.raises(DelegationRefusedError) as caught:
        check_delegate(CodexLike(), "stranger", REQUEST, STORED)
    assert caught.value.reason == "not-delegated"
    with pytest.raises(DelegationRefusedError):
        check_delegate(CodexLike(delegated_execution_plugin_ids=()), "voice", REQUEST, STORED)


@pytest.mark.parametrize("action", ["create", "patch", "reset", "delete", "archive",
                                    "gateway-mutation"])
def test_session_lifecycle_actions_stay_with_the_owner(action: str) -> None:
    with pytest.raises(DelegationRefusedError) as caught:
        check_delegate(CodexLike(), "voice", replace(REQUEST, action=action), STORED)
    assert caught.value.reason == "owner-only-action"


def test_unknown_actions_and_missing_sessions_fail_closed() -> None:
    with pytest.raises(DelegationRefusedError) as unknown:
        check_delegate(CodexLike(), "voice", replace(REQUEST, action="switch-model"), STORED)
    assert unknown.value.reason == "unknown-action"
    with pytest.raises(DelegationRefusedError) as missing:
        check_delegate(CodexLike(), "voice", REQUEST, None)
    assert missing.value.reason == "no-stored-session"
