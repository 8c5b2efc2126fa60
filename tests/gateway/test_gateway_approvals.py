"""Approvals asked during a turn reach connected operators as events; their answer decides."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from gateway_support import FakeHost, Rig, TurnContext, next_event, running_gateway, wait_or_abort

from clawharness.gateway.client import GatewayRequestError
from clawharness.harness.capabilities import ApprovalRequest


def asking(decisions: list[Any]) -> Any:
    """A turn that asks the gate once for `exec` and reports the answer as its text."""

    async def turn(ctx: TurnContext) -> str:
        gate = ctx.options.approvals
        assert gate is not None
        decision = await gate.decide(ApprovalRequest(
            run_id=ctx.options.run_id or "", session_key=ctx.session_key, tool_name="exec",
            arguments={"command": "rm -rf build"}, reason="tools.exec.ask is \"always\"",
            cwd="/tmp", tool_call_id="call_1"))
        decisions.append(decision)
        return await ctx.stream_text(f"decision={decision}")

    return turn


async def test_an_approval_reaches_operators_and_their_answer_decides(
        fake_host: FakeHost, rig: Rig) -> None:
    decisions: list[Any] = []
    fake_host.behaviour = asking(decisions)
    approver = await rig.client(scopes=["operator.read", "operator.approvals"])
    runner = await rig.client(scopes=["operator.write"])
    async with approver, runner:
        approvals = approver.events()
        runner_events = runner.events()
        call = runner.start_agent("clean up", idempotency_key="a1")
        asked = await next_event(approvals, lambda f: f["event"] == "plugin.approval.requested")
        approval = asked["payload"]
        assert approval["request"]["toolName"] == "exec"
        assert approval["request"]["sessionKey"] == "agent:main:main"
        assert approval["request"]["agentId"] == "main"
        assert "rm -rf build" in approval["request"]["description"]
        assert approval["request"]["allowedDecisions"] == ["allow-once", "allow-always", "deny"]
        assert approval["expiresAtMs"] > approval["createdAtMs"] > 0
        assert await approver.request("plugin.approval.list", {}) == [approval]
        assert not call.final.done()
        resolved = await approver.request("plugin.approval.resolve",
                                          {"id": approval["id"], "decision": "allow-once"})
        assert resolved == {"ok": True}
        done = await next_event(approvals, lambda f: f["event"] == "plugin.approval.resolved")
        assert done["payload"]["id"] == approval["id"]
        assert done["payload"]["decision"] == "allow-once"
        final = await asyncio.wait_for(call.final, 5)
        assert final["result"]["payloads"][0]["text"] == "decision=allow-once"
        assert decisions == ["allow-once"]
        assert await approver.request("plugin.approval.list", {}) == []
        assert not any(f["event"].startswith("plugin.approval")
                       for f in _drain(runner_events))
        with pytest.raises(GatewayRequestError) as caught:
            await approver.request("plugin.approval.resolve",
                                   {"id": approval["id"], "decision": "deny"})
        assert caught.value.error["message"] == "unknown or expired approval id"
        assert caught.value.details["reason"] == "APPROVAL_NOT_FOUND"


def _drain(queue: asyncio.Queue[dict[str, Any]]) -> list[dict[str, Any]]:
    frames = []
    while not queue.empty():
        frames.append(queue.get_nowait())
    return frames


async def test_a_decision_outside_the_allowed_set_is_refused(fake_host: FakeHost, rig: Rig) -> None:
    decisions: list[Any] = []
    fake_host.behaviour = asking(decisions)
    client = await rig.client()
    async with client:
        events = client.events()
        call = client.start_agent("x", idempotency_key="a2")
        asked = await next_event(events, lambda f: f["event"] == "plugin.approval.requested")
        with pytest.raises(GatewayRequestError) as caught:
            await client.request("plugin.approval.resolve",
                                 {"id": asked["payload"]["id"], "decision": "maybe"})
        assert caught.value.error["message"] == "maybe is unavailable for this plugin approval"
        await client.request("plugin.approval.resolve",
                             {"id": asked["payload"]["id"], "decision": "deny"})
        final = await asyncio.wait_for(call.final, 5)
        assert final["result"]["payloads"][0]["text"] == "decision=deny"


async def test_with_no_approver_connected_the_gate_refuses_at_once(
        fake_host: FakeHost, rig: Rig) -> None:
    decisions: list[Any] = []
    fake_host.behaviour = asking(decisions)
    client = await rig.client(scopes=["operator.write"])
    async with client:
        _acc, final = await client.agent("x", idempotency_key="a3", timeout=5)
    assert decisions == [None]
    assert final["result"]["payloads"][0]["text"] == "decision=None"


async def test_an_unanswered_approval_expires_as_a_refusal(fake_host: FakeHost) -> None:
    decisions: list[Any] = []
    fake_host.behaviour = asking(decisions)
    async with running_gateway(fake_host, approval_timeout_s=0.2) as rig:
        client = await rig.client()
        async with client:
            events = client.events()
            _acc, final = await client.agent("x", idempotency_key="a4", timeout=5)
            expired = await next_event(events, lambda f: f["event"] == "plugin.approval.resolved")
            assert expired["payload"]["resolvedBy"] == "timeout"
    assert decisions == [None]
    assert final["result"]["payloads"][0]["text"] == "decision=None"


async def test_an_approval_of_an_aborted_turn_is_withdrawn(fake_host: FakeHost, rig: Rig) -> None:
    async def ask_until_aborted(ctx: TurnContext) -> str:
        # like the built-in loop: an abort cancels the pending approval question
        gate = ctx.options.approvals
        assert gate is not None and ctx.options.abort is not None
        question = asyncio.ensure_future(gate.decide(ApprovalRequest(
            run_id=ctx.options.run_id or "", session_key=ctx.session_key, tool_name="exec",
            arguments={"command": "sleep 1"}, reason="ask", cwd="/tmp")))
        aborted = asyncio.ensure_future(ctx.options.abort.wait())
        await asyncio.wait({question, aborted}, return_when=asyncio.FIRST_COMPLETED)
        question.cancel()
        aborted.cancel()
        await asyncio.gather(question, aborted, return_exceptions=True)
        await wait_or_abort(ctx, asyncio.Event())
        return "unreachable"

    fake_host.behaviour = ask_until_aborted
    client = await rig.client()
    async with client:
        events = client.events()
        call = client.start_agent("x", idempotency_key="a5")
        asked = await next_event(events, lambda f: f["event"] == "plugin.approval.requested")
        assert (await client.request("chat.abort", {"sessionKey": "main"}))["aborted"] is True
        withdrawn = await next_event(events, lambda f: f["event"] == "plugin.approval.resolved")
        assert withdrawn["payload"]["id"] == asked["payload"]["id"]
        assert withdrawn["payload"]["resolvedBy"] == "cancelled"
        assert await client.request("plugin.approval.list", {}) == []
        final = await asyncio.wait_for(call.final, 5)
        assert final["summary"] == "aborted"
