"""Secrets never leave (issue 31): a command's output full of credentials, through a real
turn (scripted model over HTTP, the real exec and read tools), reaches neither the next
model request, nor the stored transcript, the inspector record, the spans (with content
capture on) nor the log lines; a provider error echoing its key is masked everywhere."""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path
from typing import Any

from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from clawharness.attempt.executor import LocalTurnExecutor
from clawharness.host import Host
from clawharness.observability import Telemetry, TelemetrySettings
from clawharness.observability.logs import configure_logging
from clawharness.testing import ScriptedModelServer

#: the provider's own key: it has no vendor shape, only the host knows it is a secret
PROVIDER_KEY = "plain-provider-credential-7f3a9c1e"
SECRETS = {
    "openai": "sk-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
    "openai_project": "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH",
    "anthropic": "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH",
    "github": "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
    "github_pat": "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCD",
    "slack": "xoxb-123456789012-1234567890123-abcdefghijklmnopqrstuvwx",
    "aws_key_id": "AKIAIOSFODNN7EXAMPLE",
    "aws_secret": "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "jwt": "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
           "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
    "quoted_token": "tok3nValueSuperSecret99",
    "db_password": "hunter2-correct-horse",
    "url_password": "s3cr3tpassw0rd",
    "pem_body": "MIIEowIBAAKCAQEA1234567890abcdefghijklmnopqrstuvwxyz",
    "provider_key": PROVIDER_KEY,
}
OUTPUT = f"""build ok: marker-visible-output
OPENAI_API_KEY={SECRETS['openai']}
project {SECRETS['openai_project']}
anthropic {SECRETS['anthropic']}
gh {SECRETS['github']} and {SECRETS['github_pat']}
slack {SECRETS['slack']}
aws_access_key_id = {SECRETS['aws_key_id']}
aws_secret_access_key = {SECRETS['aws_secret']}
jwt {SECRETS['jwt']}
token: "{SECRETS['quoted_token']}"
DB_PASSWORD={SECRETS['db_password']}
url postgres://app:{SECRETS['url_password']}@db.example.com/app
-----BEGIN RSA PRIVATE KEY-----
{SECRETS['pem_body']}
-----END RSA PRIVATE KEY-----
the provider key is {PROVIDER_KEY}
"""


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def leaks(where: dict[str, str]) -> dict[str, list[str]]:
    found = {place: [name for name, secret in SECRETS.items()
                     if secret in text or json.dumps(secret)[1:-1] in text]
             for place, text in where.items()}
    return {place: names for place, names in found.items() if names}


def write_config(tmp_path: Path, base_url: str) -> Path:
    path = tmp_path / "config.json"
    path.write_text(json.dumps({
        "models": {"providers": {"scripted": {
            "baseUrl": base_url, "api": "openai-responses", "apiKey": PROVIDER_KEY,
            "models": [{"id": "m1"}]}}},
        "agents": {"defaults": {"model": "scripted/m1", "workspace": str(tmp_path / "ws")}},
        "tools": {"exec": {"security": "full", "ask": "off"}},
        "diagnostics": {"otel": {"captureContent": True}},
    }))
    return path


async def test_tool_output_secrets_reach_no_model_transcript_record_span_or_log(
        tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "out.txt").write_text(OUTPUT)
    script = {"responses": [
        {"tool_calls": [{"name": "exec", "arguments": {"command": "cat out.txt; false"},
                         "id": "c1"},
                        {"name": "read", "arguments": {"path": "out.txt"}, "id": "c2"}]},
        {"text": "done"}]}
    exporter = InMemorySpanExporter()
    telemetry = Telemetry(TelemetrySettings(tracing=True, capture_content=True),
                          span_processors=[SimpleSpanProcessor(exporter)])
    logs = io.StringIO()
    handler = configure_logging("json", level="DEBUG", stream=logs)
    try:
        async with ScriptedModelServer(script) as server:
            config = write_config(tmp_path, server.base_url_openai)
            async with Host.from_config(config, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)},
                                        telemetry=telemetry) as host:
                result = await host.run_turn("agent:main:s", "build it")
                logging.getLogger("clawharness.test").warning("tool said: %s", OUTPUT)
                entries = await host.history("agent:main:s")
                await drain(host)  # records written
                records = await host.store.list_turn_records("agent:main:s")
            requests = [r.to_json() for r in server.requests]
    finally:
        logging.getLogger().removeHandler(handler)
    assert result.text == "done" and [c.tool_name for c in result.tool_calls] == ["exec", "read"]
    transcript = dumps([e.content for e in entries])
    provider = dumps(requests[1]["body"])
    spans = dumps([dict(s.attributes or {}) for s in exporter.get_finished_spans()])
    places = {"transcript": transcript, "next provider request": provider,
              "inspector record": dumps(records), "spans": spans,
              "logs": logs.getvalue(), "turn result": dumps(result.to_json())}
    assert leaks(places) == {}
    # the output did arrive, masked: the rig would have seen the secrets
    for place in ("transcript", "next provider request", "spans"):
        assert "marker-visible-output" in places[place], place
    for place in ("transcript", "next provider request"):  # as the model saw it
        assert "OPENAI_API_KEY=sk-abc…ABCD" in places[place], place
        assert "…redacted…" in places[place], place
    assert "marker-visible-output" in places["logs"]


async def test_a_provider_error_echoing_its_key_is_masked_everywhere(tmp_path: Path) -> None:
    script = {"responses": [{"error": {
        "status": 401, "type": "invalid_request_error",
        "message": f"Incorrect API key provided: {PROVIDER_KEY}; "
                   f"also tried {SECRETS['openai']}"}}]}
    exporter = InMemorySpanExporter()
    telemetry = Telemetry(TelemetrySettings(tracing=True, capture_content=True),
                          span_processors=[SimpleSpanProcessor(exporter)])
    async with ScriptedModelServer(script) as server:
        config = write_config(tmp_path, server.base_url_openai)
        async with Host.from_config(config, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)},
                                    telemetry=telemetry) as host:
            result = await host.run_turn("agent:main:e", "hello")
            entries = await host.history("agent:main:e")
            await drain(host)
            records = await host.store.list_turn_records("agent:main:e")
    assert result.terminal == "failed" and result.error is not None
    assert "Incorrect API key provided: plain-…9c1e" in result.error
    places = {"turn result": dumps(result.to_json()),
              "transcript": dumps([e.content for e in entries]),
              "inspector record": dumps(records),
              "spans": dumps([[dict(s.attributes or {}), s.status.description,
                                    [dict(e.attributes or {}) for e in s.events]]
                                   for s in exporter.get_finished_spans()])}
    assert leaks(places) == {}
    assert "Incorrect API key provided" in places["transcript"]


def test_the_cli_shows_a_provider_error_masked(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from clawharness.cli.main import app

    script = {"responses": [{"error": {"status": 401, "message": f"bad key {PROVIDER_KEY}"}},
                            {"error": {"status": 401, "message": f"bad key {PROVIDER_KEY}"}}]}
    server = ScriptedModelServer(script)
    with server.run_in_thread():
        config = write_config(tmp_path, server.base_url_openai)
        runner = CliRunner()
        for args in (["--json"], []):
            out = runner.invoke(app, ["agent", "--config", str(config), "-m", "hi", *args],
                                env={"CLAWHARNESS_STATE_DIR": str(tmp_path)},
                                catch_exceptions=False)
            assert out.exit_code != 0
            assert "bad key plain-" in out.output, out.output
            assert PROVIDER_KEY not in out.output


async def drain(host: Host) -> None:
    """Wait until the turns' records are written (they are written off the turn's path)."""
    executor = host.executor
    assert isinstance(executor, LocalTurnExecutor)
    await executor.runner.drain()
