"""A scripted model calls real MCP servers' tools through `clawharness agent` and the host."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest
from mcp_rig import (
    FILESYSTEM,
    everything_over_http,
    everything_server,
    invoke,
    kill_marked,
    needs_everything,
    needs_filesystem,
    pids_with_marker,
    scripted_config,
)

from clawharness.host import Host

pytestmark = pytest.mark.integration


def _tool_results(host_config: Path, session: str) -> list[dict[str, Any]]:
    import asyncio

    async def read() -> list[dict[str, Any]]:
        async with Host.from_config(host_config) as host:
            entries = await host.history(session)
        return [e.content for e in entries if e.role == "toolResult"]

    return asyncio.run(read())


@needs_everything
def test_agent_calls_an_mcp_tool_and_its_real_output_is_in_the_transcript(
        tmp_path: Path) -> None:
    script = {"responses": [
        {"match": "echo", "tool_calls": [{"name": "everything__echo",
                                          "arguments": {"message": "hello over mcp"}}]},
        {"match": "Echo: hello over mcp", "text": "the server echoed it"},
    ]}
    extra = {"mcp": {"servers": {"everything": everything_server()}}}
    with scripted_config(tmp_path, script, extra) as config:
        out = invoke("agent", "--config", str(config), "--session", "m", "--json",
                     "-m", "please echo")
        assert out.exit_code == 0, out.output
        result = json.loads(out.stdout.strip().splitlines()[-1])
        assert result["text"] == "the server echoed it"
        assert [(c["name"], c["ok"]) for c in result["toolCalls"]] == [
            ("everything__echo", True)]
        assert all(c["id"] for c in result["toolCalls"])
        results = _tool_results(config, "m")
    assert results[0]["content"] == [{"type": "text", "text": "Echo: hello over mcp"}]
    assert results[0]["toolName"] == "everything__echo"


@needs_filesystem
def test_a_denied_mcp_tool_is_refused_and_never_reaches_the_server(tmp_path: Path) -> None:
    root = tmp_path / "files"
    root.mkdir()
    (root / "notes.txt").write_text("the real file contents")
    target = root / "written.txt"
    script = {"responses": [
        {"match": "write", "tool_calls": [{"name": "files__write_file", "arguments": {
            "path": str(target), "content": "should never be written"}}]},
        {"match": "not available", "tool_calls": [{"name": "files__read_text_file",
                                                   "arguments": {"path": str(root / "notes.txt")}}]},
        {"match": "the real file contents", "text": "read it, could not write"},
    ]}
    extra = {"mcp": {"servers": {"files": {"command": str(FILESYSTEM), "args": [str(root)]}}},
             "tools": {"deny": ["files__write_file"]}}
    with scripted_config(tmp_path, script, extra) as config:
        out = invoke("agent", "--config", str(config), "--session", "d", "--json",
                     "-m", "write a file")
        assert out.exit_code == 0, out.output
        result = json.loads(out.stdout.strip().splitlines()[-1])
        denied, read = result["toolCalls"]
        assert (denied["name"], denied["ok"]) == ("files__write_file", False)
        assert "denied by the tools.deny list" in denied["error"]
        assert (read["name"], read["ok"]) == ("files__read_text_file", True)
        assert result["text"] == "read it, could not write"
        results = _tool_results(config, "d")
    assert results[0]["isError"] is True
    assert "not available" in results[0]["content"][0]["text"]
    assert "the real file contents" in results[1]["content"][0]["text"]
    assert not target.exists()


@needs_filesystem
def test_a_deny_written_with_the_configured_server_name_holds(tmp_path: Path) -> None:
    # issue 31: the server `my.files` offers `my-files__...`; `my.files__*` denied nothing
    root = tmp_path / "files"
    root.mkdir()
    target = root / "written.txt"
    script = {"responses": [
        {"match": "write", "tool_calls": [{"name": "my-files__write_file", "arguments": {
            "path": str(target), "content": "should never be written"}}]},
        {"match": "not available", "text": "could not write"},
    ]}
    extra = {"mcp": {"servers": {"my.files": {"command": str(FILESYSTEM), "args": [str(root)]}}},
             "tools": {"deny": ["my.files__write_*"]}}
    with scripted_config(tmp_path, script, extra) as config:
        out = invoke("agent", "--config", str(config), "--session", "d", "--json",
                     "-m", "write a file")
        assert out.exit_code == 0, out.output
        result = json.loads(out.stdout.strip().splitlines()[-1])
        [denied] = result["toolCalls"]
        assert (denied["name"], denied["ok"]) == ("my-files__write_file", False)
        assert 'denied by the tools.deny list (entry "my.files__write_*")' in denied["error"]
        listed = invoke("mcp", "tools", "my.files", "--config", str(config), "--json")
        rows = {r["name"]: r["offered"] for r in json.loads(listed.stdout)["tools"]}
        assert rows["my-files__write_file"] is False and rows["my-files__read_text_file"]
    assert not target.exists()


@needs_filesystem
def test_secrets_in_an_mcp_result_reach_neither_the_model_nor_the_transcript(
        tmp_path: Path) -> None:
    # issue 31: a server's result went to the model and the transcript as it came
    from clawharness.testing import ScriptedModelServer

    root = tmp_path / "files"
    root.mkdir()
    secrets = ["ghp_abcdefghijklmnopqrstuvwxyz0123456789", "hunter2-correct-horse",
               "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH"]
    (root / ".env").write_text(f"GITHUB_TOKEN={secrets[0]}\nDB_PASSWORD={secrets[1]}\n"
                               f"OPENAI_API_KEY={secrets[2]}\nvisible-marker\n")
    server = ScriptedModelServer({"responses": [
        {"tool_calls": [{"name": "files__read_text_file",
                         "arguments": {"path": str(root / ".env")}}]},
        {"text": "read it"}]})
    with server.run_in_thread():
        config = tmp_path / "config.json"
        config.write_text(json.dumps({
            "models": {"providers": {"local": {"baseUrl": server.base_url_openai,
                                               "api": "openai-responses", "apiKey": "k",
                                               "models": [{"id": "m"}]}}},
            "agents": {"defaults": {"model": "local/m", "workspace": str(tmp_path / "ws")}},
            "store": {"url": str(tmp_path / "state.db")},
            "mcp": {"servers": {"files": {"command": str(FILESYSTEM), "args": [str(root)]}}}}))
        out = invoke("agent", "--config", str(config), "--session", "s", "--json",
                     "-m", "read the env file")
        assert out.exit_code == 0, out.output
        sent = json.dumps([r.to_json()["body"] for r in server.requests])
    stored = json.dumps(_tool_results(config, "s"))
    for place, text in (("model request", sent), ("transcript", stored)):
        assert "visible-marker" in text, place
        assert [s for s in secrets if s in text] == [], place


@needs_everything
async def test_a_killed_server_is_restarted_and_the_next_call_works(tmp_path: Path) -> None:
    import asyncio

    marker = uuid.uuid4().hex
    script = {"responses": [
        {"match": "Echo: ping", "text": "pong", "repeat": True},
        {"match": "^echo", "tool_calls": [{"name": "everything__echo",
                                           "arguments": {"message": "ping"}}], "repeat": True},
    ]}
    extra = {"mcp": {"servers": {"everything": everything_server(marker)}}}
    with scripted_config(tmp_path, script, extra) as config:
        async with Host.from_config(config) as host:
            first = await host.run_turn("k", "echo please")
            assert first.text == "pong"
            conn = host.mcp.connection("everything")
            assert pids_with_marker(marker)
            assert kill_marked(marker) >= 1
            async with asyncio.timeout(10):  # the host sees the process go
                while conn.alive:
                    await asyncio.sleep(0.02)
            second = await host.run_turn("k", "echo again")
            assert second.text == "pong", second
            # the first call after the crash already works: nothing was retried
            assert [(c.tool_name, c.is_error) for c in second.tool_calls] == [
                ("everything__echo", False)]
            assert conn.starts == 2
        assert not pids_with_marker(marker)  # closed with the host


@needs_everything
async def test_a_hung_call_times_out_with_a_clear_error_and_the_next_works(
        tmp_path: Path) -> None:
    script = {"responses": [
        {"match": "slow", "tool_calls": [{"name": "everything__trigger-long-running-operation",
                                          "arguments": {"duration": 30, "steps": 1}}]},
        {"match": "no answer within", "text": "it timed out"},
        {"match": "echo", "tool_calls": [{"name": "everything__echo",
                                          "arguments": {"message": "after"}}]},
        {"match": "Echo: after", "text": "back"},
    ]}
    extra = {"mcp": {"servers": {"everything": everything_server(toolTimeoutMs=800)}}}
    with scripted_config(tmp_path, script, extra) as config:
        async with Host.from_config(config) as host:
            slow = await host.run_turn("h", "be slow")
            assert slow.text == "it timed out"
            history = await host.history("h")
            text = next(e for e in history if e.role == "toolResult").content["content"][0]["text"]
            assert "'everything'" in text and "trigger-long-running-operation" in text
            assert "no answer within 0.8s" in text
            after = await host.run_turn("h", "echo")
            assert after.text == "back"


@needs_everything
@pytest.mark.parametrize(("mode", "transport"), [("streamableHttp", "streamable-http"),
                                                 ("sse", "sse")])
def test_agent_calls_a_server_over_http(tmp_path: Path, mode: str, transport: str,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MCP_HTTP_TEST_HEADER", "header-value")
    script = {"responses": [
        {"match": "sum", "tool_calls": [{"name": "web__get-sum", "arguments": {"a": 2, "b": 40}}]},
        {"match": "42", "text": "the sum is 42"},
    ]}
    with everything_over_http(mode) as url:
        extra = {"mcp": {"servers": {"web": {"transport": transport, "url": url,
                                             "headers": {"X-Test": "${MCP_HTTP_TEST_HEADER}"}}}}}
        with scripted_config(tmp_path, script, extra) as config:
            out = invoke("agent", "--config", str(config), "--session", "h", "--json",
                         "-m", "what is the sum")
            assert out.exit_code == 0, out.output
            result = json.loads(out.stdout.strip().splitlines()[-1])
            assert result["text"] == "the sum is 42", result
            results = _tool_results(config, "h")
    assert "42" in results[0]["content"][0]["text"]
