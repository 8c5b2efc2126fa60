"""Delegated execution through `Host.run_delegated_turn` (seed 004 "Delegated execution")."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest

from clawharness.attempt.delegation import DelegateRequest, DelegationRefusedError

CONFIG = {"plugins": {"load": ["host_fake_plugins:owner_entry"]},
          "agents": {"defaults": {"model": "scripted/m1", "models": {
              "scripted/m1": {"agentRuntime": {"id": "owner"}}}}}}


async def _owned_session(host: Any) -> DelegateRequest:
    await host.run_turn("call", "start")
    record = await host.lock_model_selection("call")
    return DelegateRequest(action="execute", session_key=record.key, store_path=host.store.url,
                           session_id=record.session_id, model_selection_locked=True,
                           agent_harness_id="owner")


async def test_a_trusted_delegate_runs_the_owners_locked_session(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": []}, **CONFIG)
    request = await _owned_session(host)
    result = await host.run_delegated_turn("voice", request, "keep going")
    assert (result.runtime, result.text) == ("owner", "owner ran: keep going")


@pytest.mark.parametrize(("change", "reason"), [
    ({"session_id": "someone-else"}, "session-id-mismatch"),
    ({"store_path": "/elsewhere.db"}, "store-path-mismatch"),
    ({"model_selection_locked": False}, "model-selection-unlocked"),
    ({"agent_harness_id": "codex"}, "harness-id-mismatch"),
    ({"action": "reset"}, "owner-only-action"),
])
async def test_a_delegate_with_any_mismatch_is_refused_before_work(
        scripted_host: Any, change: dict[str, Any], reason: str) -> None:
    host, _ = await scripted_host({"responses": []}, **CONFIG)
    request = dataclasses.replace(await _owned_session(host), **change)
    before = len(await host.history("call"))
    with pytest.raises(DelegationRefusedError) as info:
        await host.run_delegated_turn("voice", request, "sneak")
    assert info.value.reason == reason
    assert len(await host.history("call")) == before


async def test_an_untrusted_plugin_is_refused(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": []}, **CONFIG)
    request = await _owned_session(host)
    with pytest.raises(DelegationRefusedError, match="delegated_execution_plugin_ids"):
        await host.run_delegated_turn("stranger", request, "hi")
