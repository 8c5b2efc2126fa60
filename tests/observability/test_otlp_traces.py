"""A tool-calling turn through `clawharness agent`, exported by OTLP to a local receiver:
the span tree, its GenAI attributes and parentage, decoded from the real protobuf."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from otlp_receiver import attributes, otlp_receiver
from typer.testing import CliRunner

from clawharness.cli.main import app
from clawharness.testing import ScriptedModelServer

API_KEY = "sk-proj-otelTESTsecret0123456789abcdefABCDEF"

SCRIPT = {"responses": [
    {"match": "read the note", "tool_calls": [{"name": "read", "arguments": {"path": "n.txt"}}]},
    {"match": "the note says", "text": "it says hi"},
], "exhausted": "text"}


def _config(tmp_path: Path, base_url: str, endpoint: str, **otel: Any) -> Path:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "n.txt").write_text("the note says hi\n")
    path = tmp_path / "config.json5"
    path.write_text(json.dumps({
        "models": {"providers": {"local": {"baseUrl": base_url, "api": "openai-responses",
                                           "apiKey": API_KEY, "models": [{"id": "m"}]}}},
        "agents": {"defaults": {"model": "local/m", "workspace": str(workspace)}},
        "tools": {"allow": ["read"]},
        "store": {"url": str(tmp_path / "state.db")},
        "diagnostics": {"otel": {"enabled": True, "endpoint": endpoint,
                                 "serviceName": "otel-test",
                                 "headers": {"authorization": "Bearer collector-token"},
                                 **otel}},
    }))
    return path


def _run_agent(tmp_path: Path, prompt: str = "read the note",
               **otel: Any) -> tuple[dict[str, Any], Any]:
    server = ScriptedModelServer(SCRIPT)
    with server.run_in_thread(), otlp_receiver() as (endpoint, received):
        config = _config(tmp_path, server.base_url_openai, endpoint, **otel)
        out = CliRunner().invoke(app, ["agent", "--config", str(config), "--session", "t",
                                       "--json", "-m", prompt],
                                 catch_exceptions=False)
        assert out.exit_code == 0, out.output
        # the host flushes its exporter when the command closes it
        received.wait_for(lambda r: any(s.name.startswith("invoke_agent") for s in r.spans()))
        return json.loads(out.stdout.strip().splitlines()[-1]), received


def test_a_tool_turn_exports_the_span_tree_with_genai_attributes(tmp_path: Path) -> None:
    result, received = _run_agent(tmp_path)
    assert result["terminal"] == "ok" and result["text"] == "it says hi"
    spans = received.spans()
    by_name: dict[str, list[Any]] = {}
    for span in spans:
        by_name.setdefault(span.name, []).append(span)
    turn, = by_name["invoke_agent main"]
    attempt, = by_name["harness_attempt openclaw"]
    chats = by_name["chat m"]
    tool, = by_name["execute_tool read"]
    assert "session_lease_wait" not in by_name  # the writer was free: no wait, no span
    assert len(chats) == 2  # the tool call, then the answer
    assert "store_append" in by_name

    # one trace; parentage: turn > attempt > (chat, tool)
    assert {s.trace_id for s in spans} == {turn.trace_id}
    assert turn.parent_span_id == b""
    assert attempt.parent_span_id == turn.span_id
    assert all(c.parent_span_id == attempt.span_id for c in chats)
    assert tool.parent_span_id == attempt.span_id
    first_chat = min(chats, key=lambda s: s.start_time_unix_nano)
    assert first_chat.end_time_unix_nano <= tool.start_time_unix_nano

    session_id = result["sessionId"]
    t = attributes(turn)
    assert t["gen_ai.operation.name"] == "invoke_agent"
    assert t["gen_ai.conversation.id"] == session_id
    assert t["clawharness.session.key"] == "agent:main:t"
    assert t["clawharness.runtime"] == "openclaw"
    assert t["clawharness.selected_reason"] == "auto_openclaw"
    assert t["clawharness.terminal"] == "ok"
    assert t["gen_ai.usage.input_tokens"] > 0 and t["gen_ai.usage.output_tokens"] > 0
    c = attributes(first_chat)
    assert c["gen_ai.operation.name"] == "chat"
    assert c["gen_ai.provider.name"] == "local"
    assert c["gen_ai.request.model"] == "m" and c["gen_ai.response.model"] == "m"
    assert c["gen_ai.usage.input_tokens"] > 0
    assert c["gen_ai.conversation.id"] == session_id
    tl = attributes(tool)
    assert tl["gen_ai.operation.name"] == "execute_tool"
    assert tl["gen_ai.tool.name"] == "read"
    assert tl["gen_ai.tool.call.id"]
    assert tl["clawharness.tool.outcome"] == "success"
    # no content without captureContent
    assert not any(k.startswith(("gen_ai.input", "gen_ai.output", "gen_ai.tool.call.arg"))
                   for s in spans for k in attributes(s))

    # the metrics went by OTLP too (flushed when the host closed)
    exported = {m.name: m for request in received.metrics for rm in request.resource_metrics
                for sm in rm.scope_metrics for m in sm.metrics}
    turns = exported["clawharness.turns"].sum.data_points
    assert [p.as_int for p in turns] == [1]
    assert {kv.key: kv.value.string_value for kv in turns[0].attributes} == {
        "runtime": "openclaw", "outcome": "ok"}
    assert "gen_ai.client.token.usage" in exported
    assert "gen_ai.client.operation.duration" in exported

    resource = {kv.key: kv.value.string_value
                for kv in received.traces[0].resource_spans[0].resource.attributes}
    assert resource["service.name"] == "otel-test"
    assert received.headers[0].get("authorization") == "Bearer collector-token"


def test_captured_content_is_redacted_and_the_api_key_is_nowhere(tmp_path: Path) -> None:
    # the prompt carries the key too: captured content goes through the redaction
    _, received = _run_agent(tmp_path, f"read the note, api_key={API_KEY}",
                             captureContent=True)
    spans = received.spans()
    turn = next(s for s in spans if s.name == "invoke_agent main")
    captured = attributes(turn)["gen_ai.input.messages"]
    assert "read the note" in captured and "api_key=" in captured
    tool = next(s for s in spans if s.name == "execute_tool read")
    assert "n.txt" in attributes(tool)["gen_ai.tool.call.arguments"]
    assert "the note says hi" in attributes(tool)["gen_ai.tool.call.result"]
    for body in received.raw:  # every span and metric payload, as sent
        assert API_KEY.encode() not in body
        assert API_KEY[:20].encode() not in body


def test_a_chat_spans_input_count_includes_its_cached_tokens(tmp_path: Path) -> None:
    # GenAI conventions: gen_ai.usage.input_tokens counts every input token, the cached
    # part is given apart (the turn's usage keeps uncached input as its `input`)
    script = {"responses": [{"text": "cached", "usage": {
        "input_tokens": 1000, "cached_input_tokens": 800, "output_tokens": 5}}]}
    server = ScriptedModelServer(script)
    with server.run_in_thread(), otlp_receiver() as (endpoint, received):
        config = _config(tmp_path, server.base_url_openai, endpoint)
        out = CliRunner().invoke(app, ["agent", "--config", str(config), "--session", "c",
                                       "--json", "-m", "hi"], catch_exceptions=False)
        assert out.exit_code == 0, out.output
        received.wait_for(lambda r: any(s.name.startswith("invoke_agent") for s in r.spans()))
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert (result["usage"]["input"], result["usage"]["cacheRead"]) == (200, 800)
    by_name = {span.name: span for span in received.spans()}
    for name in ("chat m", "invoke_agent main"):
        span = attributes(by_name[name])
        assert span["gen_ai.usage.input_tokens"] == 1000, name
        assert span["gen_ai.usage.cache_read.input_tokens"] == 800, name
