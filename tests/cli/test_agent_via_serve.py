"""`clawharness agent` through a running `clawharness serve` (docs/cli.md, "agent and a
running serve"): a real `serve` process on a real port, the real CLI as a process.

Which process ran a turn is told by the server: an observer connection subscribed to the
server's sessions sees the `agent` events of every turn the server runs, and none of a
turn run embedded (the store is shared, so it cannot tell). A turn through the server
therefore shows up there; for one that must not, a marker turn is sent to the server
after it: the observer's events come in order, so once the marker's arrive, any of the
other turn would have too.
"""

from __future__ import annotations

import asyncio
import json
import os
import pty
import select
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from clawharness._serve_record import ServeRecord, read_record, record_path, write_record
from clawharness.cli.via_serve import AgentRequest, parse_agent_argv
from clawharness.gateway.client import GatewayClient
from clawharness.testing import ScriptedModelServer

TOKEN = "via-serve-token-8f3a"
SCRIPT = {"responses": [{"match": "hello", "repeat": True, "text": "Hello from the script."}]}
SRC = Path(__file__).resolve().parents[2] / "src"


def base_env(state: Path, config: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("CLAWHARNESS_", "OPENCLAW_"))}
    env.update(CLAWHARNESS_STATE_DIR=str(state), CLAWHARNESS_CONFIG=str(config),
               PYTHONPATH=str(SRC), NO_COLOR="1", HOME=str(state.parent))
    return env


def write_config(folder: Path, base_url: str, tools: dict[str, Any] | None = None,
                 budgets: dict[str, Any] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "config.json"
    config: dict[str, Any] = {
        "models": {"providers": {"scripted": {
            "baseUrl": base_url, "api": "openai-responses", "apiKey": "offline",
            "models": [{"id": "m"}]}}},
        "agents": {"defaults": {"model": "scripted/m", "workspace": str(folder / "ws")}},
        "store": {"url": str(folder / "state.db")},
        "gateway": {"auth": {"mode": "token", "token": TOKEN}},
    }
    if tools is not None:
        config["tools"] = tools
    if budgets is not None:
        config["budgets"] = budgets
    path.write_text(json.dumps(config))
    return path


@dataclass
class Serve:
    proc: subprocess.Popen[str]
    url: str
    state: Path
    config: Path
    env: dict[str, str]

    def stop(self) -> int:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
        try:
            return self.proc.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            return self.proc.wait(10)


def start_serve(folder: Path, base_url: str, timeout: float = 120,
                tools: dict[str, Any] | None = None,
                budgets: dict[str, Any] | None = None) -> Serve:
    config = write_config(folder, base_url, tools, budgets)
    state = folder / "state"
    env = base_env(state, config)
    proc = subprocess.Popen([sys.executable, "-m", "clawharness", "serve", "--port", "0"],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    seen = []
    while True:
        left = deadline - time.monotonic()
        ready, _, _ = select.select([proc.stdout], [], [], max(left, 0))
        if not ready:
            proc.kill()
            raise AssertionError(f"serve not listening in {timeout}s: {seen}")
        line = proc.stdout.readline()
        if not line:
            raise AssertionError(f"serve exited {proc.wait()}: {seen}")
        seen.append(line)
        if line.startswith("listening ws://"):
            return Serve(proc, line.split()[1], state, config, env)


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedModelServer]:
    server = ScriptedModelServer(dict(SCRIPT))
    with server.run_in_thread():
        yield server


@pytest.fixture(scope="module")
def serve(model: ScriptedModelServer, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Serve]:
    running = start_serve(tmp_path_factory.mktemp("via-serve"), model.base_url_openai)
    try:
        yield running
    finally:
        running.stop()


async def agent(env: dict[str, str], *args: str) -> tuple[int, str, str]:
    """`clawharness agent ARGS` as a process: (exit code, stdout, stderr)."""
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "clawharness", "agent", *args, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 180)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


class Observer:
    """A connection subscribed to the server's sessions: the session keys of the turns
    the server runs, in the order their events come."""

    def __init__(self, client: GatewayClient) -> None:
        self.client = client
        self.queue = client.events()
        self.seen: set[str] = set()

    async def saw(self, key: str, timeout: float = 60) -> bool:
        """Whether the server ran a turn of `key`: waits for its events until the marker
        turn's (sent now) arrive."""
        if key in self.seen:
            return True
        marker = f"agent:main:marker-{time.monotonic_ns()}"
        await self.client.agent("hello", sessionKey=marker, timeout=timeout)
        async with asyncio.timeout(timeout):
            while marker not in self.seen:
                frame = await self.queue.get()
                payload = frame.get("payload") or {}
                if frame.get("event") == "agent" and isinstance(payload.get("sessionKey"), str):
                    self.seen.add(payload["sessionKey"])
        return key in self.seen


async def observer(serve: Serve) -> GatewayClient:
    client = await GatewayClient.connect(serve.url, token=TOKEN)
    await client.request("sessions.subscribe", {})
    return client


# --- the record -------------------------------------------------------------------------

def test_serve_writes_its_record_0600_without_the_token(serve: Serve) -> None:
    path = record_path(serve.env)
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert TOKEN not in path.read_text()
    record = read_record(serve.env)
    assert record is not None
    assert record.pid == serve.proc.pid
    assert record.url == serve.url
    assert record.config == str(serve.config.resolve())
    assert (record.auth_mode, record.token_source) == ("token", "config")


def test_serve_removes_its_record_when_it_stops(model: ScriptedModelServer,
                                                tmp_path: Path) -> None:
    running = start_serve(tmp_path, model.base_url_openai)
    try:
        assert read_record(running.env) is not None
    finally:
        code = running.stop()
    assert code == 0
    assert not record_path(running.env).exists()


def test_a_serve_leaves_a_record_of_another_in_place(tmp_path: Path) -> None:
    env = {"CLAWHARNESS_STATE_DIR": str(tmp_path)}
    write_record(ServeRecord(pid=os.getpid(), url="ws://127.0.0.1:1", config=None,
                             auth_mode="none", token_source=None), env)
    from clawharness._serve_record import remove_record

    remove_record(os.getpid() + 1, env)
    assert read_record(env) is not None
    remove_record(os.getpid(), env)
    assert read_record(env) is None


# --- the turn -----------------------------------------------------------------------------

async def test_agent_sends_the_turn_to_the_running_serve(serve: Serve) -> None:
    watch = Observer(await observer(serve))
    try:
        code, out, err = await agent(serve.env, "-m", "hello", "--session", "via-json",
                                     "--json")
        assert code == 0, err
        result = json.loads(out)
        assert result["sessionKey"] == "agent:main:via-json"
        assert result["text"] == "Hello from the script."
        assert result["terminal"] == "ok" and result["runtime"] and result["sessionId"]
        assert await watch.saw("agent:main:via-json")

        code, out, err = await agent(serve.env, "-m", "hello", "-s", "via-text")
        assert code == 0, err
        lines = out.splitlines()
        assert lines[0] == "Hello from the script."
        assert lines[1].startswith("agent:main:via-text · ok · ")
        assert lines[2].startswith("runtime ") and "keeps this runtime" in lines[2]
        assert await watch.saw("agent:main:via-text")
        for text in (out, err):
            assert TOKEN not in text
    finally:
        await watch.client.close()


async def test_the_same_turn_prints_the_same_through_serve_and_local(serve: Serve) -> None:
    """Two turns of one session, the second through each path: the same lines (but the
    duration), the pinned session explained the same way."""
    for path, extra in (("serve", ()), ("local", ("--local",))):
        key = f"same-{path}"
        assert (await agent(serve.env, "-m", "hello", "-s", key, *extra))[0] == 0
        code, out, _err = await agent(serve.env, "-m", "hello", "-s", key, *extra)
        assert code == 0
        lines = out.splitlines()
        assert lines[0] == "Hello from the script."
        assert lines[1].startswith(f"agent:main:{key} · ok · ")
        assert "pinned by this session since its first turn" in lines[2], lines


async def test_local_runs_the_turn_in_the_process(serve: Serve) -> None:
    watch = Observer(await observer(serve))
    try:
        code, out, err = await agent(serve.env, "-m", "hello", "--session", "local-1",
                                     "--local", "--json")
        assert code == 0, err
        assert json.loads(out)["sessionKey"] == "agent:main:local-1"
        assert not await watch.saw("agent:main:local-1")
    finally:
        await watch.client.close()


async def test_a_flag_the_gateway_cannot_honour_runs_embedded(serve: Serve) -> None:
    watch = Observer(await observer(serve))
    try:
        code, out, err = await agent(serve.env, "-m", "hello", "--session", "model-1",
                                     "--model", "scripted/m", "--json")
        assert code == 0, err
        assert json.loads(out)["model"] == "scripted/m"
        assert not await watch.saw("agent:main:model-1")
    finally:
        await watch.client.close()


async def test_a_request_the_server_refuses_is_reported_as_embedded_does(serve: Serve) -> None:
    code, out, _err = await agent(serve.env, "-m", "hello", "--session", "bad key!", "--json")
    assert code == 1
    assert json.loads(out)["error"]["type"] == "invalid_session_key"


async def test_another_config_is_not_sent_to_the_serve(serve: Serve, tmp_path: Path) -> None:
    other = tmp_path / "other.json"
    other.write_text(serve.config.read_text())
    watch = Observer(await observer(serve))
    try:
        code, _out, err = await agent({**serve.env, "CLAWHARNESS_CONFIG": str(other)},
                                      "-m", "hello", "--session", "other-1", "--json")
        assert code == 0, err
        assert not await watch.saw("agent:main:other-1")
    finally:
        await watch.client.close()


async def test_ctrl_c_aborts_the_turn_on_the_server(serve: Serve,
                                                   model: ScriptedModelServer) -> None:
    released = model.hold("hold me")
    watch = Observer(await observer(serve))
    try:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "clawharness", "agent", "-m", "hello, hold me", "--session",
            "abort-1", "--json", env=serve.env, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE)
        async with asyncio.timeout(120):  # the server runs the turn: the command waits on it
            while "agent:main:abort-1" not in watch.seen:
                frame = await watch.queue.get()
                key = (frame.get("payload") or {}).get("sessionKey")
                if frame.get("event") == "agent" and isinstance(key, str):
                    watch.seen.add(key)
        proc.send_signal(signal.SIGINT)
        out, err = await asyncio.wait_for(proc.communicate(), 120)
        assert proc.returncode == 1, err
        result = json.loads(out)
        assert result["terminal"] == "aborted" and result["sessionKey"] == "agent:main:abort-1"
    finally:
        released.set()
        await watch.client.close()


@pytest.mark.parametrize(("answer", "ok"), [("o", True), ("d", False)])
async def test_on_a_terminal_the_command_answers_its_turns_approval(
        tmp_path: Path, answer: str, ok: bool) -> None:
    script = {"responses": [
        {"tool_calls": [{"name": "exec", "arguments": {"command": "echo approved-run"},
                         "id": "call_1"}]},
        {"text": "The command ran."},
    ]}
    tool_model = ScriptedModelServer(script)
    with tool_model.run_in_thread():
        running = start_serve(tmp_path, tool_model.base_url_openai,
                              tools={"exec": {"ask": "always"}})
        master, slave = pty.openpty()
        try:
            os.write(master, f"{answer}\n".encode())  # what the person types at the prompt
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "clawharness", "agent", "-m", "run the build", "-s",
                "approve", "--json", env=running.env, stdin=slave,
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
            out, err = await asyncio.wait_for(proc.communicate(), 120)
        finally:
            os.close(slave)
            os.close(master)
            running.stop()
    assert proc.returncode == 0, err
    assert b"approval needed: Allow exec?" in err and b"echo approved-run" in err
    [call] = json.loads(out)["toolCalls"]
    assert call["name"] == "exec" and call["ok"] is ok


async def test_a_refused_turn_reads_through_serve_as_it_does_embedded(tmp_path: Path) -> None:
    # the host's error code, the config key to change and the hint carry over the socket
    script = {"responses": [{"match": ".*", "repeat": True, "text": "ran"}]}
    budget_model = ScriptedModelServer(script)
    with budget_model.run_in_thread():
        running = start_serve(tmp_path, budget_model.base_url_openai,
                              budgets={"daily": {"turns": 1}})
        try:
            code, _out, err = await agent(running.env, "-m", "one", "-s", "r", "--json")
            assert code == 0, err
            refused = [await agent(running.env, *local, "-m", "two", "-s", "r", "--json")
                       for local in ((), ("--local",))]
        finally:
            running.stop()
    (served_code, served, _), (local_code, local, _) = refused
    assert served_code == local_code == 1
    assert json.loads(served) == json.loads(local)
    assert json.loads(served)["error"]["keyPath"] == "budgets.daily.turns"


@pytest.mark.parametrize(("answer", "ran"), [("y", True), ("a", True), ("n", False)])
async def test_on_a_terminal_a_budget_extension_is_a_yes_or_no(
        tmp_path: Path, answer: str, ran: bool) -> None:
    # one turn a day with budgets.extendBy: the second turn's question is "extend it?",
    # with no "always" offered (an "a" counts for this question only)
    script = {"responses": [{"match": ".*", "repeat": True, "text": "ran"}]}
    budget_model = ScriptedModelServer(script)
    with budget_model.run_in_thread():
        running = start_serve(tmp_path, budget_model.base_url_openai,
                              budgets={"daily": {"turns": 1}, "extendBy": {"turns": 1}})
        try:
            code, _out, err = await agent(running.env, "-m", "one", "-s", "b", "--json")
            assert code == 0, err
            master, slave = pty.openpty()
            try:
                os.write(master, f"{answer}\n".encode())
                proc = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "clawharness", "agent", "-m", "two", "-s", "b",
                    "--json", env=running.env, stdin=slave,
                    stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
                out, err_bytes = await asyncio.wait_for(proc.communicate(), 120)
            finally:
                os.close(slave)
                os.close(master)
        finally:
            running.stop()
    assert b"approval needed: Extend a budget?" in err_bytes
    assert b"Extend it? [y]es / [n]o" in err_bytes and b"[a]lways" not in err_bytes
    result = json.loads(out)
    if ran:
        assert result["terminal"] == "ok", result
    else:
        assert result["error"]["type"] == "budget_exceeded", result


# --- stale records ------------------------------------------------------------------------

def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def _refused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # closed again: nothing listens there


@pytest.mark.parametrize("stale", ["pid-gone", "connection-refused", "garbage"])
async def test_a_stale_record_falls_back_to_the_embedded_turn(
        model: ScriptedModelServer, tmp_path: Path, stale: str) -> None:
    config = write_config(tmp_path, model.base_url_openai)
    env = base_env(tmp_path / "state", config)
    if stale == "garbage":
        record_path(env).parent.mkdir(parents=True)
        record_path(env).write_text("{not json")
    else:
        write_record(ServeRecord(
            pid=_dead_pid() if stale == "pid-gone" else os.getpid(),
            url=f"ws://127.0.0.1:{_refused_port()}", config=str(config.resolve()),
            auth_mode="token", token_source="config"), env)
    code, out, err = await agent(env, "-m", "hello", "--session", "stale", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["sessionKey"] == "agent:main:stale" and result["terminal"] == "ok"


def test_the_thin_path_imports_no_host(serve: Serve) -> None:
    """The turn through serve imports the standard library and the thin client only."""
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "clawharness", "agent",
                           "-m", "hello", "--session", "imports", "--json"],
                          env=serve.env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    imported = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()
                if line.startswith("import time:")}
    assert "clawharness.cli.via_serve" in imported
    heavy = {"pydantic", "clawharness.host", "clawharness.config.schema", "clawharness.config",
             "mcp", "openai", "httpx", "websockets", "typer", "rich", "asyncio"}
    assert not heavy & imported, heavy & imported


# --- parsing ------------------------------------------------------------------------------

def test_the_plain_arguments_are_read_and_the_rest_left_to_the_full_parser() -> None:
    assert parse_agent_argv(["-m", "hi", "-s", "k", "--json", "--timeout", "30"]) == \
        AgentRequest(message="hi", session="k", timeout=30.0, as_json=True)
    assert parse_agent_argv(["--message=hi", "--config", "c.json"]) == \
        AgentRequest(message="hi", config="c.json")
    for argv in (["-m", "hi", "--local"], ["--help"], ["-m", "hi", "--thinking", "low"],
                 ["-m", "hi", "--model", "a/b"], ["-m", "hi", "-m", "again"], ["-m"],
                 ["-s", "k"], ["-m", "hi", "--timeout", "soon"], ["-m", "hi", "extra"]):
        assert parse_agent_argv(argv) is None, argv
