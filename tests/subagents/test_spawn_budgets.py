"""A parent's session budget bounds its children: a sub-agent's turns count against the
session budget of every session above it, so delegating cannot spend past it."""

from __future__ import annotations

import time
from typing import Any

import pytest

from clawharness.errors import BudgetExceededError

PARENT = "agent:main:boss"

SCRIPT = {"responses": [
    {"match": "^delegate", "tool_calls": [{"name": "sessions_spawn", "arguments": {
        "task": "child task: count the herons", "label": "herons"}}]},
    {"match": '"status": "accepted"', "text": "spawned"},
    {"match": "^child task", "text": "three herons"},
    {"match": r"^\[Subagent\]", "text": "the child counted"},
    {"match": "^one more", "text": "more"},
]}


async def test_a_childs_turn_counts_against_its_parents_session_budget(
        spawn_host: Any) -> None:
    # the parent's own turns: the spawning one and the announcement; the child's third
    host, _server = await spawn_host(SCRIPT, budgets={"perSession": {"turns": 3}})
    turn = await host.run_turn("boss", "delegate the heron count")
    assert turn.text == "spawned", turn.error
    [child] = await host.subagents.children(PARENT)
    final = await host.subagents.wait(child.child_key, timeout=60)
    assert (final.status, final.announced) == ("ok", True)

    parent, own = await host.store.budget_states(
        [f"session:{PARENT}", f"session:{child.child_key}"])
    assert (parent.spent.turns, own.spent.turns) == (3, 1)
    with pytest.raises(BudgetExceededError) as caught:
        await host.run_turn("boss", "one more")
    assert caught.value.key_path == "budgets.perSession.turns"


async def test_a_child_is_refused_when_its_parents_session_budget_is_spent(
        spawn_host: Any) -> None:
    host, _server = await spawn_host(SCRIPT, budgets={"perSession": {"turns": 1}})
    turn = await host.run_turn("boss", "delegate the heron count")
    assert turn.text == "spawned", turn.error
    [child] = await host.subagents.children(PARENT)
    final = await host.subagents.wait(child.child_key, timeout=60)
    assert final.status == "error"
    assert final.error is not None and f"session {PARENT}'s budget" in final.error
    (own,) = await host.store.budget_states([f"session:{child.child_key}"])
    assert own.spent.turns == 0


async def test_a_child_counts_on_its_parents_http_api_caller_budget(spawn_host: Any) -> None:
    # the caller's turns: the spawning one, the child's, and the announcement
    host, _server = await spawn_host(SCRIPT, budgets={"perCaller": {"daily": {"turns": 3}}})
    turn = await host.run_turn("boss", "delegate the heron count", caller="alice")
    assert turn.text == "spawned", turn.error
    [child] = await host.subagents.children(PARENT)
    assert child.caller == "alice"
    final = await host.subagents.wait(child.child_key, timeout=60)
    assert (final.status, final.announced) == ("ok", True)

    day = time.strftime("%Y-%m-%d", time.gmtime())
    (alice,) = await host.store.budget_states([f"caller:alice:day:{day}"])
    assert (alice.spent.turns, alice.reserved.turns) == (3, 0)
    with pytest.raises(BudgetExceededError) as caught:
        await host.run_turn("boss", "one more", caller="alice")
    assert caught.value.key_path == "budgets.perCaller.daily.turns"
    assert (await host.run_turn("boss", "one more")).text == "more"  # no caller: no limit


async def test_a_child_is_refused_when_its_callers_budget_is_spent(spawn_host: Any) -> None:
    host, _server = await spawn_host(SCRIPT, budgets={"perCaller": {"total": {"turns": 1}}})
    turn = await host.run_turn("boss", "delegate the heron count", caller="alice")
    assert turn.text == "spawned", turn.error
    [child] = await host.subagents.children(PARENT)
    final = await host.subagents.wait(child.child_key, timeout=60)
    assert final.status == "error"
    assert final.error is not None and "caller alice's total budget" in final.error
    (alice,) = await host.store.budget_states(["caller:alice:total"])
    assert alice.spent.turns == 1
