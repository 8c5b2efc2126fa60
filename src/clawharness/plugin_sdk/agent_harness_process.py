"""`clawharness.plugin_sdk.agent_harness_process`: supervising native runtime processes.

A native harness that drives a local CLI or agent process spawns it in its own process
group and, on abort or shutdown, kills the whole tree (tools often start processes in
sessions of their own). These helpers do that; the harness keeps its protocol.
"""

from __future__ import annotations

from clawharness.harness.child_process import (
    ChildProcess,
    descendants,
    kill_stray_groups,
    kill_tree,
    spawn,
)

__all__ = ["ChildProcess", "descendants", "kill_stray_groups", "kill_tree", "spawn"]
