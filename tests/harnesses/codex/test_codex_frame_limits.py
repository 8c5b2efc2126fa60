"""The Codex app-server client stops at a frame past the limits and says so."""

from __future__ import annotations

import os
import sys

import pytest

from clawharness.harnesses.codex import client as client_module
from clawharness.harnesses.codex.client import AppServerClient
from clawharness.harnesses.codex.errors import CodexProcessExitedError

# a server that answers its first request with one bad line, then waits
SERVER = """
import sys
sys.stdin.readline()
sys.stdout.write(BAD + "\\n")
sys.stdout.flush()
sys.stdin.read()
"""


async def spawn_with(bad: str) -> AppServerClient:
    code = f"BAD = {bad!r}\n" + SERVER
    return await AppServerClient.spawn([sys.executable, "-c", code],
                                       env={"PATH": os.environ["PATH"]}, label="fake",
                                       request_timeout=10)


async def test_a_frame_nested_too_deep_ends_the_session_naming_the_limit() -> None:
    # before: json.loads raised RecursionError, which killed the reader task unreported
    client = await spawn_with("[" * 5000 + "]" * 5000)
    try:
        with pytest.raises(CodexProcessExitedError, match="nested deeper than 128 levels"):
            await client.request("initialize", {})
    finally:
        await client.close(grace=1, term_grace=1)


async def test_a_line_over_the_limit_ends_the_session_naming_the_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(client_module, "STREAM_LIMIT", 4096)
    client = await spawn_with('{"id": 1, "result": "' + "x" * 20_000 + '"}')
    try:
        with pytest.raises(CodexProcessExitedError,
                           match="a line over the limit of 4,096 bytes"):
            await client.request("initialize", {})
    finally:
        await client.close(grace=1, term_grace=1)
