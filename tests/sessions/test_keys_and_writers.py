from __future__ import annotations

import asyncio

import pytest

from clawharness.errors import InvalidSessionKeyError, SessionBusyError
from clawharness.sessions.keys import normalize_session_key, parse_session_key
from clawharness.sessions.writers import SessionWriters


@pytest.mark.parametrize("key", ["agent:main:main", "agent:codex-only:telegram:group:42",
                                 "agent:a_b:subagent:0f0e-11"])
def test_valid_session_keys_parse(key: str) -> None:
    assert str(parse_session_key(key)) == key


@pytest.mark.parametrize("key", ["main", "agent:Main:x", "agent::x", "agent:main:", "agent:main:has space",
                                 "agent:main:-x", "session:main:x", "agent:main:x:"])
def test_invalid_session_keys_say_what_is_wrong(key: str) -> None:
    with pytest.raises(InvalidSessionKeyError, match="invalid session key"):
        parse_session_key(key)


def test_bare_name_means_the_default_agent() -> None:
    assert normalize_session_key("work") == "agent:main:work"
    assert normalize_session_key("work", default_agent="ops") == "agent:ops:work"
    with pytest.raises(InvalidSessionKeyError):
        normalize_session_key("bad name")


async def test_turns_on_one_session_run_one_at_a_time_in_arrival_order() -> None:
    writers = SessionWriters()
    order: list[int] = []
    inside = 0
    peak = 0

    async def turn(n: int) -> None:
        nonlocal inside, peak
        async with writers.hold("agent:main:main"):
            inside += 1
            peak = max(peak, inside)
            order.append(n)
            await asyncio.sleep(0)
            inside -= 1

    tasks = []
    for n in range(10):
        tasks.append(asyncio.create_task(turn(n)))
        await asyncio.sleep(0)
    await asyncio.gather(*tasks)
    assert order == list(range(10))
    assert peak == 1


async def test_a_caller_that_cannot_get_the_session_in_time_gets_busy() -> None:
    writers = SessionWriters()
    release = asyncio.Event()
    held = asyncio.Event()

    async def holder() -> None:
        async with writers.hold("agent:main:main"):
            held.set()
            await release.wait()

    task = asyncio.create_task(holder())
    await asyncio.wait_for(held.wait(), 5)
    with pytest.raises(SessionBusyError, match="busy"):
        async with writers.hold("agent:main:main", timeout=0.05):
            pass
    async with writers.hold("agent:main:other", timeout=0.05):
        pass  # other sessions are not blocked
    release.set()
    await task
    async with writers.hold("agent:main:main", timeout=1):
        pass
