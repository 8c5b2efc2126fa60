"""The real OpenClaw CLI (`openclaw@2026.9.6` on Node 24) against `clawharness serve`.

`openclaw_cli()` finds the client under `.cache/openclaw` (installing it with npm when it
is missing; the tests skip with the reason when npm cannot reach its registry).
`GatewayProcess` runs `python -m clawharness serve` as a subprocess whose model is a
scripted provider on an in-process `ScriptedModelServer`, and gives each test a scratch
`OPENCLAW_HOME` / `OPENCLAW_STATE_DIR` / `OPENCLAW_CONFIG_PATH` for the client.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from clawharness.testing import ScriptedModelServer

ROOT = Path(__file__).resolve().parents[3]
CACHE = ROOT / ".cache" / "openclaw"
NODE = CACHE / "node_modules" / "node" / "bin" / "node"
OPENCLAW = CACHE / "node_modules" / "openclaw" / "openclaw.mjs"
NODE_VERSION = "24.21.0"
OPENCLAW_VERSION = "2026.9.6"
TOKEN = "integration-token"
ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")


def _install() -> str | None:
    """Install the client with npm; None on success, else why it could not be."""
    CACHE.mkdir(parents=True, exist_ok=True)
    try:
        done = subprocess.run(
            ["npm", "install", "--prefix", str(CACHE), f"node@{NODE_VERSION}",
             f"openclaw@{OPENCLAW_VERSION}", "--ignore-scripts", "--no-audit", "--no-fund"],
            capture_output=True, text=True, timeout=600, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"npm install failed: {exc}"
    if done.returncode != 0:
        return f"npm install failed (is the npm registry reachable?): {done.stderr[-400:]}"
    if not NODE.exists():
        # --ignore-scripts skipped the `node` package's own preinstall; run it
        package = CACHE / "node_modules" / "node"
        done = subprocess.run(["node", "installArchSpecificPackage.js"], cwd=package,
                              capture_output=True, text=True, timeout=600, check=False)
        if done.returncode != 0 or not NODE.exists():
            return f"installing the Node {NODE_VERSION} binary failed: {done.stderr[-400:]}"
    return None


_install_lock = threading.Lock()


def openclaw_cli() -> tuple[Path, Path]:
    """(node, openclaw.mjs), installing them if needed; skips the test when impossible."""
    with _install_lock:
        if not (NODE.exists() and OPENCLAW.exists()):
            reason = _install()
            if reason is not None:
                pytest.skip(f"the real openclaw client is unavailable: {reason}")
    return NODE, OPENCLAW


@dataclass
class CliResult:
    returncode: int
    stdout: str
    stderr: str


@dataclass
class GatewayProcess:
    """`clawharness serve` in a subprocess, and the scratch folder its clients use."""

    root: Path
    model: ScriptedModelServer
    process: subprocess.Popen[str]
    port: int
    node: Path
    openclaw: Path

    @property
    def url(self) -> str:
        return f"ws://127.0.0.1:{self.port}"

    def client_env(self, **extra: str) -> dict[str, str]:
        home = self.root / "openclaw"
        env = {k: v for k, v in os.environ.items() if not k.startswith("OPENCLAW_")}
        env.update({
            "OPENCLAW_HOME": str(home), "OPENCLAW_STATE_DIR": str(home / "state"),
            "OPENCLAW_CONFIG_PATH": str(home / "openclaw.json"),
            "OPENCLAW_GATEWAY_URL": self.url, "OPENCLAW_GATEWAY_TOKEN": TOKEN,
            "NO_COLOR": "1",
        })
        env.update(extra)
        return env

    def cli(self, *args: str, timeout: float = 120, **env: str) -> CliResult:
        done = subprocess.run([str(self.node), str(self.openclaw), *args],
                              env=self.client_env(**env), capture_output=True, text=True,
                              timeout=timeout, check=False, cwd=self.root)
        return CliResult(done.returncode, done.stdout, done.stderr)

    def tui_until(self, args: Sequence[str], expect: str, timeout: float = 90) -> str:
        """Run `openclaw tui` in a pseudo-terminal until `expect` shows; the screen text."""
        command = " ".join(_quote(a) for a in (str(self.node), str(self.openclaw), "tui", *args))
        proc = subprocess.Popen(["script", "-qfc", command, "/dev/null"],
                                env=self.client_env(TERM="xterm-256color", COLUMNS="100",
                                                    LINES="40"),
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT, start_new_session=True)
        assert proc.stdout is not None
        chunks: list[bytes] = []
        found = threading.Event()

        def pump() -> None:
            assert proc.stdout is not None
            for chunk in iter(lambda: os.read(proc.stdout.fileno(), 65536), b""):  # type: ignore[union-attr]
                chunks.append(chunk)
                if expect in screen_text(b"".join(chunks)):
                    found.set()
            found.set()

        reader = threading.Thread(target=pump, daemon=True)
        reader.start()
        try:
            found.wait(timeout)
        finally:
            _stop(proc)
            reader.join(10)
        return screen_text(b"".join(chunks))


def screen_text(raw: bytes) -> str:
    return ANSI.sub("", raw.decode(errors="replace"))


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def _stop(proc: subprocess.Popen[Any], grace: float = 5.0) -> None:
    """Stop a process this rig started (its own session/group), by its id."""
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(grace)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(grace)


def scripted_config(model: ScriptedModelServer, port: int = 0,
                    **extra: Any) -> dict[str, Any]:
    return {
        "models": {"providers": {"scripted": {
            "baseUrl": model.base_url_openai, "api": "openai-responses", "apiKey": "x",
            "models": [{"id": "m"}]}}},
        "agents": {"defaults": {"model": "scripted/m"}},
        "gateway": {"port": port, "auth": {"mode": "token", "token": TOKEN}},
        **extra,
    }


@contextlib.contextmanager
def gateway_process(root: Path, script: dict[str, Any],
                    **config_extra: Any) -> Iterator[GatewayProcess]:
    """A scripted model in this process and `clawharness serve` as a subprocess."""
    node, openclaw = openclaw_cli()
    script_path = root / "script.json"
    script_path.write_text(json.dumps(script))
    with ScriptedModelServer(script_path).run_in_thread() as model:
        config_path = root / "clawharness.json"
        config_path.write_text(json.dumps(scripted_config(model, **config_extra)))
        env = {**os.environ, "CLAWHARNESS_STATE_DIR": str(root / "state"),
               "PYTHONUNBUFFERED": "1"}
        log = (root / "serve.log").open("w")
        proc = subprocess.Popen(
            [sys.executable, "-m", "clawharness", "serve", "--config", str(config_path),
             "--port", "0"],
            env=env, stdout=subprocess.PIPE, stderr=log, text=True, start_new_session=True)
        try:
            port = _await_listening(proc, root / "serve.log")
            home = root / "openclaw"
            home.mkdir(parents=True, exist_ok=True)
            (home / "openclaw.json").write_text(json.dumps({"gateway": {
                "mode": "remote", "remote": {"url": f"ws://127.0.0.1:{port}", "token": TOKEN}}}))
            yield GatewayProcess(root, model, proc, port, node, openclaw)
        finally:
            _stop(proc)
            log.close()


def _await_listening(proc: subprocess.Popen[str], log: Path, timeout: float = 60) -> int:
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    result: list[int] = []

    def read() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            match = re.search(r"listening ws://[^\s]+:(\d+)", line)
            if match:
                result.append(int(match.group(1)))
                return

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(max(0.0, deadline - time.monotonic()))
    if not result:
        _stop(proc)
        raise AssertionError(f"clawharness serve did not start: {log.read_text()[-2000:]}")
    return result[0]
