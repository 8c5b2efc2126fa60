"""Turns through the cluster: a front `Host` with `cluster.url`, real worker processes,
the real Temporal dev server and PostgreSQL."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import psycopg
import pytest
from cluster_rig import PG_URL, ClusterRig

from clawharness.attempt.turn import TurnOptions
from clawharness.cluster.front import ClusterTurnExecutor
from clawharness.errors import SessionBusyError
from clawharness.host import Host
from clawharness.records.turn_result import TurnResult

pytestmark = pytest.mark.integration


async def test_a_front_runs_a_turn_on_a_worker_and_streams_its_reply(make_rig) -> None:
    rig: ClusterRig = make_rig({"responses": [
        {"match": "^hello$", "text": "hi from the cluster, streamed in parts"}]})
    rig.start_worker("w1")
    deltas: list[str] = []
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        result = await front.run_turn("s", "hello", TurnOptions(on_partial_reply=deltas.append))
        assert (result.terminal, result.text) == ("ok", "hi from the cluster, streamed in parts")
        assert result.session_key == "agent:main:s" and result.runtime == "openclaw"
        # partial replies came back from the worker as it streamed, cumulative
        assert deltas and deltas[-1] == result.text
        assert all(b.startswith(a) for a, b in itertools.pairwise(deltas))
        # the transcript is in the shared store, written by the worker
        entries = await front.history("s")
        assert [(e.role, e.text) for e in entries] == [
            ("user", "hello"), ("assistant", "hi from the cluster, streamed in parts")]
        assert entries[0].metadata["runId"] == result.run_id
    # the relay held the turn's events only while it was in flight
    with psycopg.connect(PG_URL) as conn:
        left = conn.execute(f'SELECT count(*) FROM "{rig.schema}".cluster_turn_events '
                            "WHERE turn_id = %s", (result.run_id,)).fetchone()
    assert left == (0,)


async def test_a_front_that_follows_no_partial_replies_gets_none_relayed(make_rig) -> None:
    rig: ClusterRig = make_rig({"responses": [
        {"match": ".", "text": "a reply the worker streams in parts", "repeat": True}]})
    rig.start_worker("w1")
    with psycopg.connect(PG_URL, autocommit=True) as listener:
        listener.execute("LISTEN clawharness_turn_events")
        async with Host.from_config(rig.config_path, env=rig.env()) as front:
            quiet = await front.run_turn("s", "hi", TurnOptions(run_id="turn-quiet"))
            deltas: list[str] = []
            followed = await front.run_turn("s", "hi", TurnOptions(
                run_id="turn-followed", on_partial_reply=deltas.append))
        assert quiet.terminal == followed.terminal == "ok" and deltas
        notes = [n.payload.split(":", 1)[1]
                 for n in listener.notifies(timeout=0.5) if ":" in n.payload]
    # one notification per relayed event: the quiet turn's result only, the followed
    # turn's partial replies before its result
    assert notes.count("turn-quiet") == 1
    assert notes.count("turn-followed") > 1


async def test_a_front_reads_the_relay_once_for_a_turn_with_only_its_result(make_rig) -> None:
    """Subscribed before it submits, a listening front waits for the turn's first row
    instead of reading an empty relay right after the submit."""
    rig: ClusterRig = make_rig({"responses": [{"match": ".", "text": "ok", "repeat": True}]})
    rig.start_worker("w1")
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        await front.run_turn("s", "warm up")  # the relay listens from the first turn on
        executor = front.executor
        assert isinstance(executor, ClusterTurnExecutor)
        relay = executor.relay
        assert relay.listening
        reads: list[str] = []
        read = relay.read

        async def counted(turn_id: str, after: int = 0) -> Any:
            reads.append(turn_id)
            return await read(turn_id, after)

        relay.read = counted  # type: ignore[method-assign]
        result = await front.run_turn("s", "hi", TurnOptions(run_id="turn-read-once"))
    assert result.terminal == "ok" and result.text == "ok"
    assert reads == ["turn-read-once"]


async def test_a_front_signals_a_running_session_and_starts_afresh_one_that_completed(
        make_rig) -> None:
    """Turns of a session whose workflow runs go as plain signals (no start request);
    one whose workflow has completed meanwhile is started again with its turn."""
    from temporalio.client import Client

    from clawharness.cluster.messages import workflow_id_for

    rig: ClusterRig = make_rig({"responses": [{"match": ".", "text": "ok", "repeat": True}]})
    rig.start_worker("w1")
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        assert (await front.run_turn("s", "one")).terminal == "ok"  # starts the workflow
        executor = front.executor
        assert isinstance(executor, ClusterTurnExecutor)
        cluster = executor.client
        assert cluster._client is not None
        temporal = cluster._client
        starts: list[str] = []
        start_workflow = temporal.start_workflow

        async def counted(*args: Any, **kwargs: Any) -> Any:
            starts.append(kwargs["id"])
            return await start_workflow(*args, **kwargs)

        temporal.start_workflow = counted  # type: ignore[method-assign]
        assert (await front.run_turn("s", "two")).terminal == "ok"
        assert starts == []
        workflow_id = workflow_id_for(rig.task_queue, front.session_key("s"))
        other = await Client.connect(rig.temporal.url.removeprefix("temporal://"))
        await other.get_workflow_handle(workflow_id).terminate("the test ends this run")
        third = await front.run_turn("s", "three")
        assert third.terminal == "ok" and starts == [workflow_id]
        assert [e.text for e in await front.history("s") if e.role == "user"] == [
            "one", "two", "three"]


def _message_texts(body: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for item in body.get("messages") or []:
        if item.get("role") not in ("user", "assistant"):
            continue
        content = item.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out.append("".join(b.get("text", "") for b in content if isinstance(b, dict)))
    return out


async def _signalled_requests(rig: ClusterRig, session_key: str) -> list[dict[str, Any]]:
    """The turn requests signalled to the session's workflow, in the order the server
    received them (its history)."""
    from temporalio.client import Client

    from clawharness.cluster.messages import SUBMIT_SIGNAL, workflow_id_for

    client = await Client.connect(rig.temporal.url.removeprefix("temporal://"))
    handle = client.get_workflow_handle(workflow_id_for(rig.task_queue, session_key))
    history = await handle.fetch_history()
    out: list[dict[str, Any]] = []
    for event in history.events:
        signalled = event.workflow_execution_signaled_event_attributes
        if event.HasField("workflow_execution_signaled_event_attributes") and \
                signalled.signal_name == SUBMIT_SIGNAL:  # not a withdrawal
            [request] = await client.data_converter.decode(signalled.input.payloads)
            out.append(request)
    return out


async def _signalled_turns(rig: ClusterRig, session_key: str) -> list[str]:
    """The messages of the turns signalled to the session's workflow, in order."""
    return [r["message"] for r in await _signalled_requests(rig, session_key)]


async def test_eight_turns_from_two_fronts_run_one_at_a_time_in_arrival_order(make_rig) -> None:
    rig: ClusterRig = make_rig({"responses": [
        {"match": f"^m{i}$", "text": f"reply to m{i}", "delay_ms": 30} for i in range(8)]})
    rig.start_worker("w1")
    rig.start_worker("w2")
    async with Host.from_config(rig.config_path, env=rig.env()) as a, \
            Host.from_config(rig.config_path, env=rig.env()) as b:
        fronts = [a, b]
        results = await asyncio.gather(*(fronts[i % 2].run_turn("same", f"m{i}")
                                         for i in range(8)))
        assert [r.terminal for r in results] == ["ok"] * 8
        assert [r.text for r in results] == [f"reply to m{i}" for i in range(8)]
        assert len({r.session_id for r in results}) == 1
        entries = await a.history("same")
    pairs = [(e.role, e.text) for e in entries]
    assert [role for role, _ in pairs] == ["user", "assistant"] * 8
    for (_, prompt), (_, reply) in zip(pairs[::2], pairs[1::2], strict=True):
        assert reply == f"reply to {prompt}"
    # the transcript's order is the order the cluster received the turns
    prompts = [text for role, text in pairs if role == "user"]
    assert prompts == await _signalled_turns(rig, "agent:main:same")
    # and each turn's model request carried every earlier turn, nothing later
    texts = [text for _, text in pairs]
    requests = [_message_texts(r.body) for r in rig.server.requests
                if r.path.endswith("/chat/completions")]
    assert len(requests) == 8
    for n, sent in enumerate(requests):
        assert sent == texts[:2 * n + 1]


def test_clawharness_agent_with_cluster_runs_its_turn_on_a_worker(make_rig) -> None:
    import json
    import subprocess
    import sys

    rig: ClusterRig = make_rig({"responses": [{"match": "^from the cli$", "text": "cli ok"}]})
    rig.start_worker("w1")
    # the config names no cluster: --cluster does
    rig.write_config(cluster={"taskQueue": rig.task_queue, "heartbeatSeconds": 0.5})
    proc = subprocess.run(
        [sys.executable, "-m", "clawharness", "agent", "--config", str(rig.config_path),
         "--cluster", rig.temporal.url, "--session", "cli", "--json", "-m", "from the cli"],
        env=rig.env(), capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert (result["terminal"], result["text"]) == ("ok", "cli ok")
    assert result["sessionKey"] == "agent:main:cli"
    assert result["cluster"]["worker"] == "w1"  # where it ran, for scripts
    # it went through the cluster (an in-process turn would leave no workflow)
    [request] = asyncio.run(_signalled_requests(rig, "agent:main:cli"))
    assert request["message"] == "from the cli"
    # --json prints the result alone, so it asked for no partial replies to be relayed
    assert request["partials"] is False


SLOW_AND_WARM = {"responses": [
    {"match": "^slow", "repeat": True, "delay_ms": 3000, "text": "slow done"},
    {"match": "^warm", "repeat": True, "text": "warm"}]}


async def _turn_holding_a_slot(rig: ClusterRig, front: Host,
                               key: str) -> asyncio.Future[TurnResult]:
    """A slow turn on session `key`, returned once a worker runs it (its lease)."""
    turn = asyncio.ensure_future(front.run_turn(key, f"slow {key}"))
    while not await _lease_taken(rig, f"agent:main:{key}"):
        await asyncio.sleep(0.02)
    return turn


def _placed(result: TurnResult) -> tuple[bool, str]:
    placed = result.cluster
    assert placed is not None and placed.local is not None and placed.worker is not None
    return placed.local, placed.worker


async def test_a_full_worker_sends_a_turn_to_a_peer_with_room_and_keeps_it_when_none_has(
        make_rig) -> None:
    # w1 has one slot and the three sessions' workflows; w2, one slot, starts after and
    # says it has room: a runs in w1, b finds w1 full and goes to w2, c finds both full
    # and waits for w1's slot (queueing it would only bring it back as an activity)
    rig: ClusterRig = make_rig(SLOW_AND_WARM)
    rig.start_worker("w1", max_turns=1)
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        for key in ("a", "b", "c"):  # workflows running on w1, so the turns are signals
            await front.run_turn(key, "warm up")
        rig.start_worker("w2", max_turns=1)
        a = await _turn_holding_a_slot(rig, front, "a")
        b = await _turn_holding_a_slot(rig, front, "b")
        c = await front.run_turn("c", "slow c")
        results = [await a, await b, c]
    assert [r.text for r in results] == ["slow done"] * 3
    assert [_placed(r) for r in results] == [(True, "w1"), (False, "w2"), (True, "w1")]


async def _queues_tried(rig: ClusterRig, session_key: str) -> list[tuple[str, bool]]:
    """The task queues the session's turn activities were scheduled on, and whether
    each timed out, from its workflow's history."""
    handle = await rig.workflow_handle(session_key)
    history = await handle.fetch_history()
    scheduled: dict[int, str] = {}
    timed_out: set[int] = set()
    for event in history.events:
        if event.HasField("activity_task_scheduled_event_attributes"):
            scheduled[event.event_id] = (
                event.activity_task_scheduled_event_attributes.task_queue.name)
        elif event.HasField("activity_task_timed_out_event_attributes"):
            timed_out.add(event.activity_task_timed_out_event_attributes.scheduled_event_id)
    return [(queue, event_id in timed_out) for event_id, queue in sorted(scheduled.items())]


async def test_a_turn_sent_to_a_peer_that_died_after_announcing_room_comes_back(
        make_rig) -> None:
    # w2 says it has room, then is killed before it could say anything else: w1, full,
    # sends b to w2's queue; nobody takes it there, so after rebindSeconds the turn
    # comes back to w1, where its workflow is, and runs there once w1's slot is free
    import os
    import signal

    rig: ClusterRig = make_rig(SLOW_AND_WARM)
    rig.write_config(cluster={"url": rig.temporal.url, "taskQueue": rig.task_queue,
                              "heartbeatSeconds": 0.5, "rebindSeconds": 2})
    rig.start_worker("w1", max_turns=1)
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        for key in ("a", "b"):
            await front.run_turn(key, "warm up")
        w2 = rig.start_worker("w2", max_turns=1)
        os.killpg(w2.pid, signal.SIGKILL)
        w2.wait(timeout=10)
        a = await _turn_holding_a_slot(rig, front, "a")
        b = await front.run_turn("b", "slow b")
        results = [await a, b]
    assert [r.text for r in results] == ["slow done"] * 2, [r.error for r in results]
    assert [_placed(r) for r in results] == [(True, "w1"), (True, "w1")]
    assert await _queues_tried(rig, "agent:main:b") == [(f"{rig.task_queue}@w2", True)]


async def test_a_full_worker_alone_runs_the_turn_itself_when_its_slot_frees(
        make_rig) -> None:
    # no other worker polls: queueing the turn would only bring it back to w1 as an
    # activity, so it waits for w1's slot and runs there as a local activity
    rig: ClusterRig = make_rig(SLOW_AND_WARM)
    rig.start_worker("w1", max_turns=1)
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        for key in ("a", "b"):
            await front.run_turn(key, "warm up")
        began = asyncio.get_running_loop().time()
        first = await _turn_holding_a_slot(rig, front, "a")
        second = await front.run_turn("b", "slow b")
        one = await first
        took = asyncio.get_running_loop().time() - began
    assert (one.text, second.text) == ("slow done", "slow done")
    assert [_placed(r) for r in (one, second)] == [(True, "w1"), (True, "w1")]
    assert took >= 6  # one after the other, in the one slot


async def _lease_taken(rig: ClusterRig, session_key: str) -> bool:
    async with await psycopg.AsyncConnection.connect(PG_URL) as conn:
        cur = await conn.execute(
            f'SELECT count(*) FROM "{rig.schema}".session_leases '
            "WHERE session_key = %s AND token IS NOT NULL", (session_key,))
        row = await cur.fetchone()
    return row is not None and row[0] > 0


#: a turn that answers only after a minute, unless aborted
SLOW = {"match": "^slow$", "delay_ms": 60000, "text": "too late"}


async def _slow_turn_running(rig: ClusterRig, front: Host,
                             abort: asyncio.Event) -> asyncio.Future[TurnResult]:
    """Start the slow turn on session `s` and wait until a worker runs it (its lease)."""
    turn = asyncio.ensure_future(front.run_turn("s", "slow", TurnOptions(abort=abort)))
    while not await _lease_taken(rig, "agent:main:s"):
        await asyncio.sleep(0.02)
    return turn


async def test_an_abort_at_the_front_stops_the_turn_on_its_worker(make_rig) -> None:
    rig: ClusterRig = make_rig({"responses": [
        SLOW,
        {"match": "^queued$", "text": "never said"},
        {"match": "^after$", "text": "after reply"}]})
    rig.start_worker("w1")
    loop = asyncio.get_running_loop()
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        abort, queued_abort = asyncio.Event(), asyncio.Event()
        turn = await _slow_turn_running(rig, front, abort)
        # a turn queued behind it, aborted before it could start
        queued_abort.set()
        queued = asyncio.ensure_future(front.run_turn("s", "queued",
                                                      TurnOptions(abort=queued_abort)))
        asked = loop.time()
        abort.set()
        result = await asyncio.wait_for(turn, 30)
        assert result.terminal == "aborted", result
        assert loop.time() - asked < 15  # not the model's 60 s
        assert (await asyncio.wait_for(queued, 30)).terminal == "aborted"
        after = await front.run_turn("s", "after")
        assert (after.terminal, after.text) == ("ok", "after reply")
        texts = [e.text for e in await front.history("s") if e.role == "assistant"]
    assert "too late" not in texts and "never said" not in texts
    # the worker watches for an abort only where the caller could send one
    requests = await _signalled_requests(rig, "agent:main:s")
    assert [(r["message"], r["abortable"]) for r in requests] == [
        ("slow", True), ("queued", True), ("after", False)]


async def test_a_queued_turn_aborted_at_the_front_reports_aborted_without_waiting(
        make_rig) -> None:
    rig: ClusterRig = make_rig({"responses": [
        SLOW,
        {"match": "^queued$", "text": "never said"}]})
    rig.start_worker("w1")
    loop = asyncio.get_running_loop()
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        slow_abort, queued_abort = asyncio.Event(), asyncio.Event()
        slow = await _slow_turn_running(rig, front, slow_abort)
        queued = asyncio.ensure_future(front.run_turn("s", "queued",
                                                      TurnOptions(abort=queued_abort)))
        # the queued turn is in its session's queue behind the slow one
        handle = await rig.workflow_handle("agent:main:s")
        while len(await handle.query("pending_turns")) != 1:
            await asyncio.sleep(0.05)
        asked = loop.time()
        queued_abort.set()
        result = await asyncio.wait_for(queued, 30)
        assert result.terminal == "aborted" and result.cluster is not None \
            and result.cluster.withdrawn
        assert loop.time() - asked < 10  # not after the slow turn's 60 s
        assert not slow.done()  # the turn ahead of it runs on
        assert await handle.query("pending_turns") == []
        slow_abort.set()
        assert (await asyncio.wait_for(slow, 30)).terminal == "aborted"
        texts = [e.text for e in await front.history("s")]
    # the withdrawn turn never reached the model nor the transcript
    assert "queued" not in texts
    assert all("queued" not in str(request) for request in rig.server.requests)


async def test_a_turn_queued_past_its_busy_timeout_gives_up_as_a_busy_session(
        make_rig) -> None:
    rig: ClusterRig = make_rig({"responses": [
        SLOW,
        {"match": "^behind$", "text": "never said"}]})
    rig.start_worker("w1")
    loop = asyncio.get_running_loop()
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        slow_abort = asyncio.Event()
        slow = await _slow_turn_running(rig, front, slow_abort)
        began = loop.time()
        with pytest.raises(SessionBusyError, match=r"waited 1s in its queue"):
            await front.run_turn("s", "behind", TurnOptions(busy_timeout=1.0))
        assert 1.0 <= loop.time() - began < 10
        assert not slow.done()  # the turn ahead runs on
        slow_abort.set()
        assert (await asyncio.wait_for(slow, 30)).terminal == "aborted"
        texts = [e.text for e in await front.history("s")]
    assert "behind" not in texts
    assert all("behind" not in str(request) for request in rig.server.requests)


async def test_a_messages_thinking_level_reaches_the_workers_model_request(make_rig) -> None:
    rig: ClusterRig = make_rig({"responses": [{"match": "^hello$", "text": "thought it over"}]})
    rig.start_worker("w1")
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        result = await front.run_turn("s", "hello", TurnOptions(thinking="low"))
        assert (result.terminal, result.text) == ("ok", "thought it over")
    assert rig.server.requests[-1].to_json()["body"]["reasoning_effort"] == "low"
