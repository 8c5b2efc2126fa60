"""`sessions_spawn` on the built-in runtime against the scripted model server: a fresh
and a forked child run in the background, end, and are announced to the parent (a turn
of the parent with the announcement as its message); the registry in the store shows
them to another host on the same state. The native runtimes as children:
tests/integration/*/test_*_spawn.py."""

from __future__ import annotations

import json
from typing import Any

from clawharness.testing import ScriptedModelServer

PARENT = "agent:main:boss"


def _bodies(server: ScriptedModelServer) -> list[str]:
    return [json.dumps(r.body) for r in server.requests if r.path.endswith("/responses")]


def _spawn(**arguments: Any) -> dict[str, Any]:
    return {"tool_calls": [{"name": "sessions_spawn", "arguments": arguments}]}


FRESH = {"responses": [
    {"match": "^delegate the heron job", **_spawn(task="child task: say heron",
                                                  label="heron")},
    {"match": '"status": "accepted"', "text": "spawned"},
    {"match": "^child task: say heron", "text": "heron done"},
    {"match": r"^\[Subagent\]", "text": "the child said heron done"},
]}


async def test_a_fresh_child_runs_in_the_background_and_is_announced(spawn_host: Any) -> None:
    host, _server = await spawn_host(FRESH)
    turn = await host.run_turn("boss", "delegate the heron job")
    assert (turn.terminal, turn.text) == ("ok", "spawned"), turn.error
    [call] = [c for c in turn.tool_calls if c.tool_name == "sessions_spawn"]
    assert not call.is_error
    [child] = await host.subagents.children(PARENT)
    assert child.child_key.startswith("agent:main:subagent:")
    assert (child.depth, child.context, child.label) == (1, "fresh", "heron")

    final = await host.subagents.wait(child.child_key, timeout=60)
    assert (final.status, final.result, final.announced) == ("ok", "heron done", True)
    # the child's own session: only the task, then its reply
    assert [(e.role, e.text) for e in await host.history(child.child_key)] == [
        ("user", "child task: say heron"), ("assistant", "heron done")]
    # the parent was told, in a turn of its own
    history = await host.history(PARENT)
    announced = [e for e in history if e.role == "user" and e.text.startswith("[Subagent]")]
    assert len(announced) == 1 and "heron done" in announced[0].text
    assert '"heron" completed' in announced[0].text
    assert history[-1].text == "the child said heron done"
    # the spawn's result is OpenClaw's accepted receipt
    result = next(e for e in history if e.role == "toolResult")
    details = result.content["details"]
    assert details["status"] == "accepted" and details["childSessionKey"] == child.child_key
    assert details["runId"] == child.run_id and details["expectsCompletionMessage"] is True


FORK = {"responses": [
    {"match": "^remember: the code word is heron", "text": "noted: heron"},
    {"match": "^ask a forked helper", **_spawn(task="what was the code word?",
                                               context="fork")},
    {"match": '"status": "accepted"', "text": "asked"},
    {"match": "^what was the code word", "text": "it was heron"},
    {"match": r"^\[Subagent\]", "text": "the helper remembered"},
]}


async def test_a_forked_child_starts_with_the_parents_transcript(spawn_host: Any) -> None:
    host, server = await spawn_host(FORK)
    await host.run_turn("boss", "remember: the code word is heron")
    turn = await host.run_turn("boss", "ask a forked helper")
    assert turn.text == "asked", turn.error
    [child] = await host.subagents.children(PARENT)
    final = await host.subagents.wait(child.child_key, timeout=60)
    assert (final.context, final.status, final.result) == ("fork", "ok", "it was heron")
    [request] = [b for b in _bodies(server) if "what was the code word" in b
                 and "accepted" not in b and "[Subagent]" not in b]
    assert "the code word is heron" in request and "noted: heron" in request
    # the copy stops before the spawning call, which had no result when it was taken
    history = [(e.role, e.text) for e in await host.history(child.child_key)]
    assert history[:2] == [("user", "remember: the code word is heron"),
                           ("assistant", "noted: heron")]
    assert history[-2:] == [("user", "what was the code word?"),
                            ("assistant", "it was heron")]
    assert not any(role == "toolResult" for role, _ in history)


async def test_the_registry_survives_a_restart(spawn_host: Any) -> None:
    host, _server = await spawn_host(FRESH)
    await host.run_turn("boss", "delegate the heron job")
    [child] = await host.subagents.children(PARENT)
    await host.subagents.wait(child.child_key, timeout=60)
    await host.close()
    again = await spawn_host.reopen()
    [seen] = await again.subagents.children(PARENT)
    assert (seen.child_key, seen.status, seen.result) == (child.child_key, "ok", "heron done")
    assert await again.subagents.children(PARENT, active=True) == []
