"""The queue mode of a message for a busy session: where it comes from (the message, the
agent, the defaults, OpenClaw's `steer`) and what it does (docs/steering.md)."""

from __future__ import annotations

import asyncio

import pytest

from clawharness.config.loader import parse_config
from clawharness.errors import ConfigError
from clawharness.records.turn_result import (
    QueueDelivery,
    TurnResult,
    turn_result_from_wire,
    turn_result_to_wire,
)
from clawharness.sessions.queue import (
    QUEUE_MODES,
    SessionQueues,
    Steering,
    collected_message,
    decide,
    next_batch,
    parse_queue_mode,
    resolve_queue_mode,
)


def test_the_modes_are_openclaws_and_steer_is_the_default() -> None:
    config, _ = parse_config({})
    assert QUEUE_MODES == ("steer", "followup", "collect", "interrupt")
    assert resolve_queue_mode(config, "main") == "steer"


def test_the_message_beats_the_agent_which_beats_the_defaults() -> None:
    config, _ = parse_config({"agents": {"defaults": {"queue": {"mode": "collect"}},
                                      "entries": {"ops": {"queue": {"mode": "interrupt"}}}}})
    assert resolve_queue_mode(config, "main") == "collect"
    assert resolve_queue_mode(config, "ops") == "interrupt"
    assert resolve_queue_mode(config, "ops", "followup") == "followup"


def test_an_unknown_mode_is_refused_in_config_and_in_a_request() -> None:
    with pytest.raises(ConfigError):
        parse_config({"agents": {"defaults": {"queue": {"mode": "steer-backlog"}}}})
    with pytest.raises(ConfigError, match="unknown queue mode"):
        parse_queue_mode("later")
    assert parse_queue_mode(None) is None and parse_queue_mode("") is None
    assert parse_queue_mode("collect") == "collect"


@pytest.mark.parametrize(("mode", "running", "waiting", "action"), [
    ("steer", False, 0, "run"),
    ("interrupt", False, 0, "run"),
    ("steer", True, 0, "steer"),
    ("steer", True, 1, "wait"),  # never overtakes a waiting message
    ("followup", True, 0, "wait"),
    ("collect", True, 0, "wait"),
    ("interrupt", True, 2, "interrupt"),
])
def test_what_an_arriving_message_does(mode: str, running: bool, waiting: int,
                                       action: str) -> None:
    assert decide(mode, running=running, waiting=waiting) == action  # type: ignore[arg-type]


def test_a_collect_message_takes_the_collect_messages_right_behind_it() -> None:
    assert next_batch([]) == 0
    assert next_batch(["followup", "collect"]) == 1
    assert next_batch(["collect", "collect", "steer", "collect"]) == 2
    assert collected_message(["a"]) == "a"
    assert collected_message(["a", "b"]) == "a\n\nb"


def test_the_delivery_travels_in_the_turn_results_json() -> None:
    result = TurnResult(session_key="agent:main:s", session_id="x", run_id="r",
                        runtime="openclaw", selected_reason="default", terminal="ok",
                        text="hi", queue=QueueDelivery("steer", "steered"))
    wire = turn_result_to_wire(result)
    assert wire["queue"] == {"mode": "steer", "carried": "steered"}
    assert turn_result_from_wire(wire).queue == result.queue
    assert "queue" not in turn_result_to_wire(
        TurnResult(session_key="k", session_id="x", run_id="r", runtime="openclaw",
                   selected_reason="default", terminal="ok", text=""))


async def test_a_waiting_caller_that_goes_away_leaves_no_message_behind() -> None:
    queues: SessionQueues[str] = SessionQueues()
    release = asyncio.Event()

    async def slow(text: str, steering: Steering) -> str:
        await release.wait()
        return text

    async def quick(text: str, steering: Steering) -> str:
        return text

    first = asyncio.create_task(queues.submit("k", "one", "followup", slow))
    await asyncio.sleep(0)
    gone = asyncio.create_task(queues.submit("k", "two", "followup", quick))
    kept = asyncio.create_task(queues.submit("k", "three", "followup", quick))
    async with asyncio.timeout(5):
        while queues.waiting("k") < 2:
            await asyncio.sleep(0)
    gone.cancel()
    with pytest.raises(asyncio.CancelledError):
        await gone
    assert queues.waiting("k") == 1
    release.set()
    assert (await first).result == "one" and (await kept).result == "three"
    assert not queues.running("k") and queues.waiting("k") == 0


async def test_a_steer_the_runtime_refused_runs_as_the_next_turn() -> None:
    queues: SessionQueues[str] = SessionQueues()
    boundary = asyncio.Event()
    ran: list[str] = []

    async def turn(text: str, steering: Steering) -> str:
        ran.append(text)
        if text == "first":
            await boundary.wait()
            taken = await steering.take()
            assert list(taken) == ["steer me"]
            await steering.untake(taken)  # the runtime said no
        return f"done {text}"

    first = asyncio.create_task(queues.submit("k", "first", "steer", turn))
    await asyncio.sleep(0)
    steered = asyncio.create_task(queues.submit("k", "steer me", "steer", turn))
    async with asyncio.timeout(5):
        while queues.waiting("k") < 1:
            await asyncio.sleep(0)
    boundary.set()
    done, later = await asyncio.gather(first, steered)
    assert ran == ["first", "steer me"] and done.result == "done first"
    assert later.result == "done steer me" and later.carried is None and later.mode == "steer"
