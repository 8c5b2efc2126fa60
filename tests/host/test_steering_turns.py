"""Messages for a session whose turn is running, by queue mode (docs/steering.md): a
steer reaches the running turn's next model call, after the tool results; followup,
collect and interrupt run later turns; every message lands once, in arrival order."""

from __future__ import annotations

import asyncio
from typing import Any

from steering_kit import SlowFiles, input_kinds, model_requests, until_queued

from clawharness.attempt.turn import TurnOptions
from clawharness.tools import ToolBackends

READ = {"tool_calls": [{"name": "read", "arguments": {"path": "notes.txt"}}]}


def slow(files: SlowFiles, **extra: Any) -> TurnOptions:
    return TurnOptions(tool_backends=ToolBackends(files=files), **extra)


async def transcript(host: Any, key: str) -> list[str]:
    kinds = []
    for entry in await host.history(key):
        if entry.role == "toolResult":
            kinds.append("result")
        elif entry.role == "assistant" and "toolCall" in repr(entry.content):
            kinds.append("call")
        else:
            kinds.append(f"{entry.role}:{entry.text}")
    return kinds


async def test_a_steer_reaches_the_next_model_call_after_the_tool_results(
        scripted_host: Any) -> None:
    host, server = await scripted_host({"responses": [
        {"match": "^start$", **READ},
        {"match": "in French", "text": "fini"}]})
    files = SlowFiles()
    first = asyncio.create_task(host.run_turn("s", "start", slow(files)))
    await asyncio.wait_for(files.entered.wait(), 5)
    steer = asyncio.create_task(host.run_turn("s", "answer in French"))
    await until_queued(host, "s", 1)
    files.release.set()
    done, steered = await asyncio.wait_for(asyncio.gather(first, steer), 10)

    requests = model_requests(server)
    assert len(requests) == 2
    assert input_kinds(requests[1].body) == [
        "user:start", "call:read", "result", "user:answer in French"]
    assert done.text == "fini" and done.queue is None
    assert steered.run_id == done.run_id and steered.text == "fini"
    assert steered.queue is not None and steered.queue.to_wire() == {
        "mode": "steer", "carried": "steered"}
    assert await transcript(host, "s") == [
        "user:start", "call", "result", "user:answer in French", "assistant:fini"]


async def test_a_steer_the_turn_never_took_runs_as_the_next_turn(scripted_host: Any) -> None:
    host, server = await scripted_host({"responses": [
        {"match": "^start$", **READ},
        {"match": "notes", "text": "read it"},
        {"match": "^late$", "text": "late answer"}]})
    files = SlowFiles()
    seen: list[str] = []
    first = asyncio.create_task(host.run_turn("s", "start", slow(
        files, on_agent_event=lambda e: seen.append(e.stream))))
    await asyncio.wait_for(files.entered.wait(), 5)
    files.release.set()
    # past the tool boundary: the turn's next (last) model call is made
    async with asyncio.timeout(5):
        while len(model_requests(server)) < 2:
            await asyncio.sleep(0.001)
    late = await asyncio.wait_for(host.run_turn("s", "late"), 10)
    done = await first
    assert done.text == "read it" and "steer" not in seen
    assert late.text == "late answer" and late.run_id != done.run_id
    assert await transcript(host, "s") == [
        "user:start", "call", "result", "assistant:read it", "user:late",
        "assistant:late answer"]


async def test_followups_run_as_their_own_turns_in_arrival_order(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": [
        {"match": "^start$", **READ},
        {"match": "notes", "text": "read it"},
        {"match": "^one$", "text": "first"},
        {"match": "^two$", "text": "second"}]})
    files = SlowFiles()
    first = asyncio.create_task(host.run_turn("s", "start", slow(files)))
    await asyncio.wait_for(files.entered.wait(), 5)
    one = asyncio.create_task(host.run_turn("s", "one", TurnOptions(queue_mode="followup")))
    await until_queued(host, "s", 1)
    # a steer behind a waiting followup does not overtake it
    two = asyncio.create_task(host.run_turn("s", "two"))
    await until_queued(host, "s", 2)
    files.release.set()
    results = await asyncio.wait_for(asyncio.gather(first, one, two), 10)
    assert [r.text for r in results] == ["read it", "first", "second"]
    assert len({r.run_id for r in results}) == 3
    assert [r.queue.mode if r.queue else None for r in results] == [None, "followup", "steer"]
    assert await transcript(host, "s") == [
        "user:start", "call", "result", "assistant:read it",
        "user:one", "assistant:first", "user:two", "assistant:second"]


async def test_collected_messages_become_one_turn(scripted_host: Any) -> None:
    host, server = await scripted_host({"responses": [
        {"match": "^start$", **READ},
        {"match": "notes", "text": "read it"},
        {"match": "two", "text": "both"}]}, agents={"defaults": {
            "model": "scripted/m1", "queue": {"mode": "collect"}}})
    files = SlowFiles()
    first = asyncio.create_task(host.run_turn("s", "start", slow(files)))
    await asyncio.wait_for(files.entered.wait(), 5)
    one = asyncio.create_task(host.run_turn("s", "one"))
    await until_queued(host, "s", 1)
    two = asyncio.create_task(host.run_turn("s", "two"))
    await until_queued(host, "s", 2)
    files.release.set()
    done, a, b = await asyncio.wait_for(asyncio.gather(first, one, two), 10)
    assert a.text == b.text == "both" and a.run_id == b.run_id != done.run_id
    assert a.queue is not None and a.queue.carried is None
    assert b.queue is not None and b.queue.to_wire() == {"mode": "collect",
                                                         "carried": "collected"}
    assert input_kinds(model_requests(server)[-1].body)[-1] == "user:one\n\ntwo"
    assert (await transcript(host, "s"))[-2:] == ["user:one\n\ntwo", "assistant:both"]


async def test_an_interrupt_aborts_the_running_turn_then_runs(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": [
        {"match": "^start$", **READ},
        {"match": "^stop that$", "text": "stopped"}]})
    files = SlowFiles()
    first = asyncio.create_task(host.run_turn("s", "start", slow(files)))
    await asyncio.wait_for(files.entered.wait(), 5)
    stop = await asyncio.wait_for(
        host.run_turn("s", "stop that", TurnOptions(queue_mode="interrupt")), 10)
    done = await first
    assert done.terminal == "aborted"
    assert stop.terminal == "ok" and stop.text == "stopped"
    assert stop.queue is not None and stop.queue.mode == "interrupt"
    kinds = await transcript(host, "s")
    assert kinds[:3] == ["user:start", "call", "result"]  # the cut call is settled
    assert kinds[-2:] == ["user:stop that", "assistant:stopped"]
    assert kinds.count("user:stop that") == 1


async def test_an_agent_can_choose_followup(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": [
        {"match": "^start$", **READ},
        {"match": "notes", "text": "read it"},
        {"match": "^more$", "text": "more answer"}]}, agents={
            "defaults": {"model": "scripted/m1", "queue": {"mode": "steer"}},
            "entries": {"main": {"queue": {"mode": "followup"}}}})
    files = SlowFiles()
    first = asyncio.create_task(host.run_turn("s", "start", slow(files)))
    await asyncio.wait_for(files.entered.wait(), 5)
    more = asyncio.create_task(host.run_turn("s", "more"))
    await until_queued(host, "s", 1)
    files.release.set()
    done, later = await asyncio.wait_for(asyncio.gather(first, more), 10)
    assert done.text == "read it" and later.text == "more answer"
    assert later.queue is not None and later.queue.mode == "followup"
