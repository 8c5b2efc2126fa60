"""Turns on one session from two hosts sharing one store (as two processes would): one
writer at a time, each turn with the complete transcript, the wait bounded by config."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from clawharness.attempt.turn import TurnOptions
from clawharness.config.loader import load_config
from clawharness.errors import ConfigError, SessionBusyError
from clawharness.host import Host


def write_config(state: Path, base_url: str, **extra: Any) -> Path:
    """A config beside the one the `scripted_host` fixture writes, for the loader test."""
    path = state / "lease-config.json5"
    path.write_text(json.dumps({
        "models": {"providers": {"scripted": {"baseUrl": base_url, "api": "openai-responses",
                                              "apiKey": "k", "models": [{"id": "m1"}]}}},
        "agents": {"defaults": {"model": "scripted/m1"}}, **extra}))
    return path


def input_texts(body: Any) -> list[str]:
    """The texts of a Responses API request's input messages, in order."""
    out: list[str] = []
    for item in body.get("input") or []:
        content = item.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out.append("".join(b.get("text", "") for b in content if isinstance(b, dict)))
    return out


async def second_host(tmp_path: Path) -> Host:
    host = Host.from_config(tmp_path / "config.json5",
                            env={"CLAWHARNESS_STATE_DIR": str(tmp_path)})
    return await host.start()


async def test_turns_from_two_hosts_alternate_and_each_carries_every_earlier_turn(
        scripted_host: Any, tmp_path: Path) -> None:
    script = {"responses": [{"match": f"^q{i}$", "text": f"a{i}", "delay_ms": 5}
                            for i in range(8)]}
    one, server = await scripted_host(script)
    two = await second_host(tmp_path)
    try:
        results = await asyncio.gather(*(
            (one if i % 2 else two).run_turn("agent:main:shared", f"q{i}") for i in range(8)))
    finally:
        await two.close()
    assert [r.terminal for r in results] == ["ok"] * 8
    entries = await one.history("agent:main:shared")
    assert [e.role for e in entries] == ["user", "assistant"] * 8
    texts = [e.text for e in entries]
    for n, request in enumerate(r for r in server.requests if r.path.endswith("/responses")):
        assert input_texts(request.body) == texts[:2 * n + 1]


async def test_a_turn_sees_what_another_host_wrote_even_at_the_same_seq(
        scripted_host: Any, tmp_path: Path) -> None:
    script = {"responses": [{"match": "^one$", "text": "first"},
                            {"match": "^two$", "text": "second"},
                            {"match": "^three$", "text": "third"}]}
    one, server = await scripted_host(script)
    await one.run_turn("s", "one")  # one's history cache now holds [one, first]
    two = await second_host(tmp_path)
    try:
        await two.rewind_session("s", to_seq=0)
        await two.run_turn("s", "two")  # the same two seqs again, other content
    finally:
        await two.close()
    await one.run_turn("s", "three")
    assert input_texts(server.requests[-1].body) == ["two", "second", "three"]


async def test_a_turn_waits_for_another_hosts_turn_at_most_writer_wait_seconds(
        scripted_host: Any, tmp_path: Path) -> None:
    one, server = await scripted_host(
        {"responses": [{"match": "slow", "text": "done", "delay_ms": 5000},
                       {"match": "quick", "text": "quick"}]},
        sessions={"writerWaitSeconds": 0.3})
    slow = asyncio.create_task(one.run_turn("s", "slow"))
    deadline = asyncio.get_running_loop().time() + 10
    while not server.requests:  # the first turn holds the session and waits on the model
        assert asyncio.get_running_loop().time() < deadline
        await asyncio.sleep(0.005)
    two = await second_host(tmp_path)
    try:
        with pytest.raises(SessionBusyError, match=r"holds its writer lease.*gave up after 0\.3s"):
            await two.run_turn("s", "quick")
        # an explicit bound wins over the configured one
        with pytest.raises(SessionBusyError, match=r"gave up after 0\.05s"):
            await two.run_turn("s", "quick", TurnOptions(busy_timeout=0.05))
    finally:
        await two.close()
    assert (await slow).text == "done"


def test_writer_lease_settings_are_validated_with_their_key_path(tmp_path: Path) -> None:
    for bad in ({"writerLeaseSeconds": 0}, {"writerWaitSeconds": -1},
                {"writerLeaseSeconds": "long"}):
        path = write_config(tmp_path, "http://127.0.0.1:9/v1", sessions=bad)
        with pytest.raises(ConfigError) as info:
            load_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)})
        assert f"sessions.{next(iter(bad))}" in str(info.value)
    path = write_config(tmp_path, "http://127.0.0.1:9/v1",
                        sessions={"writerWaitSeconds": 60, "writerLeaseSeconds": 5})
    sessions = load_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)}).config.sessions
    assert (sessions.writer_wait_seconds, sessions.writer_lease_seconds) == (60, 5)


async def test_a_new_session_started_by_two_hosts_at_once_is_created_once(
        scripted_host: Any, tmp_path: Path) -> None:
    one, server = await scripted_host({"responses": [{"text": "hi", "delay_ms": 5}],
                                       "exhausted": "text"})
    two = await second_host(tmp_path)
    try:
        results = await asyncio.gather(*(h.run_turn("agent:main:fresh", f"m{i}")
                                         for i in range(4) for h in (one, two)))
    finally:
        await two.close()
    assert [r.terminal for r in results] == ["ok"] * 8
    assert len({r.session_id for r in results}) == 1
    roles = [e.role for e in await one.history("agent:main:fresh")]
    assert roles == ["user", "assistant"] * 8
    assert len([r for r in server.requests if r.path.endswith("/responses")]) == 8
