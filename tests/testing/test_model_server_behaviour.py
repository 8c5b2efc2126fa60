"""Scripted model server behaviour: routing, errors, cuts, delays, the log, lifecycle."""

from __future__ import annotations

import gzip
import json
import socket
import time

import anthropic
import httpx
import openai
import pytest

from clawharness.errors import ConfigError
from clawharness.testing import EXHAUSTED_TEXT, ScriptedModelServer

USER = [{"role": "user", "content": "hello"}]


async def test_match_items_win_over_order_and_answer_once_unless_repeat(serve, openai_for):
    script = {"responses": [
        {"text": "first ordered"},
        {"match": r"weather in \w+", "text": "sunny"},
        {"match": "quota", "text": "quota ok", "repeat": True},
        {"text": "second ordered"},
    ]}
    async with serve(script) as server:
        client = openai_for(server)

        async def ask(prompt: str) -> str:
            return (await client.responses.create(model="m", input=prompt)).output_text

        answers = [await ask("what is the weather in Oslo?"), await ask("quota"),
                   await ask("weather in Oslo again"), await ask("quota"), await ask("x")]

    assert answers == ["sunny", "quota ok", "first ordered", "quota ok", "second ordered"]


async def test_exhausted_script_answers_fixed_text_by_default(serve, openai_for):
    async with serve({"responses": [{"text": "only"}]}) as server:
        client = openai_for(server)
        first = await client.responses.create(model="m", input="a")
        second = await client.responses.create(model="m", input="b")

    assert (first.output_text, second.output_text) == ("only", EXHAUSTED_TEXT)


async def test_exhausted_error_option_answers_500(serve, openai_for):
    async with serve({"exhausted": "error", "responses": []}) as server:
        with pytest.raises(openai.InternalServerError) as caught:
            await openai_for(server).responses.create(model="m", input="a")

    assert caught.value.status_code == 500
    assert "exhausted" in caught.value.message


async def test_error_status_reaches_the_openai_sdk_as_its_exception_class(serve, openai_for):
    script = {"responses": [
        {"error": {"status": 429, "message": "slow down"}},
        {"error": {"status": 401, "message": "bad key"}},
        {"error": {"status": 400, "message": "context too long", "type": "invalid_request_error"}},
    ]}
    async with serve(script) as server:
        client = openai_for(server)
        with pytest.raises(openai.RateLimitError) as limited:
            await client.responses.create(model="m", input="a", stream=True)
        with pytest.raises(openai.AuthenticationError):
            await client.chat.completions.create(model="m", messages=USER)
        with pytest.raises(openai.BadRequestError) as bad:
            await client.responses.create(model="m", input="a")

    assert limited.value.status_code == 429 and "slow down" in limited.value.message
    assert bad.value.body == {"message": "context too long", "type": "invalid_request_error",
                              "param": None, "code": None}


async def test_error_status_reaches_the_anthropic_sdk_as_its_exception_class(
    serve, anthropic_for
):
    script = {"responses": [
        {"error": {"status": 529, "message": "overloaded"}},
        {"error": {"status": 500, "message": "boom"}},
    ]}
    async with serve(script) as server:
        client = anthropic_for(server)
        with pytest.raises(anthropic.OverloadedError):
            await client.messages.create(model="m", max_tokens=5, messages=USER, stream=True)
        with pytest.raises(anthropic.InternalServerError) as failed:
            await client.messages.create(model="m", max_tokens=5, messages=USER)

    assert failed.value.body == {"type": "error", "error": {"type": "api_error",
                                                            "message": "boom"}}


async def test_cut_stream_makes_the_openai_sdk_raise_after_a_first_delta(serve, openai_for):
    script = {"responses": [{"cut": True, "text": "partial answer"}, {"cut": True}]}
    async with serve(script) as server:
        client = openai_for(server)
        seen: list[str] = []
        with pytest.raises(openai.APIConnectionError):
            async for event in await client.responses.create(model="m", input="a", stream=True):
                seen.append(event.type)
        with pytest.raises(openai.APIConnectionError):
            async with client.chat.completions.stream(model="m", messages=USER) as stream:
                await stream.get_final_completion()

    assert seen[0] == "response.created" and seen[-1] == "response.output_text.delta"
    assert "response.completed" not in seen


async def test_cut_answer_makes_the_anthropic_sdk_raise(serve, anthropic_for):
    script = {"responses": [{"cut": True, "text": "partial"}, {"cut": True}]}
    async with serve(script) as server:
        client = anthropic_for(server)
        seen: list[str] = []
        with pytest.raises(Exception) as streamed:
            stream = await client.messages.create(
                model="m", max_tokens=5, messages=USER, stream=True)
            async for event in stream:
                seen.append(event.type)
        with pytest.raises(anthropic.APIConnectionError):
            await client.messages.create(model="m", max_tokens=5, messages=USER)

    # the SDK surfaces a mid-stream drop as its transport's protocol error
    assert isinstance(streamed.value, anthropic.APIConnectionError) or (
        "ProtocolError" in type(streamed.value).__name__)
    assert seen == ["message_start", "content_block_start", "content_block_delta"]


async def test_delay_ms_holds_the_answer_back(serve, openai_for):
    script = {"responses": [{"text": "slow", "delay_ms": 400}, {"text": "fast"}]}
    async with serve(script) as server:
        client = openai_for(server)
        started = time.monotonic()
        slow = await client.responses.create(model="m", input="a")
        slow_took = time.monotonic() - started
        started = time.monotonic()
        await client.responses.create(model="m", input="a")
        fast_took = time.monotonic() - started

    assert slow.output_text == "slow"
    assert slow_took >= 0.4
    assert fast_took < slow_took


async def test_requests_are_logged_to_file_and_memory_with_keys_redacted(
    serve, openai_for, anthropic_for, tmp_path
):
    log = tmp_path / "requests.jsonl"
    script = {"responses": [{"text": "a"}, {"text": "b"}]}
    async with serve(script, log_path=log) as server, httpx.AsyncClient() as http:
        await openai_for(server).responses.create(model="gpt", input="first prompt")
        await anthropic_for(server).messages.create(model="claude", max_tokens=5, messages=USER)
        await http.head(server.url, headers={"x-api-key": "sk-raw-key"})
        in_memory = server.requests

    lines = [json.loads(line) for line in log.read_text().splitlines()]
    assert [(x["method"], x["path"]) for x in lines] == [
        ("POST", "/v1/responses"), ("POST", "/v1/messages"), ("HEAD", "/")]
    assert set(lines[0]) >= {"ts", "method", "path", "headers", "body"}
    assert lines[0]["body"]["input"] == "first prompt"
    assert lines[1]["body"]["model"] == "claude"
    assert lines[0]["headers"]["authorization"] == "<redacted>"
    assert lines[2]["headers"]["x-api-key"] == "<redacted>"
    text = log.read_text()
    assert "sk-test" not in text and "sk-ant-test" not in text and "sk-raw-key" not in text
    assert [r.to_json() for r in in_memory] == lines


async def test_unprefixed_responses_path_and_unknown_paths(serve):
    async with serve({"responses": [{"text": "bare path"}]}) as server, httpx.AsyncClient() as h:
        bare = await h.post(server.url + "/responses", json={"model": "m", "input": "x"})
        missing = await h.get(server.url + "/v1/nothing")
        not_json = await h.post(server.base_url_openai + "/responses", content=b"{nope")

    assert bare.json()["output"][0]["content"][0]["text"] == "bare path"
    assert missing.status_code == 404
    assert not_json.status_code == 400
    assert server.used_items == {0}


def test_non_loopback_host_is_refused():
    with pytest.raises(ConfigError, match="loopback"):
        ScriptedModelServer({"responses": []}, host="0.0.0.0")
    with pytest.raises(ConfigError, match="loopback"):
        ScriptedModelServer({"responses": []}, host="example.com")


async def test_port_zero_reports_the_real_port_and_stop_releases_it():
    server = ScriptedModelServer({"responses": []}, host="localhost")
    async with server:
        port = server.port
        assert port > 0 and server.url == f"http://127.0.0.1:{port}"
        assert server.base_url_openai == f"http://127.0.0.1:{port}/v1"
    await server.stop()  # idempotent
    with socket.create_server(("127.0.0.1", port)):
        pass  # the port is free again


def test_run_in_thread_serves_synchronous_clients_and_stops_cleanly():
    server = ScriptedModelServer({"responses": [{"text": "from a thread"}]})
    with server.run_in_thread() as running:
        client = openai.OpenAI(base_url=running.base_url_openai, api_key="k", max_retries=0)
        answer = client.responses.create(model="m", input="hi")
        port = running.port

    assert answer.output_text == "from a thread"
    with pytest.raises(httpx.ConnectError):
        httpx.get(f"http://127.0.0.1:{port}/", timeout=2)


async def test_gzip_compressed_request_body_is_read(serve):
    body = gzip.compress(json.dumps({"model": "m", "input": "zip me"}).encode())
    script = {"responses": [{"match": "zip me", "text": "unzipped"}]}
    async with serve(script) as server, httpx.AsyncClient() as http:
        answer = await http.post(server.base_url_openai + "/responses", content=body,
                                 headers={"content-encoding": "gzip",
                                          "content-type": "application/json"})

    assert answer.json()["output"][0]["content"][0]["text"] == "unzipped"
    assert server.requests[-1].body["input"] == "zip me"


def test_run_in_thread_reports_a_port_already_taken():
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        server = ScriptedModelServer({"responses": []}, port=port)
        with pytest.raises(OSError), server.run_in_thread():
            pytest.fail("the server should not have started")
