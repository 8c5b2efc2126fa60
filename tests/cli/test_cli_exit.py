"""How the `clawharness` process ends: a command that loaded the Temporal SDK's native
module leaves without the interpreter's teardown (which the SDK's threads can abort),
yet keeps its exit code, its output and its exit handlers."""

from __future__ import annotations

import subprocess
import sys

import pytest

#: a process that loads the Temporal bridge the way a cluster command does, registers an
#: exit handler, then runs the command line with the given arguments
_PROGRAM = """
import atexit, sys
if sys.argv[1] == "bridge":
    import temporalio.bridge.temporal_sdk_bridge  # noqa: F401
atexit.register(lambda: print("exit handler ran", flush=True))
sys.argv = ["clawharness", *sys.argv[2:]]
from clawharness.cli.main import main
main()
"""


def _run(bridge: bool, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", _PROGRAM, "bridge" if bridge else "none",
                           *args], capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("bridge", [True, False], ids=["temporal-loaded", "plain"])
def test_a_finished_command_keeps_its_output_exit_code_and_exit_handlers(bridge: bool) -> None:
    done = _run(bridge, "--version")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [done.stdout.splitlines()[0], "exit handler ran"]
    assert done.stdout.startswith("clawharness ")


@pytest.mark.parametrize("bridge", [True, False], ids=["temporal-loaded", "plain"])
def test_a_failed_command_keeps_its_exit_code(bridge: bool) -> None:
    failed = _run(bridge, "config", "validate", "--config", "/nonexistent/clawharness.json5")
    assert failed.returncode not in (0, -6), failed.stderr
    assert "exit handler ran" in failed.stdout
    usage = _run(bridge, "no-such-command")
    assert usage.returncode == 2 and "No such command" in usage.stderr
