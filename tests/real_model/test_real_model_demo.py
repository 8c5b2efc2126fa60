"""`clawharness demo --real-model`'s session, on the test run's llama.cpp server."""

from __future__ import annotations

from pathlib import Path

import pytest

from clawharness.cli.common import console
from clawharness.cli.demo_real import PLAIN_QUESTION, run_real_demo
from clawharness.testing.real_model import LlamaServer
from clawharness.testing.real_model.session import READ_REQUEST, SEED_REQUEST

pytestmark = pytest.mark.real_model


async def test_the_real_demo_runs_a_plain_turn_and_a_tool_call(
        llama: LlamaServer, tmp_path: Path) -> None:
    with console.capture() as captured:
        results = await run_real_demo(tmp_path, llama=llama)
    shown = captured.get()

    plain, seed, read = results
    assert [r.terminal for r in results] == ["ok", "ok", "ok"]
    assert plain.tool_calls == () and plain.text.strip()
    assert [c.tool_name for c in seed.tool_calls] == ["ls"]
    assert [(c.tool_name, not c.is_error) for c in read.tool_calls] == [("read", True)]
    # what a newcomer sees: each request, the answer, the tool it ran, the model's speed
    for line in (PLAIN_QUESTION, SEED_REQUEST, READ_REQUEST, plain.text, "tools: read(ok)",
                 "tokens/s", "transcript of agent:main:real-demo"):
        assert line in shown
    # its state stays where it was asked to: the config, the store, the workspace
    assert (tmp_path / "config.json5").is_file() and (tmp_path / "clawharness.db").is_file()
    assert (tmp_path / "workspace" / "todo.txt").is_file()
