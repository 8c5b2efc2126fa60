"""A fake `Host` for the gateway's protocol tests, and a running gateway over it.

`FakeHost` implements the `GatewayHost` surface in memory. Its turns are scripted by
`FakeHost.behaviour`: the default echoes the message as streamed assistant text; a test
can make a turn wait for an event (to be aborted, or to outlive its client), ask for an
approval, or stream many large deltas.

`real_host_gateway` is the other rig: the real `Host` and built-in runtime over a
`ScriptedModelServer`, with a gateway listening on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
import json
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from websockets.asyncio.client import ClientConnection
from websockets.asyncio.client import connect as connect_ws

from clawharness.attempt.executor import LocalTurnExecutor
from clawharness.attempt.turn import TurnOptions
from clawharness.config.schema import ClawConfig
from clawharness.errors import SessionNotFoundError
from clawharness.gateway.client import GatewayClient
from clawharness.gateway.connection import SendLimits
from clawharness.gateway.server import GatewayServer
from clawharness.gateway.settings import GatewaySettings, resolve_settings
from clawharness.harness.types import AgentEvent
from clawharness.host import Host
from clawharness.records.turn_result import TurnResult
from clawharness.records.usage import Usage
from clawharness.sessions.keys import normalize_session_key
from clawharness.store import SessionRecord, TranscriptEntry
from clawharness.testing import ScriptedModelServer

TOKEN = "test-token"

Behaviour = Callable[["TurnContext"], Awaitable[str]]


@dataclass
class TurnContext:
    """What a scripted fake turn sees and can do."""

    host: FakeHost
    session_key: str
    message: str
    options: TurnOptions

    async def emit(self, stream: str, data: dict[str, Any]) -> None:
        sink = self.options.on_agent_event
        if sink is not None:
            result = sink(AgentEvent(stream, data))
            if inspect.isawaitable(result):
                await result

    async def stream_text(self, *chunks: str) -> str:
        text = ""
        for chunk in chunks:
            text += chunk
            await self.emit("assistant", {"text": text, "delta": chunk})
            await asyncio.sleep(0)
        return text


async def echo(ctx: TurnContext) -> str:
    """The default turn: `echo: <message>` streamed in three chunks."""
    reply = f"echo: {ctx.message}"
    third = max(1, len(reply) // 3)
    return await ctx.stream_text(reply[:third], reply[third:2 * third], reply[2 * third:])


@dataclass
class FakeHost:
    """The `GatewayHost` surface in memory."""

    state_dir: Path
    config: ClawConfig = field(default_factory=lambda: ClawConfig.model_validate(
        {"agents": {"defaults": {"model": "scripted/m"}}}))
    env: dict[str, str] = field(default_factory=dict)
    behaviour: Behaviour = echo
    turns: list[tuple[str, str]] = field(default_factory=list)
    sessions: dict[str, SessionRecord] = field(default_factory=dict)
    entries: dict[str, list[TranscriptEntry]] = field(default_factory=dict)

    def default_agent_id(self) -> str:
        return "main"

    def session_key(self, key: str | None) -> str:
        return normalize_session_key(key or "main", default_agent="main")

    async def run_turn(self, session_key: str | None, message: str,
                       options: TurnOptions | None = None) -> TurnResult:
        options = options or TurnOptions()
        key = self.session_key(session_key)
        self.turns.append((key, message))
        record = self.sessions.get(key)
        now = time.time()
        if record is None:
            record = SessionRecord(key=key, session_id=str(uuid.uuid4()), agent_id="main",
                                   model_ref="scripted/m", created_at=now, updated_at=now)
            self.sessions[key] = record
        run_id = options.run_id or str(uuid.uuid4())
        ctx = TurnContext(self, key, message, options)
        await ctx.emit("lifecycle", {"phase": "start", "sessionId": record.session_id})
        self._append(record, "user", message)
        terminal, error, text = "ok", None, ""
        try:
            text = await self.behaviour(ctx)
        except _Aborted:
            terminal, error = "aborted", "aborted"
        except RuntimeError as exc:
            terminal, error = "failed", str(exc)
        if text:
            self._append(record, "assistant", text)
        await ctx.emit("lifecycle", {"phase": "end", "terminal": terminal})
        record = dataclasses.replace(record, updated_at=time.time())
        self.sessions[key] = record
        return TurnResult(
            session_key=key, session_id=record.session_id, run_id=run_id, runtime="fake",
            selected_reason="test", terminal=terminal, text=text if terminal == "ok" else "",
            usage=Usage(input=1, output=1), error=error, duration_ms=1.0)

    def _append(self, record: SessionRecord, role: str, text: str) -> None:
        entries = self.entries.setdefault(record.session_id, [])
        entries.append(TranscriptEntry(
            session_key=record.key, session_id=record.session_id, seq=len(entries) + 1,
            role=role, content={"role": role, "content": [{"type": "text", "text": text}]},
            metadata={}, idempotency_key=None, text=text, created_at=time.time()))

    async def list_sessions(self, *, agent_id: str | None = None,
                            limit: int | None = None) -> list[SessionRecord]:
        rows = [r for r in self.sessions.values() if agent_id is None or r.agent_id == agent_id]
        return rows[:limit] if limit else rows

    async def get_session(self, key: str) -> SessionRecord:
        full = self.session_key(key)
        if full not in self.sessions:
            raise SessionNotFoundError(f"no session {full}")
        return self.sessions[full]

    async def history(self, key: str, *, last: int | None = None) -> list[TranscriptEntry]:
        record = await self.get_session(key)
        rows = self.entries.get(record.session_id, [])
        return rows[-last:] if last else rows

    async def reset_session(self, key: str, *, reason: str = "reset") -> SessionRecord:
        record = await self.get_session(key)
        record = dataclasses.replace(record, session_id=str(uuid.uuid4()), updated_at=time.time())
        self.sessions[record.key] = record
        return record

    async def delete_session(self, key: str) -> bool:
        return self.sessions.pop(self.session_key(key), None) is not None


class _Aborted(Exception):
    pass


async def wait_or_abort(ctx: TurnContext, gate: asyncio.Event) -> None:
    """Wait for `gate`; raise (an aborted turn) when the turn's abort event fires first."""
    abort = ctx.options.abort
    assert abort is not None
    waiters = {asyncio.ensure_future(gate.wait()), asyncio.ensure_future(abort.wait())}
    try:
        await asyncio.wait(waiters, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for waiter in waiters:
            waiter.cancel()
    if abort.is_set():
        raise _Aborted


@dataclass
class Rig:
    """A gateway over a `FakeHost`, listening on 127.0.0.1."""

    host: FakeHost
    server: GatewayServer

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.server.port}"

    async def client(self, *, token: str | None = TOKEN, **kwargs: Any) -> GatewayClient:
        return await GatewayClient.connect(self.url, token=token, **kwargs)


@contextlib.asynccontextmanager
async def running_gateway(host: FakeHost, **settings: Any) -> AsyncIterator[Rig]:
    base: dict[str, Any] = {"host": "127.0.0.1", "port": 0, "token": TOKEN, "version": "test"}
    base.update(settings)
    server = GatewayServer(host, GatewaySettings(**base))  # type: ignore[arg-type]
    async with server.running():
        yield Rig(host, server)


@dataclass(frozen=True)
class RealRig:
    """A gateway over the real `Host`, whose one model is a `ScriptedModelServer`."""

    url: str
    host: Host
    model: ScriptedModelServer


@contextlib.asynccontextmanager
async def real_host_gateway(tmp_path: Path, script: dict[str, Any] | Path, *,
                            agent_defaults: dict[str, Any] | None = None,
                            tools: dict[str, Any] | None = None) -> AsyncIterator[RealRig]:
    """The real `Host` configured in `tmp_path` (state in `tmp_path/state`) with the model
    `scripted/m` answering from `script`, served by a token-authenticated gateway.
    `agent_defaults` adds to `agents.defaults`; `tools` is the config's `tools` section."""
    async with ScriptedModelServer(script) as model:
        config: dict[str, Any] = {
            "models": {"providers": {"scripted": {
                "baseUrl": model.base_url_openai, "api": "openai-responses", "apiKey": "x",
                "models": [{"id": "m"}]}}},
            "agents": {"defaults": {"model": "scripted/m", **(agent_defaults or {})}},
            "gateway": {"port": 0, "auth": {"mode": "token", "token": TOKEN}},
        }
        if tools is not None:
            config["tools"] = tools
        path = tmp_path / "config.json"
        path.write_text(json.dumps(config))
        env = {"CLAWHARNESS_STATE_DIR": str(tmp_path / "state")}
        async with Host.from_config(path, env=env) as host:
            server = GatewayServer(host, resolve_settings(host.config, env))
            async with server.running():
                yield RealRig(f"ws://127.0.0.1:{server.port}", host, model)


async def until_queued(host: Host, key: str, count: int, timeout: float = 5.0) -> None:
    """Wait until `count` messages wait behind the running turn of the session `key`
    (its full key) on the real host's local executor."""
    executor = host.executor
    assert isinstance(executor, LocalTurnExecutor)
    async with asyncio.timeout(timeout):
        while executor.runner.queued(key) < count:
            await asyncio.sleep(0.001)


async def next_event(queue: asyncio.Queue[dict[str, Any]], predicate: Callable[[dict[str, Any]], bool],
                     timeout: float = 5.0) -> dict[str, Any]:
    """The first event frame from `queue` that `predicate` accepts (fails after timeout)."""
    async with asyncio.timeout(timeout):
        while True:
            frame = await queue.get()
            if predicate(frame):
                return frame


async def raw_connect(rig: Rig, **connect: Any) -> ClientConnection:
    """A plain websocket past the handshake, for tests that read frames themselves."""
    ws = await connect_ws(rig.url, max_size=None)
    json.loads(await ws.recv())
    params: dict[str, Any] = {
        "minProtocol": 4, "maxProtocol": 4,
        "client": {"id": "cli", "version": "1.0.0", "platform": "linux", "mode": "cli"},
        "role": "operator", "scopes": ["operator.read", "operator.write"],
        "auth": {"token": TOKEN}, **connect,
    }
    await ws.send(json.dumps({"type": "req", "id": "connect", "method": "connect",
                              "params": params}))
    reply = json.loads(await ws.recv())
    assert reply["ok"], reply
    return ws


def small_limits(max_bytes: int = 64 * 1024, max_frames: int = 10_000) -> SendLimits:
    return SendLimits(max_frames=max_frames, max_bytes=max_bytes)
