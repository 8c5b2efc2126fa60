"""A turn whose harness streams two assistant messages (text, a tool call, more text):
`clawharness agent` and the HTTP API both show every character of both messages.

`on_partial_reply(text)` takes the message so far; the second message starts over from its
first characters. The CLI once compared it with the first message's text and dropped the
second message's first chunk ("...for you.ted two-messages"); the HTTP API streams each
change as a delta (a new message whole)."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
from http_support import TOKEN, ServeFactory
from typer.testing import CliRunner

from clawharness.cli.main import app
from clawharness.testing import ScriptedModelServer

FIRST = "Let me run that for you."
SECOND = "The command printed two-messages, as expected."
SCRIPT = {"responses": [
    {"match": "^run", "text": FIRST,
     "tool_calls": [{"name": "exec", "arguments": {"command": "echo two-messages"}, "id": "c1"}]},
    {"match": "two-messages", "text": SECOND},
]}


def test_the_cli_prints_both_messages_whole(tmp_path: Path) -> None:
    server = ScriptedModelServer(SCRIPT)
    with server.run_in_thread():
        config = tmp_path / "config.json"
        config.write_text(json.dumps({
            "models": {"providers": {"scripted": {
                "baseUrl": server.base_url_openai, "api": "openai-responses", "apiKey": "k",
                "models": [{"id": "m"}]}}},
            "agents": {"defaults": {"model": "scripted/m", "workspace": str(tmp_path / "ws")}},
            "tools": {"exec": {"security": "full", "ask": "off"}},
            "store": {"url": str(tmp_path / "state.db")},
        }))
        result = CliRunner().invoke(app, ["agent", "-m", "run it", "-c", str(config)],
                                    catch_exceptions=False)
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith(f"{FIRST}\n{SECOND}\n"), result.stdout


async def test_the_http_api_streams_both_messages_whole(serve: ServeFactory) -> None:
    async with serve(SCRIPT) as served, httpx.AsyncClient(timeout=60) as http:
        body = {"model": "openclaw", "stream": True,
                "messages": [{"role": "user", "content": "run it"}]}
        deltas: list[str] = []
        async with http.stream("POST", f"{served.v1}/chat/completions", json=body,
                               headers={"authorization": f"Bearer {TOKEN}"}) as response:
            assert response.status_code == 200
            async for line in response.aiter_lines():
                if line.startswith("data: {"):
                    for choice in json.loads(line[6:])["choices"]:
                        deltas.append(choice["delta"].get("content") or "")
    assert "".join(deltas) == FIRST + SECOND
