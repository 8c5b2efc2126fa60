"""The approval bridge: digest §7 decision mapping, scenarios 49-51."""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from clawharness.harness.capabilities import ApprovalDecision, ApprovalRequest, HostCapabilities
from clawharness.harnesses.codex.approvals import (
    COMMAND_APPROVAL,
    FILE_CHANGE_APPROVAL,
    PERMISSIONS_APPROVAL,
    build_approval_response,
    decide_approval,
)
from clawharness.plugin_sdk._kit.attempt_builder import attempt_params
from clawharness.plugin_sdk.agent_harness_tool_runtime import ToolCalls


class AskEverything:
    """A tool policy that allows every tool but wants approval for each call."""

    def __init__(self, denied: tuple[str, ...] = ()) -> None:
        self.denied = denied

    def check(self, tool_name: str) -> str | None:
        return f"{tool_name} is denied by policy" if tool_name in self.denied else None

    def needs_approval(self, tool_name: str, arguments: Mapping[str, Any]) -> str | None:
        return f"{tool_name} wants approval"


class Gate:
    def __init__(self, answer: ApprovalDecision | None, *, hold: bool = False) -> None:
        self.answer = answer
        self.hold = hold
        self.requests: list[ApprovalRequest] = []
        self.asked = asyncio.Event()

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision | None:
        self.requests.append(request)
        self.asked.set()
        if self.hold:
            await asyncio.Event().wait()
        return self.answer


def caps(tmp_path: Path, gate: Gate | None, policy: AskEverything | None = None
         ) -> HostCapabilities:
    return HostCapabilities(run_id="run-1", session_key="agent:main:main",
                            workspace_dir=str(tmp_path), policy=policy or AskEverything(),
                            approvals=gate)


def command_params(**extra: Any) -> dict[str, Any]:
    return {"threadId": "th", "turnId": "tu", "itemId": "call_1", "command": "touch x",
            "cwd": "/srv/ws", "reason": "need", **extra}


def tool_calls(tmp_path: Path, capabilities: HostCapabilities,
               abort: asyncio.Event | None = None) -> ToolCalls:
    """The SDK's tool-call routine over `capabilities`, as a Codex turn makes it."""
    params = dataclasses.replace(attempt_params(workspace_dir=str(tmp_path)),
                                 host_capabilities=capabilities, abort=abort or asyncio.Event())
    return ToolCalls(params)


async def decide(tmp_path: Path, gate: Gate | None, method: str, params: dict[str, Any],
                 *, abort: asyncio.Event | None = None, policy: AskEverything | None = None,
                 item: Mapping[str, Any] | None = None) -> dict[str, Any] | None:
    return await decide_approval(method, params, thread_id="th", turn_id="tu",
                                 tool_calls=tool_calls(tmp_path, caps(tmp_path, gate, policy),
                                                       abort),
                                 default_cwd=str(tmp_path), item=item)


# --- scenario 49: command approvals --------------------------------------------------------


async def test_allow_always_without_accept_for_session_on_offer_answers_accept(
        tmp_path: Path) -> None:
    params = command_params(availableDecisions=[
        "accept", {"acceptWithExecpolicyAmendment": {"execpolicy_amendment": ["touch"]}},
        "cancel"])
    assert await decide(tmp_path, Gate("allow-always"), COMMAND_APPROVAL, params) == {
        "decision": "accept"}


async def test_allow_always_with_accept_for_session_on_offer_answers_it(tmp_path: Path) -> None:
    params = command_params(availableDecisions=["accept", "acceptForSession", "decline"])
    assert await decide(tmp_path, Gate("allow-always"), COMMAND_APPROVAL, params) == {
        "decision": "acceptForSession"}


async def test_allow_always_with_no_offer_list_counts_as_offered(tmp_path: Path) -> None:
    assert await decide(tmp_path, Gate("allow-always"), COMMAND_APPROVAL, command_params()) == {
        "decision": "acceptForSession"}


async def test_allow_once_answers_accept_and_the_host_sees_the_native_command(
        tmp_path: Path) -> None:
    gate = Gate("allow-once")
    (tmp_path / "ws").mkdir()
    params = command_params(cwd=str(tmp_path / "ws"))
    assert await decide(tmp_path, gate, COMMAND_APPROVAL, params) == {"decision": "accept"}
    request = gate.requests[0]
    assert request.tool_name == "exec"
    assert request.arguments["command"] == "touch x"
    assert request.cwd == str(tmp_path / "ws")
    assert request.tool_call_id == "call_1"


async def test_allow_once_when_accept_is_not_offered_declines(tmp_path: Path) -> None:
    params = command_params(availableDecisions=["decline", "cancel"])
    assert await decide(tmp_path, Gate("allow-once"), COMMAND_APPROVAL, params) == {
        "decision": "decline"}


async def test_deny_answers_decline(tmp_path: Path) -> None:
    assert await decide(tmp_path, Gate("deny"), COMMAND_APPROVAL, command_params()) == {
        "decision": "decline"}


async def test_no_approver_answers_decline(tmp_path: Path) -> None:
    assert await decide(tmp_path, None, COMMAND_APPROVAL, command_params()) == {
        "decision": "decline"}
    assert await decide(tmp_path, Gate(None), COMMAND_APPROVAL, command_params()) == {
        "decision": "decline"}


async def test_policy_denial_answers_decline_without_asking(tmp_path: Path) -> None:
    gate = Gate("allow-once")
    result = await decide(tmp_path, gate, COMMAND_APPROVAL, command_params(),
                          policy=AskEverything(denied=("exec",)))
    assert result == {"decision": "decline"}
    assert gate.requests == []


async def test_abort_while_the_operator_decides_answers_cancel(tmp_path: Path) -> None:
    gate = Gate("allow-once", hold=True)
    abort = asyncio.Event()
    pending = asyncio.create_task(decide(tmp_path, gate, COMMAND_APPROVAL, command_params(),
                                         abort=abort))
    await gate.asked.wait()
    abort.set()
    assert await asyncio.wait_for(pending, 5) == {"decision": "cancel"}


async def test_an_already_aborted_attempt_answers_cancel_without_asking(tmp_path: Path) -> None:
    gate = Gate("allow-once")
    abort = asyncio.Event()
    abort.set()
    assert await decide(tmp_path, gate, COMMAND_APPROVAL, command_params(), abort=abort) == {
        "decision": "cancel"}
    assert gate.requests == []


async def test_a_settled_attempt_fails_closed_to_decline(tmp_path: Path) -> None:
    capabilities = caps(tmp_path, Gate("allow-once"))
    capabilities.settle()
    result = await decide_approval(COMMAND_APPROVAL, command_params(), thread_id="th",
                                   turn_id="tu", tool_calls=tool_calls(tmp_path, capabilities),
                                   default_cwd=str(tmp_path))
    assert result == {"decision": "decline"}


# --- file changes ---------------------------------------------------------------------------


@pytest.mark.parametrize(("answer", "decision"), [
    ("allow-once", "accept"), ("allow-always", "acceptForSession"), ("deny", "decline")])
async def test_file_change_decisions(tmp_path: Path, answer: ApprovalDecision,
                                     decision: str) -> None:
    gate = Gate(answer)
    item = {"type": "fileChange", "id": "call_2",
            "changes": [{"path": "/w/a.txt", "kind": {"type": "add"}, "diff": "x\n"}]}
    params = {"threadId": "th", "turnId": "tu", "itemId": "call_2", "reason": None,
              "grantRoot": None}
    assert await decide(tmp_path, gate, FILE_CHANGE_APPROVAL, params, item=item) == {
        "decision": decision}
    assert gate.requests[0].tool_name == "apply_patch"
    assert gate.requests[0].arguments["changes"] == [{"path": "/w/a.txt", "kind": "add"}]


# --- scenario 50: permissions -----------------------------------------------------------------


def permissions_params() -> dict[str, Any]:
    return {"threadId": "th", "turnId": "tu", "itemId": "p1", "cwd": "/w",
            "permissions": {"network": {"enabled": True},
                            "fileSystem": {"write": ["/w/out"]}, "extra": {"x": 1}}}


async def test_permissions_approved_for_the_session_grant_only_what_was_requested(
        tmp_path: Path) -> None:
    result = await decide(tmp_path, Gate("allow-always"), PERMISSIONS_APPROVAL,
                          permissions_params())
    assert result == {"permissions": {"network": {"enabled": True},
                                      "fileSystem": {"write": ["/w/out"]}},
                      "scope": "session"}


async def test_permissions_approved_once_are_turn_scoped(tmp_path: Path) -> None:
    result = await decide(tmp_path, Gate("allow-once"), PERMISSIONS_APPROVAL,
                          permissions_params())
    assert result is not None and result["scope"] == "turn"
    assert set(result["permissions"]) == {"network", "fileSystem"}


async def test_permissions_denied_grant_nothing(tmp_path: Path) -> None:
    assert await decide(tmp_path, Gate("deny"), PERMISSIONS_APPROVAL, permissions_params()) == {
        "permissions": {}, "scope": "turn"}


def test_permissions_cancelled_grant_nothing() -> None:
    assert build_approval_response(PERMISSIONS_APPROVAL, permissions_params(), "cancelled") == {
        "permissions": {}, "scope": "turn"}


# --- scenario 51: not this run's request ----------------------------------------------------


@pytest.mark.parametrize("override", [{"threadId": "other"}, {"turnId": "other"},
                                      {"turnId": None}])
async def test_a_request_for_another_thread_or_turn_gets_no_answer(
        tmp_path: Path, override: dict[str, Any]) -> None:
    gate = Gate("allow-once")
    result = await decide(tmp_path, gate, COMMAND_APPROVAL, {**command_params(), **override})
    assert result is None
    assert gate.requests == []


async def test_an_unsupported_approval_method_is_declined_with_a_reason(tmp_path: Path) -> None:
    result = await decide(tmp_path, Gate("allow-once"), "mcpServer/elicitation/request",
                          {"threadId": "th", "turnId": "tu"})
    assert result is not None and result["decision"] == "decline"
    assert "does not grant" in result["reason"]
