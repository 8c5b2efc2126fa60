"""The rig for tests against real ACP agents: claude-code-acp (pinned in .cache/claude-acp)
pointed at the scripted Anthropic server, run in a loopback-only network namespace when
the machine allows it; and the ACP Python SDK's own example agent from its sdist."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import tarfile
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "harnesses" / "cli"))
sys.path.insert(0, str(HERE.parent / "cli"))

from claude_cli_rig import isolated  # noqa: E402
from cli_support import Recorder, make_params  # noqa: E402

from clawharness.harnesses.acp.harness import AcpHarness  # noqa: E402

ROOT = HERE.parents[2]
CLAUDE_ACP = ROOT / ".cache" / "claude-acp" / "node_modules" / ".bin" / "claude-code-acp"
SDIST_DIR = ROOT / ".cache" / "acp-sdist"
ACP_VERSION = "0.12.1"
HARD_TIMEOUT = 90.0

requires_claude_acp = pytest.mark.skipif(
    not CLAUDE_ACP.exists(), reason="run scripts/native-runtimes.sh to install claude-code-acp")


def sdist_example_agent() -> Path | None:
    """`examples/agent.py` of the agent-client-protocol sdist (downloaded once)."""
    root = SDIST_DIR / f"agent_client_protocol-{ACP_VERSION}"
    example = root / "examples" / "agent.py"
    if example.exists():
        return example
    SDIST_DIR.mkdir(parents=True, exist_ok=True)
    fetched = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
         f"agent-client-protocol=={ACP_VERSION}", "-d", str(SDIST_DIR)],
        check=False, capture_output=True, timeout=120)
    archive = SDIST_DIR / f"agent_client_protocol-{ACP_VERSION}.tar.gz"
    if fetched.returncode != 0 or not archive.exists():
        return None
    with tarfile.open(archive) as tar:
        tar.extractall(SDIST_DIR, filter="data")
    return example if example.exists() else None


class AcpRig:
    def __init__(self, tmp: Path, server_url: str | None) -> None:
        self.workspace = tmp / "workspace"
        self.workspace.mkdir()
        self.state = tmp / "state"
        self.url = server_url
        self.harnesses: list[AcpHarness] = []

    def claude_agent(self) -> dict[str, Any]:
        assert self.url is not None
        return {"command": isolated([str(CLAUDE_ACP)], self.url),
                "env": {"ANTHROPIC_BASE_URL": self.url, "ANTHROPIC_API_KEY": "sk-ant-dummy",
                        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}}

    def harness(self, agents: dict[str, Any], **config: Any) -> AcpHarness:
        harness = AcpHarness(state_dir=self.state / "plugins" / "acp",
                             config={"agents": agents, **config})
        self.harnesses.append(harness)
        return harness

    def params(self, prompt: str, recorder: Recorder, agent: str = "claude", **kw: Any) -> Any:
        return make_params(self.workspace, self.state, prompt=prompt, recorder=recorder,
                           provider="acp", model_id=agent, **kw)

    async def run(self, harness: AcpHarness, params: Any) -> Any:
        return await asyncio.wait_for(harness.run_attempt(params), HARD_TIMEOUT)

    async def close(self) -> None:
        for harness in self.harnesses:
            await harness.dispose()
