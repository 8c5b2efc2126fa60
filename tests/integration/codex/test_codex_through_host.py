"""The Codex harness as users meet it: selected by config, through `Host` and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from codex_rig import CODEX_BIN, MODEL, offline_config

from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

pytestmark = [pytest.mark.integration,
              pytest.mark.skipif(not CODEX_BIN.exists(), reason="run scripts/native-runtimes.sh")]


def host_config(tmp_path: Path, base_url: str) -> Path:
    config = {
        "models": {"providers": {"openai": {"agentRuntime": {"id": "codex"}}}},
        "agents": {"defaults": {"model": f"openai/{MODEL}", "workspace": str(tmp_path / "ws")}},
        "plugins": {"entries": {"codex": {"enabled": True, "config": {"appServer": {
            "command": str(CODEX_BIN),
            "env": {"MOCK_OPENAI_API_KEY": "offline"},
            "config": offline_config(base_url),
            "approvalPolicy": "never", "sandbox": "workspace-write",
            "maxProcesses": 1, "idleTimeoutSeconds": 30}}}}},
        "store": {"url": str(tmp_path / "host.db")},
    }
    path = tmp_path / "config.json5"
    path.write_text(json.dumps(config))
    return path


async def test_library_api_runs_a_codex_turn_and_mirrors_it(tmp_path: Path) -> None:
    script = {"responses": [{"text": "hello from codex"}, {"text": "second answer"}]}
    async with ScriptedModelServer(script) as server:
        path = host_config(tmp_path, server.base_url_openai)
        async with Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)}) as host:
            first = await host.run_turn("codex", "say hello")
            assert (first.runtime, first.selected_reason) == ("codex", "forced_plugin")
            assert (first.terminal, first.text) == ("ok", "hello from codex")
            second = await host.run_turn("codex", "again")
            assert second.text == "second answer"
            entries = await host.history("codex")
            texts = [(e.role, e.text) for e in entries]
            assert ("assistant", "hello from codex") in texts
            assert ("assistant", "second answer") in texts
            assert texts.count(("assistant", "hello from codex")) == 1
            assert (await host.get_session("codex")).agent_harness_id == "codex"
            # the thread binding lives in the host's own plugin_state, one row per session
            rows = await host.store.state_list("codex.bindings")
            assert len([r for r in rows if "agent:main:codex" in r.key]) == 1
        # the second request resumed the same thread: the model saw the first exchange
        assert "hello from codex" in json.dumps(server.requests[-1].body)


def test_clawharness_agent_cli_runs_on_codex(tmp_path: Path) -> None:
    script = {"responses": [{"text": "cli says hi"}]}
    server = ScriptedModelServer(script)
    with server.run_in_thread():
        path = host_config(tmp_path, server.base_url_openai)
        proc = subprocess.run(
            [sys.executable, "-m", "clawharness", "agent", "--config", str(path), "--json",
             "-m", "hello"],
            capture_output=True, text=True, timeout=120,
            env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path),
                 "CLAWHARNESS_STATE_DIR": str(tmp_path)},
        )
    assert proc.returncode == 0, proc.stderr
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    assert result["runtime"] == "codex" and result["text"] == "cli says hi"
