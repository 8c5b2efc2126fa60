"""`clawharness model-server --real` as a subprocess: loads the model, answers, stops."""

from __future__ import annotations

import re
import selectors
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from clawharness.testing.real_model import RealModelRuntime

pytestmark = pytest.mark.real_model

LISTENING = re.compile(r"listening on (?P<url>http://127\.0\.0\.1:\d+) \(provider baseUrl: "
                       r"(?P<base>\S+?)\); llama\.cpp loaded the model in [\d.]+ s")


def _line(proc: subprocess.Popen[str], timeout: float) -> str:
    assert proc.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        if not selector.select(timeout):
            pytest.fail(f"model-server --real printed nothing within {timeout} s")
    return proc.stdout.readline().strip()


def test_model_server_real_serves_and_stops_with_its_model(
        real_model_runtime: RealModelRuntime, tmp_path: Path) -> None:
    log = tmp_path / "requests.jsonl"
    proc = subprocess.Popen(
        [sys.executable, "-m", "clawharness", "model-server", "--real", "--port", "0",
         "--log", str(log)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert _line(proc, 30).startswith("loading SmolLM2-135M-Instruct")
        found = LISTENING.fullmatch(_line(proc, 180))
        assert found is not None
        answer = httpx.post(f"{found['base']}/chat/completions", timeout=120, json={
            "messages": [{"role": "user", "content": "hi"}], "max_tokens": 3})
        assert answer.status_code == 200
        assert answer.json()["model"] == "SmolLM2-135M-Instruct"
        assert '"max_tokens": 3' in log.read_text()  # --log keeps what the front received
        children = _children(proc.pid)
        assert children, "the llama.cpp server runs as a child process"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    assert proc.returncode == 0
    deadline = time.monotonic() + 15
    while any(Path(f"/proc/{pid}").exists() for pid in children) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not any(Path(f"/proc/{pid}").exists() for pid in children)


def _children(pid: int) -> list[int]:
    # each thread has its own list: the server is spawned from a worker thread
    return [int(child) for task in Path(f"/proc/{pid}/task").iterdir()
            for child in (task / "children").read_text().split()]
