"""`clawharness --log-format json`: one JSON object per line on stderr, carrying the ids
of the span current when the record was made, and no line with a secret in it."""

from __future__ import annotations

import io
import json
import logging
import os
import subprocess
import sys
from pathlib import Path

from otlp_receiver import otlp_receiver

from clawharness.observability.logs import json_log_formatter, text_log_formatter
from clawharness.testing import ScriptedModelServer

API_KEY = "sk-proj-logsTESTsecret0123456789abcdefABCDEF"


def test_an_agent_turn_logs_json_lines_with_span_ids_and_no_secret(tmp_path: Path) -> None:
    script = {"responses": [{"match": "hello", "text": "hi"}]}
    server = ScriptedModelServer(script)
    with server.run_in_thread(), otlp_receiver() as (endpoint, received):
        config = tmp_path / "config.json"
        config.write_text(json.dumps({
            "models": {"providers": {"local": {
                "baseUrl": server.base_url_openai, "api": "openai-responses",
                "apiKey": API_KEY, "models": [{"id": "m"}]}}},
            # a fallback that cannot be parsed is logged, with the key the config put in it
            "agents": {"defaults": {"model": {"primary": "local/m",
                                              "fallbacks": [f"nowhere/{API_KEY}/x y"]},
                                    "workspace": str(tmp_path / "ws")}},
            "store": {"url": str(tmp_path / "state.db")},
            "logging": {"debug": ["agents/harness"]},
            "diagnostics": {"otel": {"enabled": True, "endpoint": endpoint}},
        }))
        env = {**os.environ, "CLAWHARNESS_LOG_LEVEL": "DEBUG", "NO_COLOR": "1"}
        env.pop("CLAWHARNESS_LOG_FORMAT", None)
        done = subprocess.run(
            [sys.executable, "-m", "clawharness", "--log-format", "json", "agent", "--config",
             str(config), "--session", "logs", "--json", "-m", "hello"],
            capture_output=True, text=True, env=env, timeout=60, check=False)
        assert done.returncode == 0, done.stderr
        received.wait_for(lambda r: any(s.name == "invoke_agent main" for s in r.spans()))
        turn = next(s for s in received.spans() if s.name == "invoke_agent main")
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.strip()]
    assert lines, "no log lines"
    assert all({"ts", "level", "logger", "message"} <= set(line) for line in lines)
    selected = next(line for line in lines if line["message"].startswith("agent harness selected"))
    assert selected["level"] == "debug"
    assert selected["trace_id"] == turn.trace_id.hex()
    assert selected["span_id"] == turn.span_id.hex()  # made inside the turn's span
    assert selected["extra"]["harness_selection"]["selectedHarnessId"] == "openclaw"
    skipped = next(line for line in lines if "fallback" in line["message"])
    assert "nowhere/" in skipped["message"]
    assert API_KEY not in done.stderr and API_KEY[:20] not in done.stderr


def test_every_line_is_redacted_text_and_json() -> None:
    logger = logging.getLogger("clawharness.test.redaction")
    for kind, formatter in (("json", json_log_formatter()), ("text", text_log_formatter())):
        stream = io.StringIO()
        handler = logging.StreamHandler(stream)
        handler.setFormatter(formatter)
        logger.addHandler(handler)
        try:
            try:
                raise RuntimeError(f"upstream said Authorization: Bearer {API_KEY}")
            except RuntimeError:
                logger.error("calling with key %s failed", API_KEY, exc_info=True,
                             extra={"token_value": API_KEY})
        finally:
            logger.removeHandler(handler)
        out = stream.getvalue()
        assert "calling with key" in out and "RuntimeError" in out
        assert API_KEY not in out and API_KEY[8:30] not in out
        if kind == "json":  # the redacted line is still one JSON object
            line = json.loads(out)
            assert line["level"] == "error" and "extra" in line and "trace_id" not in line
