"""Turns through the gateway: `agent`, `chat.send`, events, idempotency, abort, disconnects."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from gateway_support import FakeHost, Rig, TurnContext, next_event, raw_connect, wait_or_abort

from clawharness.errors import ConfigError
from clawharness.gateway.client import GatewayRequestError
from clawharness.gateway.runs import outcome_of


def is_final_chat(frame: dict[str, Any], run_id: str | None = None) -> bool:
    payload = frame["payload"]
    return (frame["event"] == "chat" and payload["state"] in ("final", "error", "aborted")
            and (run_id is None or payload["runId"] == run_id))


async def test_agent_is_answered_accepted_then_final_on_the_same_request_id(rig: Rig) -> None:
    ws = await raw_connect(rig)
    async with ws:
        await ws.send(json.dumps({"type": "req", "id": "a1", "method": "agent",
                                  "params": {"message": "hi", "idempotencyKey": "k1"}}))
        responses: list[dict[str, Any]] = []
        async with asyncio.timeout(5):
            while len(responses) < 2:
                frame = json.loads(await ws.recv())
                if frame["type"] == "res":
                    responses.append(frame)
        accepted, final = responses
        assert accepted["id"] == final["id"] == "a1"
        assert accepted["ok"] and final["ok"]
        body = accepted["payload"]
        assert body["status"] == "accepted"
        assert body["runId"] == "k1"
        assert body["sessionKey"] == "agent:main:main" and body["agentId"] == "main"
        assert isinstance(body["acceptedAt"], int)
        result = final["payload"]
        assert result["runId"] == "k1"
        assert result["status"] == "ok" and result["summary"] == "completed"
        assert result["result"]["payloads"] == [{"text": "echo: hi", "mediaUrl": None}]
        assert result["result"]["meta"]["agentMeta"]["sessionId"]
        assert isinstance(result["result"]["meta"]["durationMs"], int)


async def test_a_turn_streams_lifecycle_assistant_and_chat_events_in_seq_order(rig: Rig) -> None:
    client = await rig.client()
    async with client:
        events = client.events()
        _accepted, final = await client.agent("stream me", idempotency_key="k1")
        assert final["status"] == "ok"
        frames: list[dict[str, Any]] = []
        frames.append(await next_event(events, lambda f: True))
        while not is_final_chat(frames[-1]):
            frames.append(await next_event(events, lambda f: True))
        seqs = [f["seq"] for f in frames]
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs)))
        agent = [f["payload"] for f in frames if f["event"] == "agent"]
        phases = [a["data"]["phase"] for a in agent if a["stream"] == "lifecycle"]
        assert phases == ["start", "end"]
        assert agent[0]["stream"] == "lifecycle" and agent[-1]["stream"] == "lifecycle"
        texts = [(a["data"]["text"], a["data"]["delta"]) for a in agent if a["stream"] == "assistant"]
        assert "".join(delta for _text, delta in texts) == "echo: stream me"
        assert [text for text, _ in texts][-1] == "echo: stream me"
        assert all(texts[i][0] == texts[i - 1][0] + texts[i][1] for i in range(1, len(texts)))
        assert [a["seq"] for a in agent] == list(range(1, len(agent) + 1))
        assert all(a["runId"] == "k1" and a["sessionKey"] == "agent:main:main" for a in agent)
        chat = [f["payload"] for f in frames if f["event"] == "chat"]
        assert [c["state"] for c in chat[:-1]] == ["delta"] * len(texts)
        assert chat[-1]["state"] == "final"
        assert chat[-1]["message"]["content"] == [{"type": "text", "text": "echo: stream me"}]


async def test_the_same_idempotency_key_never_runs_a_turn_twice(rig: Rig) -> None:
    first = await rig.client()
    async with first:
        _acc, final_a = await first.agent("once", idempotency_key="same-key")
        _acc, final_b = await first.agent("once", idempotency_key="same-key")
    second = await rig.client()
    async with second:
        _acc, final_c = await second.agent("once", idempotency_key="same-key")
    assert len(rig.host.turns) == 1
    assert final_a == final_b == final_c


async def test_a_second_request_with_a_running_key_waits_for_the_same_result(
        fake_host: FakeHost, rig: Rig) -> None:
    release = asyncio.Event()

    async def slow(ctx: TurnContext) -> str:
        await wait_or_abort(ctx, release)
        return await ctx.stream_text("slow ", "answer")

    fake_host.behaviour = slow
    one, two = await rig.client(), await rig.client()
    async with one, two:
        call_one = one.start_agent("go", idempotency_key="running-key")
        acc_one = await asyncio.wait_for(call_one.accepted, 5)
        call_two = two.start_agent("go", idempotency_key="running-key")
        acc_two = await asyncio.wait_for(call_two.accepted, 5)
        assert not call_two.final.done()
        release.set()
        final_one, final_two = await asyncio.wait_for(
            asyncio.gather(call_one.final, call_two.final), 5)
    assert len(fake_host.turns) == 1
    assert final_one == final_two
    assert acc_one == acc_two
    assert acc_one["runId"] == "running-key"
    assert final_one["result"]["payloads"][0]["text"] == "slow answer"


async def test_chat_send_acknowledges_then_streams_events(rig: Rig) -> None:
    client = await rig.client()
    async with client:
        events = client.events()
        ack = await client.request("chat.send", {"sessionKey": "main", "message": "yo",
                                                 "idempotencyKey": "c1"})
        assert ack == {"runId": "c1", "status": "started"}
        final = await next_event(events, lambda f: is_final_chat(f, "c1"))
        assert final["payload"]["message"]["content"][0]["text"] == "echo: yo"
        again = await client.request("chat.send", {"sessionKey": "main", "message": "yo",
                                                   "idempotencyKey": "c1"})
        assert again == {"runId": "c1", "status": "ok"}
        assert len(rig.host.turns) == 1


async def test_chat_abort_stops_a_running_turn(fake_host: FakeHost, rig: Rig) -> None:
    never = asyncio.Event()

    async def stuck(ctx: TurnContext) -> str:
        await ctx.stream_text("partial")
        await wait_or_abort(ctx, never)
        return "unreachable"

    fake_host.behaviour = stuck
    client = await rig.client()
    async with client:
        events = client.events()
        task = asyncio.create_task(client.agent("go", idempotency_key="r1"))
        await next_event(events, lambda f: f["event"] == "chat" and f["payload"]["state"] == "delta")
        aborted = await client.request("chat.abort", {"sessionKey": "main", "runId": "r1"})
        assert aborted == {"ok": True, "aborted": True, "runIds": ["r1"]}
        chat = await next_event(events, lambda f: is_final_chat(f, "r1"))
        assert chat["payload"]["state"] == "aborted"
        assert chat["payload"]["message"]["content"][0]["text"] == "partial"
        _acc, final = await task
        assert final["status"] == "timeout" and final["summary"] == "aborted"
        again = await client.request("chat.abort", {"sessionKey": "main", "runId": "r1"})
        assert again == {"ok": True, "aborted": False, "runIds": []}


async def test_a_turn_keeps_running_when_its_client_disconnects(
        fake_host: FakeHost, rig: Rig) -> None:
    release = asyncio.Event()

    async def waits(ctx: TurnContext) -> str:
        await wait_or_abort(ctx, release)
        return await ctx.stream_text("finished ", "anyway")

    fake_host.behaviour = waits
    leaver = await rig.client()
    ack = await leaver.request("chat.send", {"sessionKey": "agent:main:work", "message": "m",
                                             "idempotencyKey": "gone"})
    run = rig.server.runs.get(ack["runId"])
    assert run is not None and not run.done
    await leaver.close()
    async with asyncio.timeout(5):
        await rig.server.hub.wait_for_count(0)
    release.set()
    outcome = outcome_of(run, await asyncio.wait_for(run.wait(), 5))
    assert outcome.payload["status"] == "ok"
    reader = await rig.client()
    async with reader:
        history = await reader.request("chat.history", {"sessionKey": "agent:main:work"})
    texts = [m["content"][0]["text"] for m in history["messages"]]
    assert texts == ["m", "finished anyway"]
    assert history["sessionKey"] == "agent:main:work"


async def test_many_clients_on_many_sessions_at_once(rig: Rig) -> None:
    clients = [await rig.client() for _ in range(20)]
    try:
        queues = [c.events() for c in clients]

        async def drive(index: int) -> list[str]:
            texts = []
            for turn in range(3):
                _acc, final = await clients[index].agent(
                    f"c{index} t{turn}", idempotency_key=f"k{index}-{turn}",
                    sessionKey=f"s{index}")
                texts.append(final["result"]["payloads"][0]["text"])
            return texts

        results = await asyncio.gather(*(drive(i) for i in range(20)))
    finally:
        await asyncio.gather(*(c.close() for c in clients))
    for index, texts in enumerate(results):
        assert texts == [f"echo: c{index} t{turn}" for turn in range(3)]
        seen = set()
        while not queues[index].empty():
            seen.add(queues[index].get_nowait()["payload"].get("runId"))
        assert seen <= {f"k{index}-{turn}" for turn in range(3)}
    assert len(rig.host.turns) == 60


async def test_a_failed_turn_is_reported_as_an_error(fake_host: FakeHost, rig: Rig) -> None:
    async def broken(ctx: TurnContext) -> str:
        raise RuntimeError("model exploded")

    fake_host.behaviour = broken
    client = await rig.client()
    async with client:
        events = client.events()
        _acc, final = await client.agent("x", idempotency_key="bad")
        assert final["status"] == "error" and final["summary"] == "failed"
        assert "model exploded" in final["result"]["payloads"][0]["text"]
        chat = await next_event(events, lambda f: is_final_chat(f, "bad"))
        assert chat["payload"]["state"] == "error"
        assert chat["payload"]["errorMessage"] == "model exploded"


async def test_a_host_error_before_the_turn_answers_unavailable(
        fake_host: FakeHost, rig: Rig) -> None:
    async def refuse(session_key: str | None, message: str, options: Any = None) -> Any:
        raise ConfigError("no model configured")

    fake_host.run_turn = refuse  # type: ignore[method-assign]
    client = await rig.client()
    async with client:
        with pytest.raises(GatewayRequestError) as caught:
            await client.agent("x", idempotency_key="cfg")
        assert caught.value.code == "UNAVAILABLE"
        assert "no model configured" in caught.value.error["message"]
        assert caught.value.payload["status"] == "error"


async def test_bad_agent_params_and_unknown_agents_are_refused(rig: Rig) -> None:
    client = await rig.client()
    async with client:
        with pytest.raises(GatewayRequestError) as caught:
            await client.request("agent", {"message": "x"})
        assert caught.value.code == "INVALID_REQUEST"
        assert caught.value.error["message"].startswith("invalid agent params:")
        with pytest.raises(GatewayRequestError) as caught:
            await client.agent("x", idempotency_key="k", agentId="ghost")
        assert caught.value.details == {"code": "UNKNOWN_AGENT_ID", "agentId": "ghost"}
        with pytest.raises(GatewayRequestError) as caught:
            await client.request("chat.send", {"sessionKey": "main", "message": "  ",
                                               "idempotencyKey": "k"})
        assert caught.value.code == "INVALID_REQUEST"
    assert rig.host.turns == []
