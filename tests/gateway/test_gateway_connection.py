"""The per-connection send queue: ordered, seq-numbered, bounded, and dropped when stalled."""

from __future__ import annotations

import asyncio
import json

from clawharness.gateway.connection import Connection, SendLimits


class StalledSocket:
    """A socket whose sends never finish once `stall` is set (a client that stopped reading)."""

    def __init__(self) -> None:
        self.sent: list[str] = []
        self.closed: tuple[int, str] | None = None
        self.aborted = False
        self.stall = asyncio.Event()
        self.never = asyncio.Event()

    async def send(self, message: str) -> None:
        if self.stall.is_set():
            await self.never.wait()
        self.sent.append(message)

    async def close(self, code: int = 1000, reason: str = "") -> None:
        self.closed = (code, reason)

    def abort(self) -> None:
        self.aborted = True


async def test_events_carry_a_per_connection_seq_after_the_handshake() -> None:
    sock = StalledSocket()
    conn = Connection(sock, "c1", limits=SendLimits())
    writer = asyncio.create_task(conn.run_writer())
    conn.send_event("connect.challenge", {"nonce": "n"})
    conn.authenticated = True
    conn.send_event("tick", {"ts": 1})
    conn.send_event("tick", {"ts": 2})
    conn.close_after_flush(1000, "bye")
    await asyncio.wait_for(writer, 5)
    frames = [json.loads(m) for m in sock.sent]
    assert [f.get("seq") for f in frames] == [None, 1, 2]
    assert sock.closed == (1000, "bye")
    assert not conn.send_event("tick", {"ts": 3})


async def test_a_stalled_socket_fills_the_queue_to_its_bound_and_is_dropped() -> None:
    sock = StalledSocket()
    limits = SendLimits(max_frames=1000, max_bytes=10_000)
    conn = Connection(sock, "c1", limits=limits)
    conn.authenticated = True
    writer = asyncio.create_task(conn.run_writer())
    sock.stall.set()
    accepted = 0
    for index in range(100):
        if conn.send_event("item", {"index": index, "blob": "x" * 500}):
            accepted += 1
    assert 0 < accepted < 100
    assert conn.peak_queued_bytes <= limits.max_bytes
    await asyncio.wait_for(writer, 5)
    assert sock.closed == (1008, "slow consumer")
    assert (conn.close_code, conn.close_reason) == (1008, "slow consumer")
    assert conn.queued_bytes == 0
    assert conn.closed.is_set()


async def test_the_frame_count_is_bounded_too() -> None:
    sock = StalledSocket()
    sock.stall.set()
    conn = Connection(sock, "c1", limits=SendLimits(max_frames=5, max_bytes=10**9))
    writer = asyncio.create_task(conn.run_writer())
    results = [conn.send({"type": "event", "event": "e", "payload": i}) for i in range(10)]
    assert results[:5] == [True] * 5
    assert results[5] is False
    await asyncio.wait_for(writer, 5)
    assert conn.close_reason == "slow consumer"


async def test_queued_frames_are_flushed_before_a_requested_close() -> None:
    sock = StalledSocket()
    conn = Connection(sock, "c1", limits=SendLimits())
    for index in range(3):
        conn.send({"type": "res", "id": str(index), "ok": True, "payload": None})
    conn.close_after_flush(1008, "invalid handshake")
    await asyncio.wait_for(conn.run_writer(), 5)
    assert [json.loads(m)["id"] for m in sock.sent] == ["0", "1", "2"]
    assert sock.closed == (1008, "invalid handshake")
