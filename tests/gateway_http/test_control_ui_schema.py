"""The Control UI's one schema against a real gateway: the protocol frames the page reads
fit what `control_ui/wire.py` declares, and `/ui/api` answers what `schema.py` defines,
with the conversation built right (turns by run, tool calls paired with their results,
usage, titles)."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
from http_support import TOKEN, ServeFactory
from pydantic import BaseModel

from clawharness.attempt.executor import LocalTurnExecutor
from clawharness.gateway.client import GatewayClient
from clawharness.gateway.control_ui import schema, wire

AUTH = {"authorization": f"Bearer {TOKEN}"}
SCRIPT = {"responses": [
    {"match": "^hello", "text": "Hello back, streamed.",
     "usage": {"input_tokens": 50, "output_tokens": 5}},
    {"match": "^run", "text": "Running it.",
     "tool_calls": [{"name": "exec", "arguments": {"command": "echo schema-ok"}, "id": "c1"}]},
    {"match": "schema-ok", "text": "It printed schema-ok."},
]}


def _fits(model: type[BaseModel], payload: Any) -> None:
    """`payload` validates, and every field the model declares that the payload carries
    kept its value (no name was read under another spelling)."""
    parsed = model.model_validate(payload)
    for name, info in model.model_fields.items():
        wire_name = info.alias or name
        if isinstance(payload, dict) and wire_name in payload and not isinstance(
                getattr(parsed, name), BaseModel | list):
            assert getattr(parsed, name) == payload[wire_name], (model.__name__, wire_name)


async def _events_until_final(queue: asyncio.Queue[dict[str, Any]], client: GatewayClient,
                              run_id: str | None = None, *, approve: bool = False
                              ) -> list[dict[str, Any]]:
    frames: list[dict[str, Any]] = []
    while True:
        frame = await asyncio.wait_for(queue.get(), 30)
        frames.append(frame)
        if approve and frame["event"] == "plugin.approval.requested":
            listed = await client.request("plugin.approval.list", {})
            for entry in listed:
                _fits(wire.ApprovalRequested, entry)
            await client.request("plugin.approval.resolve", {"id": frame["payload"]["id"],
                                                             "decision": "allow-once"})
        payload = frame["payload"]
        if frame["event"] == "chat" and payload.get("state") in ("final", "error") and (
                run_id is None or payload["runId"] == run_id):
            return frames


async def test_protocol_frames_fit_what_the_page_reads(serve: ServeFactory) -> None:
    tools = {"exec": {"security": "full", "ask": "always"}}
    async with serve(SCRIPT, tools=tools) as served:
        url = served.base.replace("http", "ws")
        async with await GatewayClient.connect(url, token=TOKEN, client_id="openclaw-control-ui",
                                               mode="ui",
                                               caps=("tool-events", "plugin-approvals")) as client:
            queue = client.events()
            await client.request("sessions.subscribe", {})
            send = {"sessionKey": "agent:main:schema", "message": "run it",
                    "idempotencyKey": "k-schema"}
            _fits(wire.ChatSendRequest, send)
            answer = await client.request("chat.send", send)
            _fits(wire.ChatSendAnswer, answer)
            assert answer["runId"] == "k-schema"
            frames = await _events_until_final(queue, client, approve=True)
    kinds: set[str] = set()
    for frame in frames:
        payload, event = frame["payload"], frame["event"]
        if event == "chat":
            _fits(wire.ChatEvent, payload)
            kinds.add(f"chat.{payload['state']}")
        elif event == "agent":
            _fits(wire.AgentEvent, payload)
            if payload["stream"] == "tool":
                _fits(wire.ToolEventData, payload["data"])
                kinds.add(f"tool.{payload['data']['phase']}")
            elif payload["stream"] == "lifecycle":
                _fits(wire.LifecycleData, payload["data"])
        elif event == "plugin.approval.requested":
            _fits(wire.ApprovalRequested, payload)
            assert payload["request"]["toolCallId"] == "c1"
            assert payload["request"]["runId"] == "k-schema"
            kinds.add(event)
        elif event == "plugin.approval.resolved":
            _fits(wire.ApprovalResolved, payload)
            kinds.add(event)
    assert {"chat.delta", "chat.final", "tool.start", "tool.result",
            "plugin.approval.requested", "plugin.approval.resolved"} <= kinds
    result = next(f["payload"]["data"] for f in frames
                  if f["event"] == "agent" and f["payload"]["data"].get("phase") == "result")
    assert result["preview"] == "schema-ok"


async def test_the_conversation_answers_turns_with_tools_usage_and_titles(
        serve: ServeFactory) -> None:
    async with serve(SCRIPT) as served, httpx.AsyncClient(timeout=30) as http:
        host = served.host
        await host.run_turn("agent:main:conv", "hello there, a long greeting with many words in it")
        await host.run_turn("agent:main:conv", "run the command")
        base = f"{served.base}/ui/api/sessions/agent:main:conv/conversation"
        answer = (await http.get(base, headers=AUTH)).json()
        view = schema.ConversationView.model_validate(answer)
        assert answer == schema.dump(view)  # exactly the schema's fields, camelCase
        first, second = view.turns
        assert first.title == "hello there, a long greeting with many words…"
        assert first.user_text == "hello there, a long greeting with many words in it"
        assert [i.text for i in first.items if isinstance(i, schema.TextItem)] == [
            "Hello back, streamed."]
        assert first.usage is not None and first.usage.input == 50 and first.usage.output == 5
        assert first.model == "scripted/m" and first.run_id
        assert first.run_id != second.run_id
        text, tool, after = second.items
        assert isinstance(text, schema.TextItem) and text.text == "Running it."
        assert isinstance(tool, schema.ToolItem)
        assert (tool.name, tool.arguments, tool.status, tool.result, tool.is_error) == (
            "exec", {"command": "echo schema-ok"}, "ok", "schema-ok", False)
        assert isinstance(after, schema.TextItem) and after.text == "It printed schema-ok."
        assert "toolCallId" in answer["turns"][1]["items"][1]
        # the inspector's record fills in how the turn ended once it is written
        executor = host.executor
        assert isinstance(executor, LocalTurnExecutor)
        await executor.runner.drain()
        only = (await http.get(base, params={"run": second.run_id}, headers=AUTH)).json()
        assert [t["runId"] for t in only["turns"]] == [second.run_id]
        stored = only["turns"][0]
        assert (stored["terminal"], stored["runtime"]) == ("ok", "openclaw")
        assert stored["durationMs"] > 0 and stored["usage"]["totalTokens"] > 0

        sessions = (await http.get(f"{served.base}/ui/api/sessions", headers=AUTH)).json()
        listed = schema.SessionList.model_validate(sessions)
        assert [(s.key, s.title) for s in listed.sessions] == [
            ("agent:main:conv", "run the command")]
        assert listed.default_agent_id == "main" and "helper" in listed.agent_ids

        hits = (await http.get(f"{served.base}/ui/api/search", params={"q": "greeting"},
                               headers=AUTH)).json()
        assert [(h["sessionKey"], h["role"]) for h in hits["hits"]] == [("agent:main:conv", "user")]

        missing = await http.get(f"{served.base}/ui/api/sessions/agent:main:none/conversation",
                                 headers=AUTH)
        assert missing.status_code == 200 and missing.json()["turns"] == []
        bad = await http.get(f"{served.base}/ui/api/sessions/agent::x/conversation", headers=AUTH)
        assert bad.status_code == 400 and bad.json()["error"]["param"] == "key"
