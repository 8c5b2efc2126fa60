"""The run service every front starts turns on: events in order, one turn per idempotency
key, abort, errors as results, shutdown; over a real host and a scripted model server."""

from __future__ import annotations

import asyncio
from typing import Any

from clawharness.errors import UnknownAgentError
from clawharness.runs import (
    AssistantText,
    RunEnded,
    RunEvent,
    RunOptions,
    RunProgress,
    RunService,
    RunStarted,
)

MAIN = RunOptions(agent_id="main")


async def test_a_run_tells_its_events_in_order_and_ends_with_its_result(
        scripted_host: Any) -> None:
    host, _server = await scripted_host({"responses": [{"text": "hello there, friend"}]})
    heard: list[RunEvent] = []
    runs = RunService(host, listeners=[heard.append])
    run = runs.start("agent:main:a", "hi", MAIN)
    followed = [event async for event in run.events()]
    ended = await run.wait()

    assert ended.ok and ended.result is not None and ended.result.terminal == "ok"
    assert ended.result.text == "hello there, friend"
    assert followed == heard  # the service's listeners and the run's subscribers agree
    assert isinstance(followed[0], RunStarted) and followed[0].data["phase"] == "start"
    assert isinstance(followed[-1], RunEnded) and followed[-1].result is ended
    texts = [e for e in followed if isinstance(e, AssistantText)]
    assert texts and "".join(e.delta for e in texts) == "hello there, friend"
    assert texts[-1].text == run.text == "hello there, friend"
    assert all(isinstance(e, RunProgress) for e in followed[1:-1] if e not in texts)
    assert run.session_id == ended.result.session_id
    assert runs.active_runs() == [] and runs.get(run.run_id) is None  # no key: not kept


async def test_an_idempotency_key_runs_one_turn(scripted_host: Any) -> None:
    host, server = await scripted_host({"responses": [{"text": "once", "delay_ms": 200}]})
    runs = RunService(host)
    options = RunOptions(agent_id="main", kind="chat", idempotency_key="k1")
    first = runs.start("agent:main:b", "hi", options)
    again = runs.start("agent:main:b", "hi", options)
    assert again is first and runs.find("chat", "k1") is first
    assert runs.active_runs("agent:main:b") == [first]
    await first.wait()
    assert runs.start("agent:main:b", "hi", options) is first  # remembered after it ended
    assert runs.get("k1") is first
    assert len(server.requests) == 1
    assert [e.role for e in await host.history("agent:main:b")] == ["user", "assistant"]


async def test_an_aborted_run_ends_aborted_with_its_reason(scripted_host: Any) -> None:
    host, _server = await scripted_host({"responses": [{"text": "too late", "delay_ms": 5000}]})
    runs = RunService(host)
    run = runs.start("agent:main:c", "hi", MAIN)
    started = asyncio.Event()
    run.subscribe(lambda event: started.set() if isinstance(event, RunStarted) else None)
    async with asyncio.timeout(10):
        await started.wait()
        assert runs.abort("agent:main:c", reason="user") == [run.run_id]
        ended = await run.wait()
    assert ended.result is not None and ended.result.terminal == "aborted"
    assert run.abort_reason == "user"


async def test_a_turn_that_raises_ends_with_the_error(scripted_host: Any) -> None:
    host, server = await scripted_host({"responses": [{"text": "never"}]})
    runs = RunService(host)
    run = runs.start("agent:ghost:x", "hi", RunOptions(agent_id="ghost"))
    events = [event async for event in run.events()]
    ended = await run.wait()
    assert ended.result is None and not ended.ok
    assert isinstance(ended.exception, UnknownAgentError)
    assert ended.error_code == "UNAVAILABLE" and "ghost" in (ended.error or "")
    assert [type(e) for e in events] == [RunStarted, RunEnded]
    assert server.requests == []


async def test_shutdown_stops_the_runs_under_way(scripted_host: Any) -> None:
    host, _server = await scripted_host({"responses": [{"text": "slow", "delay_ms": 5000}]})
    finished: list[str] = []

    async def on_finished(run: Any, _result: Any) -> None:
        finished.append(run.run_id)

    runs = RunService(host, on_finished=on_finished)
    run = runs.start("agent:main:d", "hi", MAIN)
    async with asyncio.timeout(10):
        await runs.shutdown()
    ended = await run.wait()
    assert ended.result is not None and ended.result.terminal == "aborted"
    assert run.abort_reason == "restart" and finished == [run.run_id]


async def test_finished_runs_are_forgotten_past_the_window_or_the_count(
        scripted_host: Any) -> None:
    host, server = await scripted_host({"responses": [{"match": ".", "text": "ok",
                                                       "repeat": True}]})
    by_count = RunService(host, dedupe_max=2)
    runs = []
    for key in ("k1", "k2", "k3"):
        run = by_count.start("agent:main:e", "hi", RunOptions(agent_id="main",
                                                              idempotency_key=key))
        await run.wait()
        runs.append(run)
    assert by_count.find("agent", "k1") is None  # the oldest finished run went
    assert [by_count.find("agent", k) for k in ("k2", "k3")] == runs[1:]

    by_age = RunService(host, dedupe_ttl=0.0)
    first = by_age.start("agent:main:f", "hi", RunOptions(agent_id="main",
                                                          idempotency_key="k"))
    assert by_age.find("agent", "k") is first  # remembered while it runs
    await first.wait()
    assert by_age.find("agent", "k") is None  # finished longer ago than the window
    again = by_age.start("agent:main:f", "hi", RunOptions(agent_id="main",
                                                          idempotency_key="k"))
    assert again is not first
    await again.wait()
    assert len(server.requests) == 5
