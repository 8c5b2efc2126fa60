"""The rig for tests against the real Claude Code CLI: a scripted Anthropic server on
loopback, the CLI in a loopback-only network namespace (when the machine allows it), and
hand-built attempt params."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "harnesses" / "cli"))

from cli_support import Recorder, make_params

from clawharness.harnesses.cli.claude import claude_cli_harness
from clawharness.plugin_sdk.agent_harness_cli import CliBackendHarness

ROOT = Path(__file__).resolve().parents[3]
CLAUDE = ROOT / ".cache" / "claude" / "node_modules" / ".bin" / "claude"
NETNS_EXEC = Path(__file__).resolve().parent / "netns_exec.py"
#: every scenario ends well within this (an unreachable server makes the CLI retry)
HARD_TIMEOUT = 60.0

requires_claude = pytest.mark.skipif(
    not CLAUDE.exists(), reason="run scripts/native-runtimes.sh to install the pinned CLI")

_netns: bool | None = None


def netns_available() -> bool:
    """True when `unshare(CLONE_NEWNET)` works here (root / CAP_SYS_ADMIN)."""
    global _netns
    if _netns is None:
        probe = subprocess.run([sys.executable, str(NETNS_EXEC), "--probe"], check=False,
                               capture_output=True, timeout=20)
        _netns = probe.returncode == 0
    return _netns


def isolated(command: list[str], server_url: str) -> list[str]:
    """`command` wrapped in a loopback-only namespace forwarding the server's port."""
    if not netns_available():
        return command
    port = server_url.rstrip("/").rsplit(":", 1)[1]
    return [sys.executable, str(NETNS_EXEC), port, "--", *command]


class ClaudeRig:
    """One scenario's directories, harness instances and attempt builder."""

    def __init__(self, tmp: Path, server_url: str) -> None:
        self.workspace = tmp / "workspace"
        self.workspace.mkdir()
        self.state = tmp / "state"
        self.url = server_url
        self.harnesses: list[CliBackendHarness] = []

    def harness(self, **config: Any) -> CliBackendHarness:
        cfg = {"command": isolated([str(CLAUDE)], self.url), **config}
        harness = claude_cli_harness(state_dir=self.state / "plugins" / "claude-cli",
                                     config=cfg)
        self.harnesses.append(harness)
        return harness

    def params(self, prompt: str, recorder: Recorder, **kw: Any) -> Any:
        return make_params(self.workspace, self.state, prompt=prompt, recorder=recorder,
                           base_url=self.url, **kw)

    async def run(self, harness: CliBackendHarness, params: Any) -> Any:
        return await asyncio.wait_for(harness.run_attempt(params), HARD_TIMEOUT)

    async def close(self) -> None:
        for harness in self.harnesses:
            await harness.dispose()


@pytest.fixture
async def rig_factory(tmp_path: Path) -> AsyncIterator[Callable[[str], ClaudeRig]]:
    """`rig_factory(server_url)` -> a `ClaudeRig` in `tmp_path`, closed afterwards."""
    rigs: list[ClaudeRig] = []

    def make(url: str) -> ClaudeRig:
        rig = ClaudeRig(tmp_path, url)
        rigs.append(rig)
        return rig

    yield make
    for rig in rigs:
        await rig.close()
