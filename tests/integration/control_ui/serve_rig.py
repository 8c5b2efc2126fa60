"""A real `clawharness serve` (a subprocess) answering from the scripted model server.

`async with served(tmp_path, script, **config) as serve:` writes the script and the
config, starts the model server in this process and `python -m clawharness serve` with
its own state directory, and waits for `listening ws://...` and the lines after it (the
Control UI's URL, the HTTP endpoints). `serve.base` is the HTTP base URL, `serve.lines`
what it printed. The process is stopped (by its id) when the block ends.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from clawharness.testing import ScriptedModelServer

TOKEN = "control-ui-token-0123"
#: how long `serve` may take to start on a busy 2-core machine
START_SECONDS = 120.0


@dataclass
class Serve:
    process: asyncio.subprocess.Process
    model: ScriptedModelServer
    state_dir: Path
    base: str = ""
    lines: list[str] = field(default_factory=list)


def serve_config(model: ScriptedModelServer, workspace: Path, **extra: Any) -> dict[str, Any]:
    config: dict[str, Any] = {
        "models": {"providers": {"scripted": {
            "baseUrl": model.base_url_openai, "api": "openai-responses", "apiKey": "offline",
            # priced, so each turn's footer shows its cost (USD per million tokens)
            "cost": {"input": 10.0, "output": 20.0},
            "models": [{"id": "demo"}]}}},
        "agents": {"defaults": {"model": "scripted/demo", "workspace": str(workspace)},
                   "entries": {"main": {"default": True}}},
        "gateway": {"auth": {"mode": "token", "token": TOKEN}},
    }
    config.update(extra)
    return config


async def _read_banner(serve: Serve) -> None:
    stdout = serve.process.stdout
    assert stdout is not None
    while True:
        line = (await stdout.readline()).decode()
        if not line:
            raise AssertionError(f"clawharness serve exited: {serve.lines}")
        serve.lines.append(line.rstrip("\n"))
        match = re.search(r"listening ws://([^\s]+):(\d+)", line)
        if match:
            serve.base = f"http://{match.group(1)}:{match.group(2)}"
        if line.startswith("health"):  # the banner's last line
            return


@contextlib.asynccontextmanager
async def served(root: Path, script: dict[str, Any], **extra: Any) -> AsyncIterator[Serve]:
    script_path = root / "script.json"
    script_path.write_text(json.dumps(script))
    async with ScriptedModelServer(script_path) as model:
        config = root / "clawharness.json"
        workspace = root / "workspace"
        workspace.mkdir(exist_ok=True)
        config.write_text(json.dumps(serve_config(model, workspace, **extra)))
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("OTEL_", "CLAWHARNESS_", "OPENCLAW_"))}
        env.update(CLAWHARNESS_STATE_DIR=str(root / "state"), PYTHONUNBUFFERED="1")
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "clawharness", "serve", "--config", str(config),
            "--port", "0", stdout=asyncio.subprocess.PIPE,
            stderr=(root / "serve.log").open("w"), env=env, start_new_session=True)
        serve = Serve(process, model, root / "state")
        try:
            await asyncio.wait_for(_read_banner(serve), START_SECONDS)
            yield serve
        finally:
            if process.returncode is None:
                process.terminate()
                try:
                    await asyncio.wait_for(process.wait(), 30)
                except TimeoutError:
                    process.kill()
                    await process.wait()
