"""The real MCP servers the integration tests drive (installed into .cache/ by
scripts/native-runtimes.sh), and finding a server's process by a marker in its env."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from clawharness.cli.main import app
from clawharness.testing import ScriptedModelServer

ROOT = Path(__file__).resolve().parents[3]
EVERYTHING = ROOT / ".cache/mcp-everything/node_modules/.bin/mcp-server-everything"
FILESYSTEM = ROOT / ".cache/mcp-filesystem/node_modules/.bin/mcp-server-filesystem"
INSPECTOR = ROOT / ".cache/mcp-inspector/node_modules/.bin/mcp-inspector"

needs_everything = pytest.mark.skipif(not EVERYTHING.exists(),
                                      reason="run scripts/native-runtimes.sh first")
needs_filesystem = pytest.mark.skipif(not FILESYSTEM.exists(),
                                      reason="run scripts/native-runtimes.sh first")
needs_inspector = pytest.mark.skipif(not INSPECTOR.exists(),
                                     reason="run scripts/native-runtimes.sh first")


def everything_server(marker: str | None = None, **extra: Any) -> dict[str, Any]:
    """`mcp.servers.<name>` for server-everything over stdio, tagged with `marker`."""
    entry: dict[str, Any] = {"command": str(EVERYTHING), "args": ["stdio"],
                             "env": {"CLAWHARNESS_TEST_MARKER": marker or uuid.uuid4().hex}}
    entry.update(extra)
    return entry


def pids_with_marker(marker: str) -> list[int]:
    """The processes whose environment holds `CLAWHARNESS_TEST_MARKER=<marker>`."""
    needle = f"CLAWHARNESS_TEST_MARKER={marker}".encode()
    found: list[int] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            environ = Path(f"/proc/{entry}/environ").read_bytes()
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            found.append(int(entry))
    return found


def kill_marked(marker: str) -> int:
    pids = pids_with_marker(marker)
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return len(pids)


runner = CliRunner()


def invoke(*args: str) -> Result:
    return runner.invoke(app, list(args), catch_exceptions=False)


@contextmanager
def scripted_config(directory: Path, script: Mapping[str, Any],
                    extra: Mapping[str, Any]) -> Iterator[Path]:
    """A scripted model server for `script`, and a config file with `extra` merged in."""
    server = ScriptedModelServer(dict(script))
    with server.run_in_thread():
        config: dict[str, Any] = {
            "models": {"providers": {"local": {"baseUrl": server.base_url_openai,
                                               "api": "openai-responses", "apiKey": "k",
                                               "models": [{"id": "m"}]}}},
            "agents": {"defaults": {"model": "local/m", "workspace": str(directory / "ws")}},
            "store": {"url": str(directory / "state.db")},
            **extra,
        }
        path = directory / "config.json5"
        path.write_text(json.dumps(config))
        yield path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextmanager
def everything_over_http(mode: str) -> Iterator[str]:
    """server-everything in `mode` ("streamableHttp" or "sse") on a free loopback port;
    yields its endpoint URL; the process group is ended on exit."""
    port = free_port()
    proc = subprocess.Popen([str(EVERYTHING), mode], env={**os.environ, "PORT": str(port)},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"server-everything {mode} did not listen") from None
                time.sleep(0.05)  # waiting for a port another process opens
        yield f"http://127.0.0.1:{port}/{'mcp' if mode == 'streamableHttp' else 'sse'}"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
