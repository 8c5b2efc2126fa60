"""The app-server client against a tiny fake app-server speaking the JSON-lines protocol."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from clawharness.harnesses.codex.client import NO_RESPONSE, AppServerClient
from clawharness.harnesses.codex.errors import (
    CodexProcessExitedError,
    CodexRequestError,
    CodexRequestTimeoutError,
    CodexVersionError,
)
from clawharness.harnesses.codex.protocol import Notification, Request
from clawharness.plugin_sdk.agent_harness_runtime import AgentHarnessPreflightError

FAKE = Path(__file__).with_name("fake_codex_app_server.py")

Spawn = Callable[..., Any]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # a zombie is dead for our purposes
    try:
        with open(f"/proc/{pid}/stat") as fh:
            return fh.read().split()[2] != "Z"
    except FileNotFoundError:
        return False


@pytest.fixture
async def spawn(tmp_path: Path) -> AsyncIterator[Spawn]:
    clients: list[AppServerClient] = []

    async def start(**env: str) -> AppServerClient:
        full = {"PATH": os.environ["PATH"], "FAKE_LOG": str(tmp_path / "received.jsonl"), **env}
        client = await AppServerClient.spawn([sys.executable, str(FAKE)], env=full,
                                             label="fake", request_timeout=5)
        clients.append(client)
        return client

    yield start
    for client in clients:
        await client.close(grace=1, term_grace=1)
        assert not _alive(client.pid)


def _received(tmp_path: Path) -> list[str]:
    path = tmp_path / "received.jsonl"
    if not path.exists():
        return []
    return [json.loads(line).get("method") for line in path.read_text().splitlines()]


class Recorder:
    def __init__(self) -> None:
        self.notes: list[Notification] = []
        self.closed: list[CodexProcessExitedError] = []
        self.requests: list[Request] = []
        self.answer: Any = {"decision": "accept"}
        self.got = asyncio.Event()

    def on_notification(self, note: Notification) -> None:
        self.notes.append(note)
        if note.method == "turn/completed":
            self.got.set()

    async def on_request(self, request: Request) -> Any:
        self.requests.append(request)
        return self.answer

    def on_closed(self, error: CodexProcessExitedError) -> None:
        self.closed.append(error)
        self.got.set()


async def test_handshake_reads_the_version_and_sends_initialized(
        spawn: Spawn, tmp_path: Path) -> None:
    client = await spawn(FAKE_USER_AGENT="clawharness/0.169.0 (Debian 12; x86_64) t (x; 1)")
    identity = await client.initialize("1.0")
    assert identity.server_version == "0.169.0"
    assert identity.codex_home == "/fake"
    assert identity.warning is None
    await client.request("echo", {})  # the fake handles lines in order: initialized is logged
    assert _received(tmp_path) == ["initialize", "initialized", "echo"]


async def test_a_server_older_than_the_minimum_is_refused_before_any_thread(
        spawn: Spawn, tmp_path: Path) -> None:
    client = await spawn(FAKE_USER_AGENT="clawharness/0.118.0 (Debian 12; x86_64)")
    with pytest.raises(CodexVersionError, match=r"0\.118\.0 is older than the minimum") as info:
        await client.initialize("1.0", min_version="0.149.0")
    assert isinstance(info.value, AgentHarnessPreflightError)
    assert info.value.scope == "harness"
    assert _received(tmp_path) == ["initialize"]  # not even `initialized`


async def test_an_unversioned_server_is_refused(spawn: Spawn, tmp_path: Path) -> None:
    client = await spawn(FAKE_USER_AGENT="-")
    with pytest.raises(CodexVersionError, match="did not report a version"):
        await client.initialize("1.0")
    assert _received(tmp_path) == ["initialize"]


async def test_a_malformed_version_is_refused(spawn: Spawn) -> None:
    client = await spawn(FAKE_USER_AGENT="clawharness/latest (Debian)")
    with pytest.raises(CodexVersionError, match="malformed version 'latest'"):
        await client.initialize("1.0")


async def test_a_newer_than_validated_server_only_warns(
        spawn: Spawn, caplog: pytest.LogCaptureFixture) -> None:
    client = await spawn(FAKE_USER_AGENT="clawharness/0.999.1 (Debian)")
    identity = await client.initialize("1.0", max_validated_version="0.169.0")
    assert identity.server_version == "0.999.1"
    assert identity.warning and "newer than the newest validated" in identity.warning
    assert "newer than the newest validated" in caplog.text
    assert await client.request("echo", {"still": "works"}) == {"still": "works"}


async def test_answers_are_matched_to_requests_even_out_of_order(spawn: Spawn) -> None:
    client = await spawn()
    await client.initialize("1.0")
    slow = asyncio.create_task(client.request("slow", {"tag": "A", "delay": 0.3}))
    fast = asyncio.create_task(client.request("slow", {"tag": "B", "delay": 0.0}))
    echo = await client.request("echo", {"n": 1})
    done, _ = await asyncio.wait({slow, fast}, return_when=asyncio.FIRST_COMPLETED)
    assert fast in done and slow not in done
    assert echo == {"n": 1}
    assert fast.result() == {"slow": "B"}
    assert await slow == {"slow": "A"}


async def test_an_error_answer_raises_with_the_server_message(spawn: Spawn) -> None:
    client = await spawn()
    await client.initialize("1.0")
    with pytest.raises(CodexRequestError, match="unknown method nope") as info:
        await client.request("nope", {})
    assert info.value.error_code == -32600


async def test_a_request_without_an_answer_times_out(spawn: Spawn) -> None:
    client = await spawn()
    await client.initialize("1.0")
    with pytest.raises(CodexRequestTimeoutError, match=r"slow got no answer within 0\.1 s"):
        await client.request("slow", {"delay": 5}, timeout=0.1)
    assert await client.request("echo", {"ok": True}) == {"ok": True}


async def test_notifications_are_routed_per_thread_and_unknown_ones_ignored(
        spawn: Spawn) -> None:
    client = await spawn()
    await client.initialize("1.0")
    seen_globally: list[str] = []
    client.add_listener(lambda note: seen_globally.append(note.method))
    threads = []
    recorders = []
    for _ in range(2):
        started = await client.request("thread/start", {})
        thread_id = started["thread"]["id"]
        recorder = Recorder()
        client.subscribe(thread_id, recorder)
        threads.append(thread_id)
        recorders.append(recorder)
    for thread_id, word in zip(threads, ("one", "two"), strict=True):
        await client.request("turn/start", {"threadId": thread_id,
                                            "input": [{"type": "text", "text": word}]})
    for recorder in recorders:
        await asyncio.wait_for(recorder.got.wait(), 5)
    for recorder, thread_id, word in zip(recorders, threads, ("one", "two"), strict=True):
        assert all(n.params.get("threadId", n.params.get("thread", {}).get("id")) == thread_id
                   for n in recorder.notes)
        deltas = "".join(n.params["delta"] for n in recorder.notes
                         if n.method == "item/agentMessage/delta")
        assert deltas == f"echo: {word}"
    assert "some/unknown/notification" in seen_globally


async def test_server_requests_reach_the_thread_listener_and_are_answered(
        spawn: Spawn) -> None:
    client = await spawn()
    await client.initialize("1.0")
    recorder = Recorder()
    client.subscribe("t-1", recorder)
    answer = await client.request("ask", {"method": "item/commandExecution/requestApproval",
                                          "params": {"threadId": "t-1", "turnId": "u"}})
    assert answer["answer"]["result"] == {"decision": "accept"}
    assert recorder.requests[0].method == "item/commandExecution/requestApproval"


async def test_an_unhandled_server_request_gets_an_error_answer(spawn: Spawn) -> None:
    client = await spawn()
    await client.initialize("1.0")
    answer = await client.request("ask", {"method": "item/tool/requestUserInput",
                                          "params": {"threadId": "nobody"}})
    assert answer["answer"]["error"]["code"] == -32601
    assert "not handled" in answer["answer"]["error"]["message"]


async def test_a_listener_may_leave_a_request_unanswered(spawn: Spawn) -> None:
    client = await spawn(FAKE_ASK_WAIT="0.5")
    await client.initialize("1.0")
    recorder = Recorder()
    recorder.answer = NO_RESPONSE
    client.subscribe("t-1", recorder)
    answer = await client.request("ask", {"method": "item/fileChange/requestApproval",
                                          "params": {"threadId": "t-1"}}, timeout=15)
    # the fake gives up waiting after FAKE_ASK_WAIT and reports that nobody answered
    assert answer["answer"] == {"error": {"message": "no answer"}}
    assert len(recorder.requests) == 1


async def test_a_crash_fails_pending_requests_and_listeners_with_a_clear_error(
        spawn: Spawn) -> None:
    client = await spawn(FAKE_CRASH_ON="boom")
    await client.initialize("1.0")
    recorder = Recorder()
    client.subscribe("t-1", recorder)
    exits: list[CodexProcessExitedError] = []
    client.on_exit(exits.append)
    pending = asyncio.create_task(client.request("slow", {"delay": 30}))
    await asyncio.sleep(0)
    with pytest.raises(CodexProcessExitedError, match="exited with code 3") as info:
        await client.request("boom", {})
    assert "simulated crash on boom" in str(info.value)
    with pytest.raises(CodexProcessExitedError):
        await pending
    assert recorder.closed and recorder.closed[0] is info.value
    assert exits == [info.value]
    assert client.closed
    with pytest.raises(CodexProcessExitedError):
        await client.request("echo", {})


async def test_close_escalates_to_sigkill_and_leaves_no_process(spawn: Spawn) -> None:
    client = await spawn(FAKE_IGNORE_STDIN_EOF="1", FAKE_IGNORE_SIGTERM="1")
    await client.initialize("1.0")
    pending = asyncio.create_task(client.request("slow", {"delay": 30}))
    await asyncio.sleep(0)
    await client.close(grace=0.2, term_grace=0.2)
    assert not _alive(client.pid)
    assert client.process.returncode == -9
    with pytest.raises(CodexProcessExitedError, match="was closed"):
        await pending


async def test_close_by_stdin_is_clean(spawn: Spawn) -> None:
    client = await spawn()
    await client.initialize("1.0")
    await client.close()
    assert client.process.returncode == 0
