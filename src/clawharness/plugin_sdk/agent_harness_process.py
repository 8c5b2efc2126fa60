"""`clawharness.plugin_sdk.agent_harness_process`: supervising native runtime processes.

A harness that drives a local CLI or agent process spawns it in its own process group
and, on abort or shutdown, stops the whole tree (tools often start processes in sessions
of their own). It keeps the process between turns, one per session binding.

- `spawn(argv, env=, cwd=)` -> `ChildProcess` (`shutdown(grace=)`, `kill()`, `alive`,
  `pid`, `pgid`, `stderr_text()`); `kill_tree(pid)`, `kill_stray_groups(pid, pgid)`
  (what a finished turn left running);
- `SupervisedProcesses`: the live processes by binding key, each stopped when the
  harness closes it, when it sat idle too long (`expire_after`), when the host removes
  its session's binding (`close_with(bindings)`) or at `close_all()`; anything with a
  `child` (`SupervisedProcess`) can be kept;
- reading the process's JSON-lines output within limits (`MAX_NATIVE_FRAME_BYTES` a
  line, `MAX_JSON_DEPTH` levels): `read_frame_line` and `decode_json_frame` raise
  `InputLimitError` past them; `BoundedLineReader` stands in for the stdout a protocol
  library reads itself.
"""

from __future__ import annotations

from clawharness.errors import InputLimitError
from clawharness.harness.child_process import ChildProcess, kill_stray_groups, kill_tree, spawn
from clawharness.harness.frames import BoundedLineReader, decode_json_frame, read_frame_line
from clawharness.harness.supervision import SupervisedProcess, SupervisedProcesses
from clawharness.limits import MAX_JSON_DEPTH, MAX_NATIVE_FRAME_BYTES

__all__ = [
    "MAX_JSON_DEPTH",
    "MAX_NATIVE_FRAME_BYTES",
    "BoundedLineReader",
    "ChildProcess",
    "InputLimitError",
    "SupervisedProcess",
    "SupervisedProcesses",
    "decode_json_frame",
    "kill_stray_groups",
    "kill_tree",
    "read_frame_line",
    "spawn",
]
