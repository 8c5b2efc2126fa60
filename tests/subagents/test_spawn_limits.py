"""The bounds on `sessions_spawn`: depth and active children
(`agents.defaults.subagents`), the agents a session may spawn, the parent's tool policy
over a child of another agent, and a kill from another host on the same store."""

from __future__ import annotations

import json
from typing import Any

import pytest

from clawharness.errors import SessionForkError, SubagentError, UnknownAgentError
from clawharness.subagents import SpawnRequest

PARENT = "agent:main:boss"


def _spawn(**arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": "sessions_spawn", "arguments": arguments}]}


def _results(history: Any) -> list[dict[str, Any]]:
    return [e.content["details"] for e in history if e.role == "toolResult"]


DEPTH = {"responses": [
    {"match": "^start the chain", **_spawn(task="child: spawn a grandchild")},
    {"match": "^child: spawn a grandchild", **_spawn(task="grandchild: hello")},
    {"match": "not allowed at this depth", "text": "I may not spawn"},
    {"match": '"status": "accepted"', "text": "started"},
    {"match": r"^\[Subagent\]", "repeat": True, "text": "noted"},
]}


async def test_a_child_at_the_depth_limit_may_not_spawn(spawn_host: Any) -> None:
    host, _server = await spawn_host(
        DEPTH, agents={"defaults": {"model": "scripted/m1",
                                    "subagents": {"maxSpawnDepth": 1}}})
    turn = await host.run_turn("boss", "start the chain")
    assert turn.text == "started", turn.error
    [child] = await host.subagents.children(PARENT)
    final = await host.subagents.wait(child.child_key, timeout=60)
    assert (final.status, final.result) == ("ok", "I may not spawn")
    [refused] = _results(await host.history(child.child_key))
    assert refused["status"] == "forbidden"
    assert refused["error"] == ("sessions_spawn is not allowed at this depth (current "
                                "depth: 1, max: 1)")
    assert await host.subagents.children(child.child_key) == []


CHILDREN = {"responses": [
    {"match": "^two helpers", "tool_calls": [
        {"name": "sessions_spawn", "arguments": {"task": "slow helper one"}},
        {"name": "sessions_spawn", "arguments": {"task": "slow helper two"}}]},
    {"match": "max active children", "text": "only one"},
    {"match": "^slow helper", "repeat": True, "delay_ms": 1500, "text": "helped"},
    {"match": r"^\[Subagent\]", "repeat": True, "text": "noted"},
]}


async def test_active_children_per_session_are_limited(spawn_host: Any) -> None:
    host, _server = await spawn_host(
        CHILDREN, agents={"defaults": {"model": "scripted/m1",
                                       "subagents": {"maxChildrenPerAgent": 1}}})
    turn = await host.run_turn("boss", "two helpers")
    assert turn.text == "only one", turn.error
    accepted, refused = _results(await host.history(PARENT))
    assert accepted["status"] == "accepted" and refused["status"] == "forbidden"
    assert "(1/1)" in refused["error"]
    [child] = await host.subagents.children(PARENT)
    assert (await host.subagents.wait(child.child_key, timeout=60)).status == "ok"


POLICY = {"responses": [
    {"match": "^get the worker", **_spawn(task="worker: list your tools",
                                          agentId="worker")},
    {"match": "^get the stranger", **_spawn(task="hello", agentId="stranger")},
    {"match": "not allowed for sessions_spawn", "text": "refused"},
    {"match": '"status": "accepted"', "text": "started"},
    {"match": "^worker: list your tools", "text": "listed"},
    {"match": r"^\[Subagent\]", "repeat": True, "text": "noted"},
]}


async def test_a_child_of_another_agent_gets_no_tool_its_parent_is_denied(
        spawn_host: Any) -> None:
    host, server = await spawn_host(POLICY, agents={
        "defaults": {"model": "scripted/m1", "subagents": {"allowAgents": ["worker"]}},
        "entries": {"main": {"default": True, "tools": {"deny": ["exec"]}},
                    "worker": {}, "stranger": {}}})
    turn = await host.run_turn("boss", "get the stranger")
    assert turn.text == "refused"
    [refused] = _results(await host.history(PARENT))
    assert refused["status"] == "forbidden" and "allowed: worker" in refused["error"]

    turn = await host.run_turn("boss", "get the worker")
    assert turn.text == "started", turn.error
    [child] = await host.subagents.children(PARENT)
    assert child.child_key.startswith("agent:worker:subagent:")
    assert (await host.subagents.wait(child.child_key, timeout=60)).result == "listed"
    [body] = [r.body for r in server.requests if r.path.endswith("/responses")
              and "worker: list your tools" in json.dumps(r.body)
              and "[Subagent]" not in json.dumps(r.body)
              and "accepted" not in json.dumps(r.body)]
    offered = {t.get("name") for t in body.get("tools", [])}
    assert "read" in offered and "sessions_spawn" in offered
    assert "exec" not in offered  # the worker's own policy allows it; its parent's not


SLOW = {"responses": [
    {"match": "^start a slow one", **_spawn(task="slow: take your time", label="slow")},
    {"match": '"status": "accepted"', "text": "started"},
    {"match": "^slow: take your time", "delay_ms": 30_000, "text": "finally"},
    {"match": r"^\[Subagent\]", "repeat": True, "text": "noted the kill"},
]}


async def test_another_host_sees_a_running_child_and_kills_it(spawn_host: Any) -> None:
    host, _server = await spawn_host(SLOW)
    turn = await host.run_turn("boss", "start a slow one")
    assert turn.text == "started", turn.error
    other = await spawn_host.reopen()
    [running] = await other.subagents.children(PARENT, active=True)
    assert running.owner == host.subagents.owner and running.owner != other.subagents.owner

    [killed] = await other.subagents.kill(running.child_key, reason="killed by a test")
    assert killed.status == "killed"
    # the owner aborts the child's turn at its next heartbeat, then tells the parent
    final = await host.subagents.wait(running.child_key, timeout=30)
    assert (final.status, final.error, final.announced) == ("killed", "killed by a test", True)
    announced = [e.text for e in await host.history(PARENT) if e.role == "user"]
    assert announced[-1].startswith('[Subagent] The sub-agent task "slow" was killed.')
    assert await other.subagents.children(PARENT, active=True) == []


QUEUE = {"responses": [
    {"match": "^two in a row", "tool_calls": [
        {"name": "sessions_spawn", "arguments": {"task": "slow first", "label": "first"}},
        {"name": "sessions_spawn", "arguments": {"task": "quick second",
                                                 "runTimeoutSeconds": 1}}]},
    {"match": '"status": "accepted"', "repeat": True, "text": "both started"},
    {"match": "^slow first", "delay_ms": 1000, "text": "first done"},
    {"match": "^quick second", "delay_ms": 10_000, "text": "too late"},
    {"match": r"^\[Subagent\]", "repeat": True, "text": "noted"},
]}


async def test_children_wait_for_a_slot_and_a_run_timeout_ends_one(spawn_host: Any) -> None:
    host, _server = await spawn_host(
        QUEUE, agents={"defaults": {"model": "scripted/m1",
                                    "subagents": {"maxConcurrent": 1}}})
    assert (await host.run_turn("boss", "two in a row")).text == "both started"
    first, second = await host.subagents.children(PARENT)
    # one slot: the second waits queued until the first has ended
    assert second.status in ("queued", "running")
    done = await host.subagents.wait(first.child_key, timeout=60)
    assert (done.status, done.result) == ("ok", "first done")
    late = await host.subagents.wait(second.child_key, timeout=60)
    assert late.status == "timeout" and late.result is None
    assert late.created_at >= done.created_at
    [_, told] = [e.text for e in await host.history(PARENT)
                 if e.role == "user" and e.text.startswith("[Subagent]")]
    assert "timed out" in told


async def test_closing_the_host_interrupts_its_children(spawn_host: Any) -> None:
    host, _server = await spawn_host(SLOW)
    assert (await host.run_turn("boss", "start a slow one")).text == "started"
    [child] = await host.subagents.children(PARENT, active=True)
    await host.close()
    again = await spawn_host.reopen()
    [seen] = await again.subagents.children(PARENT)
    assert (seen.child_key, seen.status, seen.announced) == (child.child_key, "interrupted",
                                                             False)


async def test_a_refused_spawn_leaves_nothing_behind(spawn_host: Any) -> None:
    host, _server = await spawn_host({"responses": [{"text": "hi"}]}, agents={
        "defaults": {"model": "scripted/m1", "subagents": {"allowAgents": ["*"]}},
        "entries": {"main": {"default": True}, "worker": {}}})
    await host.run_turn("boss", "hello")
    before = {r.key for r in await host.list_sessions()}
    with pytest.raises(SubagentError, match="context 'fork' keeps the parent's agent"):
        await host.subagents.spawn(PARENT, SpawnRequest(task="x", agent_id="worker",
                                                        context="fork"))
    with pytest.raises(UnknownAgentError):
        await host.subagents.spawn(PARENT, SpawnRequest(task="x", agent_id="ghost"))
    with pytest.raises(SessionForkError, match="cannot fork onto runtime codex"):
        await host.subagents.spawn(PARENT, SpawnRequest(task="x", runtime="codex"))
    assert await host.subagents.children(PARENT) == []
    assert {r.key for r in await host.list_sessions()} == before
