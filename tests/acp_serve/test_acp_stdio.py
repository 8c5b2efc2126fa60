"""`clawharness acp` as a process, driven over its stdio by the ACP library's client
(`spawn_agent_process`), as an editor starts it."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from acp import PROTOCOL_VERSION
from acp.schema import TextContentBlock
from acp.stdio import spawn_agent_process
from acp_serve_rig import EditorClient, capabilities, write_config

from clawharness.testing import ScriptedModelServer

HERE = Path(__file__).resolve().parent
CLAWHARNESS = str(Path(sys.executable).with_name("clawharness"))


async def test_the_command_serves_a_session_over_stdio(tmp_path: Path) -> None:
    script = {"responses": [
        {"match": "note", "tool_calls": [{"name": "write", "arguments": {
            "path": "todo.md", "content": "- ship it\n"}}]},
        {"match": "Successfully wrote", "text": "Written to todo.md."},
    ]}
    server = ScriptedModelServer(script)
    await server.start()
    try:
        config = write_config(tmp_path, server.base_url_openai,
                              agents={"defaults": {"model": "scripted/m1",
                                                   "sandbox": {"mode": "off"}}},
                              # a plugin that prints as it loads: stdout stays protocol
                              plugins={"load": ["noisy_plugin:entry"]})
        project = tmp_path / "project"
        project.mkdir()
        client = EditorClient()
        env = {**os.environ, "PYTHONPATH": str(HERE), "CLAWHARNESS_STATE_DIR": str(tmp_path)}
        async with spawn_agent_process(client, CLAWHARNESS, "acp", "--config", str(config),
                                       env=env, cwd=str(project)) as (conn, process):
            init = await conn.initialize(protocol_version=PROTOCOL_VERSION,
                                         client_capabilities=capabilities())
            assert init.agent_capabilities.load_session is True
            new = await conn.new_session(cwd=str(project), mcp_servers=[])
            done = await conn.prompt(session_id=new.session_id, prompt=[
                TextContentBlock(type="text", text="note: ship it")])
            assert done.stop_reason == "end_turn"
            assert client.text() == "Written to todo.md."
            assert client.fs_writes == [(str(project / "todo.md"), "- ship it\n")]
            listed = await conn.list_sessions()
            assert [i.session_id for i in listed.sessions] == [new.session_id]
        assert process.returncode is not None
    finally:
        await server.stop()


def test_a_bad_mode_is_refused_before_serving(tmp_path: Path) -> None:
    import subprocess

    config = tmp_path / "config.json5"
    config.write_text(json.dumps({}))
    done = subprocess.run([CLAWHARNESS, "acp", "--config", str(config), "--mode", "yolo"],
                          capture_output=True, text=True, timeout=60, check=False,
                          stdin=subprocess.DEVNULL)
    assert done.returncode == 1
    assert "--mode 'yolo' is no session mode" in done.stderr
    assert done.stdout == ""
