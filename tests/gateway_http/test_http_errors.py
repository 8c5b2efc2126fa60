"""Bad input gets OpenAI's error shape naming what was wrong; endpoints off by default."""

from __future__ import annotations

from typing import Any

import httpx
import pytest
from http_support import TOKEN, ServeFactory

HELLO = {"responses": [{"text": "hi"}]}
AUTH = {"authorization": f"Bearer {TOKEN}"}
USER = [{"role": "user", "content": "hi"}]


def error(response: httpx.Response) -> dict[str, Any]:
    body = response.json()
    assert set(body) == {"error"}
    assert set(body["error"]) == {"message", "type", "param", "code"}
    return dict(body["error"])


@pytest.mark.parametrize(("body", "status", "param", "says"), [
    ({"model": "gpt-4o", "messages": USER}, 404, "model", "gpt-4o"),
    ({"model": "openclaw/nobody", "messages": USER}, 404, "model", "unknown agent 'nobody'"),
    ({"model": "openclaw", "messages": []}, 400, "messages", "non-empty"),
    ({"model": "openclaw", "messages": [{"role": "assistant", "content": "x"}]}, 400,
     "messages", "Missing user message"),
    ({"model": "openclaw", "messages": [{"role": "wizard", "content": "x"}]}, 400,
     "messages[0].role", "wizard"),
    ({"model": "openclaw", "messages": USER, "n": 2}, 400, "n", "`n` is not supported"),
    ({"model": "openclaw", "messages": USER, "tools": [{"type": "function"}]}, 400,
     "tools[0].function", "must be an object"),
    ({"model": "openclaw", "messages": USER, "tools": [{"type": "web_search"}]}, 400,
     "tools[0].type", "only function tools"),
    ({"model": "openclaw", "messages": USER, "tools": [
        {"type": "function", "function": {"name": "has space"}}]}, 400,
     "tools[0].function.name", "1-64 letters"),
    ({"model": "openclaw", "messages": USER, "tool_choice": "required"}, 400, "tool_choice",
     "\"auto\" or \"none\""),
    ({"model": "openclaw", "messages": [*USER, {"role": "tool", "content": "x"}]}, 400,
     "messages[1].tool_call_id", "must name the tool call"),
    ({"model": "openclaw", "messages": USER, "stream": "yes"}, 400, "stream", "boolean"),
    ({"model": "openclaw", "messages": USER, "user": "has spaces"}, 400, "user", "`user`"),
])
async def test_bad_chat_requests_are_named(serve: ServeFactory, body: dict[str, Any],
                                           status: int, param: str, says: str) -> None:
    async with serve(HELLO) as served, httpx.AsyncClient() as http:
        response = await http.post(f"{served.v1}/chat/completions", json=body, headers=AUTH)
        assert response.status_code == status
        err = error(response)
        assert err["param"] == param
        assert says in err["message"]


async def test_malformed_json_oversized_bodies_and_wrong_methods(serve: ServeFactory) -> None:
    gateway = {"port": 0, "auth": {"mode": "token", "token": TOKEN},
               "http": {"endpoints": {"chatCompletions": {"enabled": True,
                                                          "maxBodyBytes": 2048}}}}
    async with serve(HELLO, gateway=gateway) as served, httpx.AsyncClient() as http:
        url = f"{served.v1}/chat/completions"
        bad = await http.post(url, content=b'{"model": "openclaw", ', headers={
            **AUTH, "content-type": "application/json"})
        assert bad.status_code == 400
        assert "malformed JSON" in error(bad)["message"] and "line 1" in error(bad)["message"]
        deep = await http.post(url, content=b'{"model": ' + b"[" * 200 + b"]" * 200 + b"}",
                               headers={**AUTH, "content-type": "application/json"})
        assert deep.status_code == 400 and "nested deeper than 128" in error(deep)["message"]
        nan = await http.post(url, content=b'{"model": NaN}', headers={
            **AUTH, "content-type": "application/json"})
        assert nan.status_code == 400 and error(nan)["code"] == "invalid_json"
        big = await http.post(url, json={"model": "openclaw", "messages": [
            {"role": "user", "content": "x" * 5000}]}, headers=AUTH)
        assert big.status_code == 413 and "2048 bytes" in error(big)["message"]
        wrong = await http.get(url, headers=AUTH)
        assert wrong.status_code == 405 and wrong.headers["allow"] == "POST"
        off = await http.post(f"{served.v1}/responses", json={"input": "x"}, headers=AUTH)
        assert off.status_code == 404
        assert "gateway.http.endpoints.responses.enabled" in error(off)["message"]
        assert served.model.requests == []


async def test_endpoints_are_off_by_default_but_models_answer(serve: ServeFactory) -> None:
    gateway = {"port": 0, "auth": {"mode": "token", "token": TOKEN}}
    async with serve(HELLO, gateway=gateway) as served, httpx.AsyncClient() as http:
        off = await http.post(f"{served.v1}/chat/completions",
                              json={"model": "openclaw", "messages": USER}, headers=AUTH)
        assert off.status_code == 404 and error(off)["code"] == "endpoint_disabled"
        models = await http.get(f"{served.v1}/models", headers=AUTH)
        assert models.status_code == 200


async def test_scopes_narrowed_by_header_are_enforced(serve: ServeFactory) -> None:
    async with serve(HELLO) as served, httpx.AsyncClient() as http:
        read_only = {**AUTH, "x-openclaw-scopes": "operator.read"}
        listed = await http.get(f"{served.v1}/models", headers=read_only)
        assert listed.status_code == 200
        denied = await http.post(f"{served.v1}/chat/completions",
                                 json={"model": "openclaw", "messages": USER}, headers=read_only)
        assert denied.status_code == 403
        assert "operator.write" in error(denied)["message"]


async def test_unknown_agent_header_and_bad_session_key_header(serve: ServeFactory) -> None:
    async with serve(HELLO) as served, httpx.AsyncClient() as http:
        url = f"{served.v1}/chat/completions"
        body = {"model": "openclaw", "messages": USER}
        nobody = await http.post(url, json=body, headers={**AUTH, "x-openclaw-agent-id": "zed"})
        assert nobody.status_code == 404 and error(nobody)["code"] == "agent_not_found"
        bad_key = await http.post(url, json=body,
                                  headers={**AUTH, "x-openclaw-session-key": "../etc"})
        assert bad_key.status_code == 400 and error(bad_key)["code"] == "invalid_session_key"
        ok = await http.post(url, json=body, headers={
            **AUTH, "x-openclaw-agent-id": "helper",
            "x-openclaw-session-key": "agent:helper:chosen"})
        assert ok.status_code == 200
        assert ok.headers["x-openclaw-session-key"] == "agent:helper:chosen"


async def test_bad_responses_requests_are_named(serve: ServeFactory) -> None:
    async with serve(HELLO) as served, httpx.AsyncClient() as http:
        url = f"{served.v1}/responses"
        unknown = await http.post(url, headers=AUTH, json={
            "model": "openclaw", "input": "x", "previous_response_id": "resp_nope"})
        assert unknown.status_code == 400
        assert error(unknown)["param"] == "previous_response_id"
        empty = await http.post(url, headers=AUTH, json={"model": "openclaw", "input": []})
        assert empty.status_code == 400 and error(empty)["param"] == "input"
        kind = await http.post(url, headers=AUTH, json={
            "model": "openclaw", "input": [{"type": "image_generation_call"}]})
        assert kind.status_code == 400 and error(kind)["param"] == "input[0].type"
        tools = await http.post(url, headers=AUTH, json={
            "model": "openclaw", "input": "x", "tools": [{"type": "web_search"}]})
        assert tools.status_code == 400 and error(tools)["code"] == "unsupported_parameter"
        assert served.model.requests == []
