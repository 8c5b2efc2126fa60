"""`clawharness mcp serve` reads a frame of at most 8 MiB (issue 31): a longer one is
dropped as it streams in (memory stays bounded), the client's request gets an error answer
instead of none, and the stream goes on."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

import pytest
from mcp_rig import scripted_config

from clawharness.mcp_serve import MAX_FRAME_BYTES

pytestmark = pytest.mark.integration

CLAWHARNESS = str(Path(sys.executable).with_name("clawharness"))


def send(stdin: IO[bytes], message: dict[str, Any]) -> None:
    stdin.write(json.dumps(message).encode() + b"\n")
    stdin.flush()


def answer(stdout: IO[bytes], request_id: int) -> dict[str, Any]:
    while True:
        line = stdout.readline()
        assert line, "mcp serve closed its output"
        frame = json.loads(line)
        if frame.get("id") == request_id:
            return dict(frame)


def peak_rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    raise AssertionError("no VmHWM")


def test_a_frame_over_the_limit_is_dropped_answered_and_the_stream_goes_on(
        tmp_path: Path) -> None:
    script = {"responses": [{"text": "must never run"}]}
    with scripted_config(tmp_path, script, {}) as config:
        proc = subprocess.Popen([CLAWHARNESS, "mcp", "serve"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                env={**os.environ, "CLAWHARNESS_CONFIG": str(config)})
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        errors: list[bytes] = []
        threading.Thread(target=lambda: errors.append(proc.stderr.read()), daemon=True).start()
        try:
            send(proc.stdin, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "t", "version": "1"}}})
            assert "result" in answer(proc.stdout, 1)
            send(proc.stdin, {"jsonrpc": "2.0", "method": "notifications/initialized"})
            before = peak_rss_kib(proc.pid)
            # 64 MiB of message: eight times the limit, written in pieces
            head = (b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":'
                    b'"message_send","arguments":{"message":"')
            proc.stdin.write(head)
            piece = b"x" * (1024 * 1024)
            for _ in range(64):
                proc.stdin.write(piece)
            proc.stdin.write(b'"}}}\n')
            proc.stdin.flush()
            refused = answer(proc.stdout, 2)
            assert "error" in refused and refused["error"]["code"] == -32601, refused
            grown_mib = (peak_rss_kib(proc.pid) - before) / 1024
            assert grown_mib < 3 * MAX_FRAME_BYTES / 2**20, grown_mib
            # the stream is still in step: the next request is answered as usual
            send(proc.stdin, {"jsonrpc": "2.0", "id": 3, "method": "tools/call",
                              "params": {"name": "sessions_list", "arguments": {}}})
            listed = answer(proc.stdout, 3)
            assert listed["result"]["structuredContent"] == {"sessions": []}
        finally:
            proc.stdin.close()
            proc.wait(timeout=30)
        assert b"a frame over the limit of 8,388,608 bytes was dropped" in b"".join(errors)
