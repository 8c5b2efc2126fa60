"""`acp/<agent>` as a model ref selects the ACP harness through `Host`, with no other config."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from acp_rig import sdist_example_agent

from clawharness.host import Host

pytestmark = pytest.mark.integration


async def test_acp_model_ref_runs_the_sdk_example_agent_through_the_host(tmp_path: Path) -> None:
    example = sdist_example_agent()
    if example is None:
        pytest.skip("the agent-client-protocol sdist example is not available")
    config = {
        "agents": {"defaults": {"model": "acp/example", "workspace": str(tmp_path / "ws")}},
        "plugins": {"entries": {"acp": {"config": {"agents": {"example": {
            "command": [sys.executable, str(example)]}}}}}},
    }
    path = tmp_path / "config.json5"
    path.write_text(json.dumps(config))
    async with Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)}) as host:
        result = await host.run_turn("acp", "hello agent")
        assert (result.runtime, result.selected_reason) == ("acp", "auto_plugin")
        assert result.terminal == "ok", result.error
        entries = await host.history("acp")
        assert entries[0].role == "user" and entries[0].text == "hello agent"
        rows = await host.store.state_list("acp.bindings")
        assert len(rows) == 1
        # deleting the session runs the harness's deletion transaction: the binding goes too
        assert await host.delete_session("acp") is True
        assert await host.store.state_list("acp.bindings") == []
