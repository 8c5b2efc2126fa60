"""A failed turn is not run again by a client's retry; `Idempotency-Key` replays the first
answer (the real `openai` SDK, with its default retries, against a real gateway)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import sys
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import httpx
import openai
import psycopg
import pytest
from http_support import TOKEN, Served, ServeFactory, gateway_config

from clawharness.gateway.server import GatewayServer
from clawharness.gateway.settings import resolve_settings
from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "store"))
from store_test_support import (
    PG_URL,
    drop_schema,
    new_schema_name,
    pg_unavailable,
)

USER = [{"role": "user", "content": "hi"}]
AUTH = {"authorization": f"Bearer {TOKEN}"}


def sdk(served: Served, **options: Any) -> openai.AsyncOpenAI:
    """The SDK as an application builds it: its default retries (2) left on."""
    return openai.AsyncOpenAI(base_url=served.v1, api_key=TOKEN, **options)


def model_calls(served: Served) -> int:
    return len([r for r in served.model.requests if r.method == "POST"])


async def until(check: Callable[[], Awaitable[bool] | bool], timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while True:
        outcome = check()
        if await outcome if isinstance(outcome, Awaitable) else outcome:
            return
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.02)


@pytest.mark.parametrize(("provider_error", "status", "code"), [
    ({"status": 500, "message": "upstream broke", "type": "server_error"}, 503, "server_error"),
    ({"status": 400, "message": "the model refused", "type": "invalid_request_error"}, 500,
     "provider_error"),
    ({"status": 401, "message": "bad key", "type": "invalid_request_error"}, 502,
     "provider_auth_failed"),
])
async def test_a_failed_turn_is_answered_once_and_the_sdk_does_not_run_it_again(
        serve: ServeFactory, provider_error: dict[str, Any], status: int, code: str) -> None:
    script = {"responses": [{"error": provider_error}], "exhausted": "error"}
    async with serve(script) as served:
        client = sdk(served)
        with pytest.raises(openai.APIStatusError) as failed:
            await client.chat.completions.create(model="openclaw", messages=USER)
        assert failed.value.status_code == status
        assert failed.value.response.headers["x-should-retry"] == "false"
        assert failed.value.body["code"] == code  # type: ignore[index]
        assert "the agent turn failed" in failed.value.message
        # exactly one turn: one model call, one session (a retry would have made three)
        assert model_calls(served) == 1
        sessions = await served.host.list_sessions()
        assert len(sessions) == 1
        assert failed.value.response.headers["x-openclaw-session-key"] == sessions[0].key


async def test_a_failed_responses_turn_is_an_error_the_sdk_does_not_retry(
        serve: ServeFactory) -> None:
    script = {"responses": [{"error": {"status": 503, "message": "overloaded"}}],
              "exhausted": "error"}
    async with serve(script) as served:
        with pytest.raises(openai.InternalServerError) as failed:
            await sdk(served).responses.create(model="openclaw", input="hi")
        assert failed.value.status_code == 503
        assert "Idempotency-Key" in failed.value.message
        assert model_calls(served) == 1
        assert len(await served.host.list_sessions()) == 1


async def test_a_provider_outage_with_an_idempotency_key_is_retried_on_the_same_session(
        serve: ServeFactory) -> None:
    script = {"responses": [{"error": {"status": 503, "message": "overloaded"}},
                            {"text": "recovered"}]}
    async with serve(script) as served:
        raw = await sdk(served).chat.completions.with_raw_response.create(
            model="openclaw", messages=USER, extra_headers={"Idempotency-Key": "outage-1"})
        answer = raw.parse()
        assert answer.choices[0].message.content == "recovered"
        assert model_calls(served) == 2
        sessions = await served.host.list_sessions()
        assert [s.key for s in sessions] == [raw.headers["x-openclaw-session-key"]]
        history = await served.host.history(sessions[0].key)
        roles = [e.role for e in history]
        # the failed attempt stays on record, then the retry's prompt and answer
        assert roles[0] == "user" and roles[-2:] == ["user", "assistant"]
        # the answer is now the key's: a further retry replays it without a turn
        again = await sdk(served).chat.completions.with_raw_response.create(
            model="openclaw", messages=USER, extra_headers={"Idempotency-Key": "outage-1"})
        assert again.parse().id == answer.id
        assert again.headers["idempotent-replayed"] == "true"
        assert model_calls(served) == 2


async def test_the_outage_answer_says_retry_only_with_a_key(serve: ServeFactory) -> None:
    outage = {"error": {"status": 502, "message": "bad gateway"}}
    async with serve({"responses": [outage, outage]}) as served, httpx.AsyncClient() as http:
        url = f"{served.v1}/chat/completions"
        body = {"model": "openclaw", "messages": USER}
        bare = await http.post(url, json=body, headers=AUTH)
        keyed = await http.post(url, json=body, headers={**AUTH, "idempotency-key": "k-502"})
        assert (bare.status_code, keyed.status_code) == (503, 503)
        assert bare.headers["x-should-retry"] == "false" and "retry-after" not in bare.headers
        assert keyed.headers["x-should-retry"] == "true"
        assert keyed.headers["retry-after"] == "1"


@pytest.mark.parametrize("endpoint", ["chat", "responses"])
async def test_two_identical_keyed_requests_run_one_turn(serve: ServeFactory,
                                                         endpoint: str) -> None:
    script = {"responses": [{"text": "only once"}, {"text": "a second turn"}]}
    async with serve(script) as served:
        client = sdk(served)
        headers = {"Idempotency-Key": f"same-{endpoint}"}
        if endpoint == "chat":
            first = await client.chat.completions.with_raw_response.create(
                model="openclaw", messages=USER, extra_headers=headers)
            second = await client.chat.completions.with_raw_response.create(
                model="openclaw", messages=USER, extra_headers=headers)
            one, two = first.parse(), second.parse()
            assert one.choices[0].message.content == two.choices[0].message.content
            assert (one.id, one.created) == (two.id, two.created)
        else:
            first = await client.responses.with_raw_response.create(
                model="openclaw", input="hi", extra_headers=headers)
            second = await client.responses.with_raw_response.create(
                model="openclaw", input="hi", extra_headers=headers)
            one_r, two_r = first.parse(), second.parse()
            assert one_r.output_text == two_r.output_text == "only once"
            assert one_r.id == two_r.id and one_r.output[0].id == two_r.output[0].id
        assert "idempotent-replayed" not in first.headers
        assert second.headers["idempotent-replayed"] == "true"
        assert first.headers["x-openclaw-session-key"] == second.headers[
            "x-openclaw-session-key"]
        assert model_calls(served) == 1
        assert len(await served.host.list_sessions()) == 1


async def test_a_keyed_retry_while_the_first_runs_waits_for_it(serve: ServeFactory) -> None:
    script = {"responses": [{"text": "the slow answer", "delay_ms": 800}]}
    async with serve(script) as served:
        client = sdk(served)
        headers = {"Idempotency-Key": "slow-1"}
        first = asyncio.create_task(client.chat.completions.create(
            model="openclaw", messages=USER, extra_headers=headers))
        await until(lambda: model_calls(served) == 1)
        two = await client.chat.completions.create(model="openclaw", messages=USER,
                                                   extra_headers=headers)
        one = await first
        assert one.id == two.id
        assert two.choices[0].message.content == "the slow answer"
        assert model_calls(served) == 1


async def test_a_streamed_keyed_retry_joins_the_running_turn(serve: ServeFactory) -> None:
    script = {"responses": [{"text": "streamed once", "delay_ms": 800}]}
    async with serve(script) as served:
        client = sdk(served)
        headers = {"Idempotency-Key": "joined-stream"}

        async def read_stream() -> tuple[str, str]:
            stream = await client.chat.completions.create(
                model="openclaw", messages=USER, stream=True, extra_headers=headers)
            chunks = [c async for c in stream]
            return chunks[0].id, "".join(c.choices[0].delta.content or "" for c in chunks)

        first = asyncio.create_task(read_stream())
        await until(lambda: model_calls(served) == 1)
        second = await read_stream()
        assert await first == second
        assert second[1] == "streamed once"
        assert model_calls(served) == 1


async def test_a_key_reused_for_another_request_is_refused(serve: ServeFactory) -> None:
    async with serve({"responses": [{"text": "first"}]}) as served:
        client = sdk(served)
        headers = {"Idempotency-Key": "reused"}
        await client.chat.completions.create(model="openclaw", messages=USER,
                                             extra_headers=headers)
        with pytest.raises(openai.UnprocessableEntityError) as reused:
            await client.chat.completions.create(
                model="openclaw", messages=[{"role": "user", "content": "other"}],
                extra_headers=headers)
        assert reused.value.body["code"] == "idempotency_key_reused"  # type: ignore[index]
        assert model_calls(served) == 1


async def test_keys_are_the_callers_own_and_well_formed(serve: ServeFactory) -> None:
    gateway = {"port": 0, "auth": {"mode": "none"},
               "http": {"endpoints": {"chatCompletions": {"enabled": True}}}}
    script = {"responses": [{"text": "one"}, {"text": "two"}]}
    async with serve(script, gateway=gateway) as served, httpx.AsyncClient() as http:
        url = f"{served.v1}/chat/completions"
        body = {"model": "openclaw", "user": "shared", "messages": USER}
        bad = await http.post(url, json=body, headers={"idempotency-key": "has space"})
        assert bad.status_code == 400 and bad.json()["error"]["code"] == (
            "invalid_idempotency_key")
        # the same key under two credentials: two callers, two turns
        first = await http.post(url, json=body, headers={
            "idempotency-key": "k", "authorization": "Bearer alice"})
        second = await http.post(url, json=body, headers={
            "idempotency-key": "k", "authorization": "Bearer bob"})
        assert first.json()["id"] != second.json()["id"]
        assert model_calls(served) == 2


async def test_a_keyed_retry_to_another_gateway_of_the_same_store_gets_the_first_answer(
        tmp_path: Path) -> None:
    """Two gateway processes (two hosts, two run services) over one PostgreSQL store, as
    behind a load balancer: the retry reaches the other one while the turn runs."""
    if reason := pg_unavailable():
        pytest.skip(reason)
    schema = new_schema_name()
    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [{"text": "answered by one", "delay_ms": 800},
                                                {"text": "a second turn"}]}))
    try:
        async with ScriptedModelServer(script) as model, contextlib.AsyncExitStack() as stack:
            bases = []
            for name in ("one", "two"):
                config = gateway_config(model, store={
                    "url": f"{PG_URL}?options=-csearch_path%3D{schema}"})
                path = tmp_path / f"{name}.json"
                path.write_text(json.dumps(config))
                env = {"CLAWHARNESS_STATE_DIR": str(tmp_path / name)}
                host = await stack.enter_async_context(Host.from_config(path, env=env))
                server = GatewayServer(host, resolve_settings(host.config, env))
                await stack.enter_async_context(server.running())
                bases.append(f"http://127.0.0.1:{server.port}/v1")
            clients = [openai.AsyncOpenAI(base_url=b, api_key=TOKEN) for b in bases]
            headers = {"Idempotency-Key": "across"}
            first = asyncio.create_task(clients[0].chat.completions.create(
                model="openclaw", messages=USER, extra_headers=headers))
            await until(lambda: len(model.requests) == 1)
            raw = await clients[1].chat.completions.with_raw_response.create(
                model="openclaw", messages=USER, extra_headers=headers)
            one, two = await first, raw.parse()
            assert (one.id, one.choices[0].message.content) == (
                two.id, two.choices[0].message.content)
            assert two.choices[0].message.content == "answered by one"
            assert raw.headers["idempotent-replayed"] == "true"
            assert len(model.requests) == 1
    finally:
        drop_schema(schema)


async def test_a_spent_budget_is_a_429_no_client_retries(serve: ServeFactory) -> None:
    script = {"responses": [{"match": ".*", "repeat": True, "text": "ok"}]}
    async with serve(script, budgets={"perCaller": {"daily": {"turns": 1}}}) as served:
        client = sdk(served)
        await client.chat.completions.create(model="openclaw", messages=USER, user="ann")
        with pytest.raises(openai.RateLimitError) as refused:
            await client.chat.completions.create(model="openclaw", messages=USER, user="ann")
        assert refused.value.status_code == 429
        assert refused.value.response.headers["x-should-retry"] == "false"
        body = refused.value.body
        assert isinstance(body, dict)
        assert (body["type"], body["code"]) == ("insufficient_quota", "budget_exceeded")
        assert "caller ann's daily budget" in body["message"]
        assert "raise budgets.perCaller.daily.turns" in body["message"]
        # the SDK did not retry it, and no model was asked for it
        assert model_calls(served) == 1
        # another caller has its own budget (the Responses API names it as well)
        answer = await client.responses.create(model="openclaw", input="hi", user="bob")
        assert answer.output_text == "ok"


async def test_a_streamed_turn_refused_by_its_budget_is_a_429_not_an_error_chunk(
        serve: ServeFactory) -> None:
    """The stream's headers wait until the turn passed its reservation: a spent budget is
    a real 429 for Chat Completions and Responses alike; a turn within it streams."""
    script = {"responses": [{"match": ".*", "repeat": True, "text": "ok"}]}
    async with serve(script, budgets={"perCaller": {"daily": {"turns": 1}}}) as served:
        client = sdk(served)
        stream = await client.chat.completions.create(
            model="openclaw", messages=USER, user="ann", stream=True)
        assert "".join([c.choices[0].delta.content or "" async for c in stream
                        if c.choices]) == "ok"
        with pytest.raises(openai.RateLimitError) as chat:
            await client.chat.completions.create(
                model="openclaw", messages=USER, user="ann", stream=True)
        with pytest.raises(openai.RateLimitError) as responses:
            await client.responses.create(model="openclaw", input="hi", user="ann",
                                          stream=True)
        for refused in (chat.value, responses.value):
            assert refused.status_code == 429
            assert refused.response.headers["x-should-retry"] == "false"
            assert isinstance(refused.body, dict)
            assert refused.body["code"] == "budget_exceeded"
            assert "raise budgets.perCaller.daily.turns" in refused.body["message"]
        # no retry by the SDK, no model asked for either refusal
        assert model_calls(served) == 1
