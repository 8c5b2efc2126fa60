"""The session workflow continues as new to keep its history bounded, carrying the
turns still queued, and the session goes on in order across the runs."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import pytest
from cluster_rig import ClusterRig
from temporalio.client import Client

from clawharness.cluster.events import TurnEventRelay
from clawharness.cluster.messages import (
    SUBMIT_SIGNAL,
    WORKFLOW_TYPE,
    SessionWorkflowInput,
    TurnRequest,
    workflow_id_for,
)
from clawharness.host import Host

pytestmark = pytest.mark.integration


@contextlib.asynccontextmanager
async def _client_and_relay(rig: ClusterRig) -> AsyncIterator[tuple[Client, TurnEventRelay]]:
    """A Temporal client on the rig's server, and the relay the turns' results come on."""
    client = await Client.connect(rig.temporal.url.removeprefix("temporal://"))
    relay = TurnEventRelay(rig.store_url)
    await relay.open()
    try:
        yield client, relay
    finally:
        await relay.close()


async def test_the_workflow_continues_as_new_and_keeps_the_queue_in_order(make_rig) -> None:
    rig: ClusterRig = make_rig({"responses": [
        {"match": f"^t{i}$", "text": f"reply {i}", "delay_ms": 50} for i in range(5)]})
    rig.start_worker("w1")
    key = "agent:main:chain"
    async with _client_and_relay(rig) as (client, relay):
        for i in range(5):  # all queued at once: most wait while the runs roll over
            await client.start_workflow(
                WORKFLOW_TYPE, SessionWorkflowInput(key, heartbeat_seconds=0.5,
                                                    turns_per_run=2),
                id=workflow_id_for(rig.task_queue, key), task_queue=rig.task_queue,
                start_signal=SUBMIT_SIGNAL,
                start_signal_args=[TurnRequest(turn_id=f"turn-{i}", session_key=key,
                                               message=f"t{i}")])
        async with asyncio.timeout(90):
            while True:
                done = [bool([e for e in await relay.read(f"turn-{i}") if e.kind == "result"])
                        for i in range(5)]
                if all(done):
                    break
                await asyncio.sleep(0.1)
        handle = client.get_workflow_handle(workflow_id_for(rig.task_queue, key))
        # 5 turns at 2 per run: the current run is the third, continued from the second
        # with the 4 turns run so far (and whatever was still queued)
        history = await handle.fetch_history()
        started = history.events[0].workflow_execution_started_event_attributes
        assert started.continued_execution_run_id
        [carried] = await client.data_converter.decode(started.input.payloads)
        assert carried["turns_run"] == 4 and carried["turns_per_run"] == 2
    async with Host.from_config(rig.config_path, env=rig.env(), in_process=True) as host:
        entries = await host.history(key)
    assert [(e.role, e.text) for e in entries] == [
        pair for i in range(5) for pair in (("user", f"t{i}"), ("assistant", f"reply {i}"))]


async def test_an_idle_workflow_completes_but_never_under_a_running_turn(make_rig) -> None:
    from temporalio.worker import Replayer

    from clawharness.worker.runner import sandboxed_runner
    from clawharness.worker.workflow import SessionWorkflow

    rig: ClusterRig = make_rig({"responses": [
        {"match": "^long$", "text": "long done", "delay_ms": 2500}]})
    rig.start_worker("w1")
    key = "agent:main:idle"
    async with _client_and_relay(rig) as (client, relay):
        # a turn longer than two idle periods: the clock must not end the workflow
        handle = await client.start_workflow(
            WORKFLOW_TYPE, SessionWorkflowInput(key, heartbeat_seconds=0.5, idle_seconds=1.0),
            id=workflow_id_for(rig.task_queue, key), task_queue=rig.task_queue,
            start_signal=SUBMIT_SIGNAL,
            start_signal_args=[TurnRequest(turn_id="turn-long", session_key=key,
                                           message="long")])
        async with asyncio.timeout(30):
            assert await handle.result() == 1  # completed, idle, after its one turn
        results = [e for e in await relay.read("turn-long") if e.kind == "result"]
        assert [r.payload["text"] for r in results] == ["long done"]
        # the run replays deterministically from its history (the sandboxed code as is),
        # under the SDK's own sandboxed runner and under the one the workers use
        history = await handle.fetch_history()
        await Replayer(workflows=[SessionWorkflow]).replay_workflow(history)
        await Replayer(workflows=[SessionWorkflow],
                       workflow_runner=sandboxed_runner(client.data_converter)
                       ).replay_workflow(history)
