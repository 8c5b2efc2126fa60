"""What the sandbox tests share: a host whose scripted model issues `exec` calls through
the real turn path, and a snapshot of everything outside the workspace."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import time
from collections.abc import AsyncIterator, Callable, Iterable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

FULL_EXEC = {"exec": {"security": "full", "ask": "off", "timeoutSec": 30}}


def exec_calls(*commands: str) -> dict[str, Any]:
    """One model response calling `exec` once per command."""
    return {"tool_calls": [{"name": "exec", "arguments": {"command": c}, "id": f"call_{i}"}
                           for i, c in enumerate(commands)]}


def write_config(root: Path, base_url: str, *, sandbox: dict[str, Any] | None = None,
                 tools: dict[str, Any] | None = None, agents: dict[str, Any] | None = None,
                 workspace: Path | None = None) -> Path:
    defaults: dict[str, Any] = {"model": "scripted/m1",
                                "workspace": str(workspace or root / "workspace")}
    if sandbox is not None:
        defaults["sandbox"] = sandbox
    config: dict[str, Any] = {
        "models": {"providers": {"scripted": {
            "baseUrl": base_url, "api": "openai-responses", "apiKey": "test-key",
            "models": [{"id": "m1"}]}}},
        "agents": {"defaults": defaults, **({"entries": agents} if agents else {})},
        "tools": tools or FULL_EXEC,
    }
    path = root / "state" / "config.json5"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config))
    return path


@asynccontextmanager
async def sandbox_host(root: Path, script: dict[str, Any], **config: Any,
                       ) -> AsyncIterator[Host]:
    """A started host (state in `root/state`, workspace `root/workspace` unless
    `workspace=`) whose model answers from `script`; closed, with its model server,
    afterwards."""
    (config.get("workspace") or root / "workspace").mkdir(parents=True, exist_ok=True)
    server = ScriptedModelServer(script)
    await server.start()
    try:
        path = write_config(root, server.base_url_openai, **config)
        host = Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(root / "state")})
        await host.start()
        try:
            yield host
        finally:
            await host.close()
    finally:
        await server.stop()


async def tool_results(host: Host, key: str) -> list[str]:
    return [e.text or "" for e in await host.history(key) if e.role == "toolResult"]


def snapshot(root: Path, *, skip: Iterable[Path] = ()) -> dict[str, str]:
    """Every path under `root` with its kind, size and content hash (files), mode and
    link target: what "nothing outside the workspace changed" compares."""
    skipped = {os.path.realpath(p) for p in skip}
    found: dict[str, str] = {}
    for directory, dirs, files in os.walk(root):
        if os.path.realpath(directory) in skipped:
            dirs[:] = []
            continue
        dirs[:] = [d for d in dirs if os.path.realpath(os.path.join(directory, d)) not in skipped]
        for name in [*dirs, *files]:
            path = os.path.join(directory, name)
            if os.path.realpath(path) in skipped:
                continue
            st = os.lstat(path)
            if os.path.islink(path):
                found[path] = f"link {os.readlink(path)}"
            elif os.path.isfile(path):
                digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
                found[path] = f"file {st.st_mode:o} {st.st_size} {digest}"
            else:
                found[path] = f"dir {st.st_mode:o}"
    return found


def processes_with(marker: str) -> list[int]:
    """Host pids whose command line holds `marker`."""
    pids: list[int] = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            state = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        if marker.encode() in cmdline and state != "Z" and int(entry) != os.getpid():
            pids.append(int(entry))
    return pids


async def wait_until(predicate: Callable[[], bool], timeout: float = 15.0) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        await asyncio.sleep(0.02)
    return predicate()
