"""A client that stops reading is disconnected; the gateway's memory for it stays bounded."""

from __future__ import annotations

import asyncio
import json
import socket

from gateway_support import TOKEN, FakeHost, TurnContext, next_event, running_gateway, small_limits
from websockets.asyncio.client import connect

BLOB = "x" * 8192
EVENTS = 2000  # ~16 MB of events: more than the socket buffers and the queue bound hold
WINDOW = 8  # the producer runs at most this far ahead of the reading client


async def test_a_client_that_stops_reading_is_dropped_and_the_turn_finishes(
        fake_host: FakeHost) -> None:
    read_by_fast = 0
    progress = asyncio.Event()

    async def flood(ctx: TurnContext) -> str:
        for index in range(EVENTS):
            while index - read_by_fast > WINDOW:  # pace to the client that does read
                progress.clear()
                await asyncio.wait_for(progress.wait(), 10)
            await ctx.emit("item", {"index": index, "blob": BLOB})
        return await ctx.stream_text("done")

    fake_host.behaviour = flood
    limit = 256 * 1024
    async with running_gateway(fake_host, send_limits=small_limits(max_bytes=limit)) as rig:
        sock = socket.create_connection(("127.0.0.1", rig.server.port))
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        slow = await connect(rig.url, sock=sock, max_queue=1, max_size=None)
        json.loads(await slow.recv())
        await slow.send(json.dumps({"type": "req", "id": "c", "method": "connect", "params": {
            "minProtocol": 4, "maxProtocol": 4, "auth": {"token": TOKEN},
            "client": {"id": "slow", "version": "1", "platform": "linux", "mode": "cli"},
            "role": "operator", "scopes": ["operator.read"]}}))
        slow_id = json.loads(await slow.recv())["payload"]["server"]["connId"]
        await slow.send(json.dumps({"type": "req", "id": "s", "method": "sessions.subscribe",
                                    "params": {}}))
        assert json.loads(await slow.recv())["payload"] == {"subscribed": True}
        slow_conn = rig.server.hub.get(slow_id)
        assert slow_conn is not None
        # from here on the slow client never reads again

        fast = await rig.client()
        async with fast:
            events = fast.events()
            call = fast.start_agent("flood", idempotency_key="flood")
            while True:
                frame = await next_event(events, lambda f: True, timeout=10)
                if frame["event"] == "agent" and frame["payload"]["stream"] == "item":
                    read_by_fast += 1
                    progress.set()
                if frame["event"] == "chat" and frame["payload"]["state"] == "final":
                    break
            final = await asyncio.wait_for(call.final, 10)
            assert final["status"] == "ok"
            assert read_by_fast == EVENTS
            async with asyncio.timeout(10):
                await rig.server.hub.wait_for_count(1)
            assert rig.server.hub.get(slow_id) is None
            assert (slow_conn.close_code, slow_conn.close_reason) == (1008, "slow consumer")
            assert slow_conn.peak_queued_bytes <= limit
            assert slow_conn.queued_bytes == 0
            assert (await fast.request("health"))["ok"] is True
        slow.transport.abort()
