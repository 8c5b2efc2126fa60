"""The llama.cpp server and its recording front, as the real-model tests rely on them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from clawharness.testing.real_model import (
    CONTEXT_WINDOW,
    LlamaServer,
    LlamaSettings,
    RealModelRuntime,
    RealModelServer,
)

pytestmark = pytest.mark.real_model

TOOLS = [{"type": "function", "function": {
    "name": "read", "description": "Read a file",
    "parameters": {"type": "object", "properties": {"path": {"type": "string"}}}}}]
HISTORY = [
    {"role": "system", "content": "Be brief."},
    {"role": "user", "content": "Read a.txt"},
    {"role": "assistant", "content": None, "tool_calls": [{
        "id": "c1", "type": "function",
        "function": {"name": "read", "arguments": "{\"path\": \"a.txt\"}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "alpha"},
]


async def test_the_template_shows_tools_calls_and_results(real_model: RealModelServer) -> None:
    async with httpx.AsyncClient(base_url=real_model.url) as client:
        answer = await client.post("/apply-template", json={"messages": HISTORY, "tools": TOOLS})
        later = await client.post("/apply-template", json={
            "messages": [*HISTORY, {"role": "assistant", "content": "It says alpha."},
                         {"role": "user", "content": "Thanks"}], "tools": TOOLS})
    prompt = answer.json()["prompt"]
    assert prompt.startswith("<|im_start|>system\nBe brief.\n\n# Tools")
    assert json.dumps(TOOLS[0]) in prompt  # each tool, as JSON, in the system turn
    assert ('<|im_start|>assistant\n<tool_call>\n{"name": "read", "arguments": '
            '{"path": "a.txt"}}\n</tool_call><|im_end|>') in prompt
    assert "<|im_start|>tool\nalpha<|im_end|>" in prompt
    # right after a tool result the model is asked to answer; later that ask is gone
    assert prompt.endswith("<|im_start|>system\nAnswer the user with the tool result above."
                           "<|im_end|>\n<|im_start|>assistant\n")
    assert "Answer the user with the tool result" not in later.json()["prompt"]


async def test_every_request_is_evaluated_whole(real_model: RealModelServer) -> None:
    # no prompt cache: an answer never depends on the requests before it
    body = {"messages": [{"role": "user", "content": "Say hi."}], "max_tokens": 4}
    async with httpx.AsyncClient(base_url=real_model.base_url_openai, timeout=120) as client:
        first = (await client.post("/chat/completions", json=body)).json()
        second = (await client.post("/chat/completions", json=body)).json()
    assert second["timings"]["cache_n"] == 0
    assert second["timings"]["prompt_n"] == first["timings"]["prompt_n"]
    assert second["choices"][0]["message"] == first["choices"][0]["message"]
    # the front kept both requests and both answers
    assert [r.body for r in real_model.requests] == [body, body]
    assert [e.status for e in real_model.exchanges] == [200, 200]
    assert real_model.exchanges[0].timings() == first["timings"]


async def test_the_server_reports_its_context_window(real_model: RealModelServer) -> None:
    async with httpx.AsyncClient(base_url=real_model.url) as client:
        props = (await client.get("/props")).json()
    assert props["default_generation_settings"]["n_ctx"] == CONTEXT_WINDOW
    assert real_model.provider_config()["models"][0]["contextWindow"] == CONTEXT_WINDOW


def test_the_server_ends_with_the_process_that_started_it(
        real_model_runtime: RealModelRuntime) -> None:
    server = LlamaServer(real_model_runtime, LlamaSettings(context_window=512))
    server.start()
    pid = server.pid
    assert pid is not None and os.path.exists(f"/proc/{pid}")
    assert httpx.get(f"{server.url}/health").status_code == 200
    log_path = server.log_path
    server.stop()
    assert not os.path.exists(f"/proc/{pid}")
    assert not log_path.exists()  # a log it made up itself goes with it


def test_the_server_ends_when_its_parent_is_killed(real_model_runtime: RealModelRuntime,
                                                   tmp_path: Path) -> None:
    # the parent dies without a chance to stop it: the server sees its stdin close
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT_SCRIPT, str(real_model_runtime.root),
         str(tmp_path / "llama.log")],
        stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        pid = int(parent.stdout.readline())
        assert os.path.exists(f"/proc/{pid}")
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 30
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(pid)


PARENT_SCRIPT = """
import sys, time
from pathlib import Path
from clawharness.testing.real_model import LlamaServer, LlamaSettings, RealModelRuntime
server = LlamaServer(RealModelRuntime(Path(sys.argv[1])), LlamaSettings(context_window=512),
                     log_path=Path(sys.argv[2]))
server.start()
print(server.pid, flush=True)
time.sleep(600)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a zombie has exited; only its parent (init here) reaps it
