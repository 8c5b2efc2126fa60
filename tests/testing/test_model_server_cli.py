"""`clawharness model-server` as a subprocess: prints its URL, answers, stops on signals."""

from __future__ import annotations

import json
import os
import re
import selectors
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

PYTHON = sys.executable
STARTUP = re.compile(r"listening on (?P<url>http://127\.0\.0\.1:\d+) "
                     r"\(provider baseUrl: (?P<base>\S+?)\)")


def _start(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [PYTHON, "-m", "clawharness", "model-server", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def _first_line(proc: subprocess.Popen[str], timeout: float = 20.0) -> str:
    assert proc.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        if not selector.select(timeout):
            proc.kill()
            pytest.fail(f"model-server printed nothing within {timeout} s")
    line = proc.stdout.readline().strip()
    if not line:
        _, err = proc.communicate(timeout=timeout)
        pytest.fail(f"model-server exited {proc.returncode} before listening: {err}")
    return line


@pytest.mark.parametrize("stop_signal", [signal.SIGTERM, signal.SIGINT])
def test_cli_serves_the_script_and_exits_cleanly_on_signal(tmp_path: Path, stop_signal):
    script = tmp_path / "script.json"
    script.write_text(json.dumps({"responses": [{"text": "from the cli"}]}))
    log = tmp_path / "log.jsonl"
    proc = _start("--script", str(script), "--port", "0", "--log", str(log))
    try:
        line = _first_line(proc)
        found = STARTUP.fullmatch(line)
        assert found is not None, line
        url, base_url = found["url"], found["base"]
        assert base_url == f"{url}/v1"  # what a provider's `baseUrl` must be
        assert proc.stdout is not None  # printed with the first line, maybe buffered with it
        assert proc.stdout.readline().strip() == (
            f"an anthropic-messages provider uses baseUrl {url} (its SDK adds /v1 itself)")
        answer = httpx.post(f"{base_url}/chat/completions", timeout=10,
                            json={"model": "m", "messages": [{"role": "user", "content": "hi"}]})
        proc.send_signal(stop_signal)
        code = proc.wait(timeout=15)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    assert answer.json()["choices"][0]["message"]["content"] == "from the cli"
    assert code == 0
    assert json.loads(log.read_text().splitlines()[0])["path"] == "/v1/chat/completions"


def test_cli_refuses_an_invalid_script_with_its_key_path(tmp_path: Path):
    script = tmp_path / "bad.yaml"
    script.write_text("responses:\n  - text: ok\n  - txet: typo\n")
    proc = _start("--script", str(script))
    _, err = proc.communicate(timeout=30)

    assert proc.returncode == 2
    assert "bad.yaml" in err and "responses[1].txet" in err


def test_cli_refuses_a_non_loopback_host(tmp_path: Path):
    script = tmp_path / "s.json"
    script.write_text('{"responses": []}')
    proc = _start("--script", str(script), "--host", "0.0.0.0")
    _, err = proc.communicate(timeout=30)

    assert proc.returncode == 2 and "loopback" in err


def test_help_describes_the_script_format_and_points_to_the_doc() -> None:
    proc = subprocess.run([PYTHON, "-m", "clawharness", "model-server", "--help"],
                          capture_output=True, text=True, timeout=30, check=True,
                          env={**os.environ, "COLUMNS": "200", "NO_COLOR": "1"})
    text = " ".join(proc.stdout.split())
    for words in ('"responses"', '"text"', '"tool_calls"', '"match"', '"error"',
                  "docs/scripted-model.md", "/v1"):
        assert words in text, f"{words} missing from --help:\n{proc.stdout}"
