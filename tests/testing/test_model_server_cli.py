"""`clawharness model-server` as a subprocess: prints its URL, answers, stops on signals."""

from __future__ import annotations

import json
import selectors
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

PYTHON = sys.executable


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
        assert line.startswith("listening http://127.0.0.1:")
        url = line.split(" ", 1)[1]
        answer = httpx.post(f"{url}/v1/chat/completions", timeout=10,
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
