"""A `steer` message for a session whose turn runs on a cluster worker: its workflow
offers it in the store's steering inbox, the running turn takes it at its next tool
boundary, and the message's own turn settles the offer (taken: it answers with the
running turn's reply, nothing runs twice). A turn that ends without another tool
boundary leaves the offer untaken: the message then runs as the next turn. Real Temporal
dev server, a real worker process, PostgreSQL (docs/steering.md, "On a cluster")."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from cluster_rig import ClusterRig

from clawharness.attempt.turn import TurnOptions
from clawharness.host import Host
from clawharness.records.turn_result import QueueDelivery
from clawharness.sessions.steering_inbox import NAMESPACE
from clawharness.store import open_store

pytestmark = pytest.mark.integration

READ = {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]}


async def _offers(rig: ClusterRig) -> list[Any]:
    store = open_store(rig.store_url)
    await store.open()
    try:
        return list(await store.state_list(NAMESPACE))
    finally:
        await store.close()


async def _until_offered(rig: ClusterRig) -> None:
    """Wait until the workflow has offered the steer message in the store."""
    async with asyncio.timeout(60):
        while not await _offers(rig):
            await asyncio.sleep(0.05)


async def _until_asked(rig: ClusterRig, count: int) -> None:
    async with asyncio.timeout(60):
        while len(rig.server.requests) < count:
            await asyncio.sleep(0.02)


def _user_texts(body: dict[str, Any]) -> list[str]:
    return [m["content"] if isinstance(m["content"], str) else
            "".join(b.get("text", "") for b in m["content"])
            for m in body.get("messages") or [] if m.get("role") == "user"]


async def test_a_steer_reaches_the_turn_running_on_a_worker(make_rig) -> None:
    rig: ClusterRig = make_rig({"responses": [
        {"match": "^start$", **READ},
        {"match": "steered in", "text": "took both"}]})
    (rig.root / "ws").mkdir(exist_ok=True)
    (rig.root / "ws" / "notes.txt").write_text("the notes\n")
    released = rig.server.hold("^start$")
    rig.start_worker("w1")
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        first = asyncio.ensure_future(front.run_turn("s", "start"))
        await _until_asked(rig, 1)  # the worker's turn holds the session, its model asked
        steer = asyncio.ensure_future(front.run_turn("s", "steered in"))
        await _until_offered(rig)
        released.set()  # the turn reads the file, then takes the steer at the boundary
        done = await asyncio.wait_for(first, 60)
        steered = await asyncio.wait_for(steer, 60)
        users = [e.text for e in await front.history("s") if e.role == "user"]
    assert done.terminal == "ok" and done.text == "took both"
    assert steered.run_id == done.run_id and steered.text == "took both"
    assert steered.queue == QueueDelivery("steer", "steered")
    assert users == ["start", "steered in"]
    requests = rig.server.requests
    assert len(requests) == 2  # one turn: the read, then the answer to both
    assert _user_texts(requests[1].body) == ["start", "steered in"]
    assert await _offers(rig) == []
    # the run (an offer made from the submit signal) replays deterministically
    from temporalio.worker import Replayer

    from clawharness.worker.workflow import SessionWorkflow

    handle = await rig.workflow_handle("agent:main:s")
    await Replayer(workflows=[SessionWorkflow]).replay_workflow(await handle.fetch_history())


async def test_a_steer_the_running_turn_never_took_runs_as_the_next_turn(make_rig) -> None:
    rig: ClusterRig = make_rig({"responses": [
        {"match": "^plain$", "text": "plain answer"},
        {"match": "^steered in$", "text": "its own answer"}]})
    released = rig.server.hold("^plain$")
    rig.start_worker("w1")
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        first = asyncio.ensure_future(front.run_turn("s", "plain"))
        await _until_asked(rig, 1)
        steer = asyncio.ensure_future(front.run_turn("s", "steered in"))
        await _until_offered(rig)
        released.set()  # the turn answers with no tool round: no boundary to take it at
        done = await asyncio.wait_for(first, 60)
        alone = await asyncio.wait_for(steer, 60)
        users = [e.text for e in await front.history("s") if e.role == "user"]
    assert (done.text, alone.text) == ("plain answer", "its own answer")
    assert alone.run_id != done.run_id and alone.queue is None
    assert users == ["plain", "steered in"]
    assert _user_texts(rig.server.requests[1].body) == ["plain", "steered in"]
    assert await _offers(rig) == []


async def test_an_interrupt_stops_the_turn_running_on_a_worker(make_rig) -> None:
    rig: ClusterRig = make_rig({"responses": [
        {"match": "^start$", **READ},
        {"match": "^stop, do this instead$", "text": "interrupting answer"},
        {"match": "the notes", "text": "the interrupted turn went on"}]})
    (rig.root / "ws").mkdir(exist_ok=True)
    (rig.root / "ws" / "notes.txt").write_text("the notes\n")
    released = rig.server.hold("^start$")
    rig.start_worker("w1")
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        first = asyncio.ensure_future(front.run_turn("s", "start"))
        await _until_asked(rig, 1)
        other = asyncio.ensure_future(front.run_turn(
            "s", "stop, do this instead", TurnOptions(queue_mode="interrupt")))
        await _until_offered(rig)  # addressed to the running turn's lease
        released.set()  # the turn reads the file and stops at the boundary
        stopped = await asyncio.wait_for(first, 60)
        after = await asyncio.wait_for(other, 60)
        history = await front.history("s")
    assert stopped.terminal == "aborted"
    assert (after.terminal, after.text) == ("ok", "interrupting answer")
    assert after.run_id != stopped.run_id
    assert [e.text for e in history if e.role == "user"] == ["start", "stop, do this instead"]
    assert "the interrupted turn went on" not in [e.text for e in history]
    requests = rig.server.requests
    assert len(requests) == 2  # the stopped turn made no model call after its tool
    assert _user_texts(requests[1].body) == ["start", "stop, do this instead"]
    assert await _offers(rig) == []
