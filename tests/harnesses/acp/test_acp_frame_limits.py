"""The ACP harness stops reading an agent that sends a frame past the limits, and the
turn fails saying so (the ACP library alone would buffer an endless line)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))

from cli_support import Recorder, make_params

from clawharness.harnesses.acp.harness import AcpHarness

# an agent that answers `initialize` with one bad line, then waits
AGENT = """
import sys
sys.stdin.readline()
sys.stdout.write(BAD + "\\n")
sys.stdout.flush()
sys.stdin.read()
"""


async def run_against(tmp_path: Path, bad: str) -> str | None:
    script = tmp_path / "agent.py"
    script.write_text(f"BAD = {bad!r}\n" + AGENT)
    (tmp_path / "ws").mkdir()
    harness = AcpHarness(state_dir=tmp_path / "state",
                         config={"agents": {"bad": {"command": [sys.executable, str(script)]}},
                                 "shutdownGraceSeconds": 0.5})
    try:
        params = make_params(tmp_path / "ws", tmp_path / "state", prompt="hi",
                             recorder=Recorder(), provider="acp", model_id="bad")
        result = await asyncio.wait_for(harness.run_attempt(params), 30)
        assert result.terminal.kind == "failed"
        return result.terminal.error
    finally:
        await harness.dispose()


async def test_a_frame_nested_too_deep_fails_the_turn_naming_the_limit(tmp_path: Path) -> None:
    error = await run_against(tmp_path, '{"jsonrpc": "2.0", "id": 0, "result": '
                              + "[" * 300 + "]" * 300 + "}")
    assert error is not None
    assert "ACP agent 'bad'" in error and "nested deeper than 128 levels" in error
