"""The gateway's frame parser and method dispatch under arbitrary frames: no uncaught
exception, no hang, every request answered; the frames that broke it are named below."""

from __future__ import annotations

import asyncio
import json
import tempfile
from pathlib import Path
from typing import Any

from gateway_support import TOKEN, FakeHost, Rig, raw_connect
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clawharness.gateway.connection import Connection, SendLimits
from clawharness.gateway.handshake import handle_preconnect
from clawharness.gateway.protocol import decode_json
from clawharness.gateway.server import GatewayServer
from clawharness.gateway.settings import GatewaySettings
from clawharness.limits import MAX_JSON_DEPTH

FUZZ = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                 max_size=4),
    max_leaves=12)


class Sink:
    """A socket that keeps what was sent."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed: tuple[int, str] | None = None

    async def send(self, message: str) -> None:
        self.sent.append(message)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = (code, reason)

    def abort(self) -> None:
        self.closed = (1006, "aborted")


async def _flushed(conn: Connection, writer: asyncio.Task[None]) -> None:
    conn.close_after_flush(1000)
    async with asyncio.timeout(5):
        await conn.closed.wait()
    writer.cancel()


async def _dispatch_all(frames: list[str]) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        server = GatewayServer(FakeHost(state_dir=Path(tmp)),
                               GatewaySettings(port=0, token=TOKEN, version="test"))
        sink = Sink()
        conn = Connection(sink, "fuzz", limits=SendLimits())
        conn.authenticated = True
        conn.scopes = ("operator.admin",)
        server.hub.add(conn)
        writer = asyncio.create_task(conn.run_writer())
        tasks: set[asyncio.Task[None]] = set()
        for raw in frames:
            server._dispatch(conn, raw, tasks)
        async with asyncio.timeout(10):  # no hang: every request settles
            await asyncio.gather(*list(tasks))
        await _flushed(conn, writer)
        return [json.loads(text) for text in sink.sent]


methods = st.sampled_from([
    "health", "status", "agents.list", "commands.list", "models.list", "config.get",
    "plugin.approval.list", "plugin.approval.resolve", "question.list", "system-presence",
    "last-heartbeat", "agent", "agent.wait", "chat.send", "chat.abort", "chat.history",
    "sessions.list", "sessions.subscribe", "sessions.unsubscribe", "sessions.describe",
    "sessions.messages.subscribe", "sessions.reset", "sessions.delete", "sessions.abort",
    "no.such.method"]) | st.text(min_size=1, max_size=12)


@st.composite
def request_frames(draw: st.DrawFn) -> dict[str, Any]:
    params = draw(st.one_of(json_values, st.dictionaries(
        st.sampled_from(["sessionKey", "message", "runId", "key", "limit", "idempotencyKey",
                         "timeoutMs", "id", "decision", "includeGlobal", "agentId"]),
        json_values, max_size=5)))
    return {"type": "req", "id": draw(st.text(min_size=1, max_size=6)),
            "method": draw(methods), "params": params}


@FUZZ
@given(st.lists(request_frames(), min_size=1, max_size=6))
def test_every_request_frame_gets_an_answer_and_nothing_escapes(
        frames: list[dict[str, Any]]) -> None:
    sent = asyncio.run(_dispatch_all([json.dumps(f) for f in frames]))
    answered = {f["id"] for f in sent if f.get("type") == "res"}
    assert {f["id"] for f in frames} <= answered


@FUZZ
@given(st.one_of(json_values.map(json.dumps), st.text(max_size=200),
                 st.binary(max_size=200).map(lambda b: b.decode("latin-1"))))
def test_arbitrary_frames_never_break_dispatch(raw: str) -> None:
    asyncio.run(_dispatch_all([raw]))


@FUZZ
@given(st.one_of(json_values.map(json.dumps), st.text(max_size=200),
                 request_frames().map(json.dumps),
                 request_frames().map(lambda f: json.dumps({**f, "method": "connect"}))))
def test_arbitrary_frames_before_connect_are_answered_or_closed(raw: str) -> None:
    async def once() -> tuple[Connection, Sink]:
        sink = Sink()
        conn = Connection(sink, "pre", limits=SendLimits())
        writer = asyncio.create_task(conn.run_writer())
        accepted = handle_preconnect(conn, raw, GatewaySettings(token=TOKEN),
                                     lambda c, _id, _p: setattr(c, "authenticated", True))
        assert accepted is conn.authenticated
        if not accepted:
            assert conn.close_code is not None
        await _flushed(conn, writer)
        return conn, sink

    asyncio.run(once())


# --- the inputs that broke it ------------------------------------------------------------


def test_a_frame_nested_deeper_than_the_limit_is_malformed_input() -> None:
    # before: json.loads raised RecursionError out of the connection's handler
    deep = '{"type": "req", "id": "1", "method": "health", "params": ' + "[" * 5000 \
        + "]" * 5000 + "}"
    try:
        decode_json(deep)
    except ValueError as exc:
        assert f"nested deeper than {MAX_JSON_DEPTH} levels" in str(exc)
    else:
        raise AssertionError("a 5,000-deep frame was accepted")


async def test_a_deep_frame_after_connect_is_dropped_and_the_connection_lives_on(
        rig: Rig) -> None:
    ws = await raw_connect(rig)
    try:
        await ws.send('{"type": "req", "id": "deep", "method": "health", "params": '
                      + "[" * 5000 + "]" * 5000 + "}")
        await ws.send(json.dumps({"type": "req", "id": "after", "method": "health"}))
        async with asyncio.timeout(5):
            while True:
                frame = json.loads(await ws.recv())
                if frame.get("type") == "res":
                    break
        assert frame["id"] == "after" and frame["ok"] is True
    finally:
        await ws.close()


async def test_a_deep_frame_before_connect_closes_like_malformed_json(rig: Rig) -> None:
    from websockets.asyncio.client import connect as connect_ws
    from websockets.exceptions import ConnectionClosed

    ws = await connect_ws(rig.url)
    json.loads(await ws.recv())  # the challenge
    await ws.send("[" * 20_000 + "]" * 20_000)
    try:
        async with asyncio.timeout(5):
            while True:
                await ws.recv()
    except ConnectionClosed as closed:
        # before: the handler died and the socket closed with 1011 (internal error)
        assert closed.rcvd is not None and closed.rcvd.code == 1000
