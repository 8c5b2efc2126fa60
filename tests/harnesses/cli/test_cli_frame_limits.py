"""A CLI backend whose output has a frame past the limits fails the turn saying so."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from cli_support import Recorder, make_params

from clawharness.harnesses.cli.claude import claude_cli_harness

# a CLI that prints one bad line as soon as it starts, then waits
CLI = """
import sys
sys.stdout.write(BAD + "\\n")
sys.stdout.flush()
sys.stdin.read()
"""


async def test_a_frame_nested_too_deep_fails_the_turn_naming_the_limit(tmp_path: Path) -> None:
    # before: json.loads raised RecursionError out of the turn's reader
    script = tmp_path / "cli.py"
    script.write_text(f"BAD = {'[' * 5000 + ']' * 5000!r}\n" + CLI)
    (tmp_path / "ws").mkdir()
    harness = claude_cli_harness(state_dir=tmp_path / "state",
                                 config={"command": [sys.executable, str(script)],
                                         "interruptGraceSeconds": 1})
    try:
        params = make_params(tmp_path / "ws", tmp_path / "state", prompt="hi",
                             recorder=Recorder())
        result = await asyncio.wait_for(harness.run_attempt(params), 30)
    finally:
        await harness.dispose()
    assert result.terminal.kind == "failed"
    assert "nested deeper than 128 levels" in (result.terminal.error or "")
