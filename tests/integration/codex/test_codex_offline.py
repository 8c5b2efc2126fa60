"""A Codex turn in a network namespace that has nothing but loopback (`unshare -n`):
proof that the harness and the app-server need no traffic beyond the scripted model
server on 127.0.0.1."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from codex_rig import CODEX_BIN, MODEL, offline_config

pytestmark = pytest.mark.integration

SCRIPT = textwrap.dedent('''
    import asyncio, json, subprocess, sys, uuid
    from pathlib import Path
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    from clawharness.harness.capabilities import HostCapabilities
    from clawharness.harness.types import AttemptParams, ResolvedModel
    from clawharness.harnesses.codex.bindings import CodexBindings
    from clawharness.harnesses.codex.config import AppServerConfig
    from clawharness.harnesses.codex.harness import CodexHarness
    from clawharness.store.sqlite import SqliteStore
    from clawharness.testing import ScriptedModelServer

    class AllowAll:
        def check(self, name): return None
        def needs_approval(self, name, args): return None

    async def main(tmp, binary, model, config_factory):
        async with ScriptedModelServer({"responses": [
            {"tool_calls": [{"name": "exec_command", "arguments": {"cmd": "echo offline"}}]},
            {"text": "done offline"}]}) as server:
            store = SqliteStore(str(Path(tmp) / "b.db"))
            await store.open()
            config = AppServerConfig(command=binary, env={"MOCK_OPENAI_API_KEY": "k"},
                                     config=config_factory(server.base_url_openai),
                                     approval_policy="never", sandbox="danger-full-access")
            harness = CodexHarness(config, bindings=CodexBindings(store),
                                   home_root=Path(tmp) / "homes")
            run_id = str(uuid.uuid4())
            (Path(tmp) / "ws").mkdir(exist_ok=True)
            caps = HostCapabilities(run_id=run_id, session_key="agent:main:x",
                                    workspace_dir=str(Path(tmp) / "ws"), policy=AllowAll(),
                                    approvals=None)
            params = AttemptParams(run_id=run_id, session_key="agent:main:x", session_id="s",
                agent_id="main", prompt="go", provider="openai", model_id=model,
                model=ResolvedModel("openai", model), workspace_dir=str(Path(tmp) / "ws"),
                host_capabilities=caps, runtime_plan=None)
            try:
                result = await harness.run_attempt(params)
            finally:
                await harness.dispose()
                await store.close()
            print(json.dumps({"links": links, "terminal": result.terminal.kind,
                              "texts": result.assistant_texts,
                              "tools": [m.to_wire() for m in result.tool_metas]}))

    sys.path.insert(0, sys.argv[4])
    from codex_rig import offline_config
    asyncio.run(main(sys.argv[1], sys.argv[2], sys.argv[3], offline_config))
''')


def test_a_turn_runs_with_loopback_only(tmp_path: Path) -> None:
    if not CODEX_BIN.exists():
        pytest.skip("the Codex app-server is not installed")
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        pytest.skip("unshare/ip unavailable")
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("unshare -n is not permitted here (needs root)")
    assert offline_config  # the helper the script imports
    script = tmp_path / "offline_turn.py"
    script.write_text(SCRIPT)
    done = subprocess.run(
        ["unshare", "-n", sys.executable, str(script), str(tmp_path), str(CODEX_BIN), MODEL,
         str(Path(__file__).parent)],
        capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert [line.split(":")[1].strip() for line in report["links"].splitlines()] == ["lo"]
    assert report["terminal"] == "ok"
    assert report["texts"] == ["done offline"]
    assert report["tools"][0]["toolName"] == "exec" and report["tools"][0]["isError"] is False
