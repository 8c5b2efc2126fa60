"""`clawharness.plugin_sdk.agent_harness_process`: supervising native runtime processes.

A harness that drives a local CLI or agent process spawns it in its own process group
and, on abort or shutdown, stops the whole tree (tools often start processes in sessions
of their own). It keeps the process between turns, one per session binding.

- `spawn(argv, env=, cwd=)` -> `ChildProcess` (`shutdown(grace=)`, `kill()`, `alive`,
  `pid`, `pgid`, `stderr_text()`), traced; `kill_stray_groups(pid, pgid)` stops what a
  finished turn left running;
- `SupervisedProcesses`: the live processes by binding key, each stopped when the
  harness closes it, when it sat idle too long (`expire_after`), when the host removes
  its session's binding (`close_with(bindings)`) or at `close_all()`;
- reading the process's JSON-lines output within limits (`MAX_NATIVE_FRAME_BYTES` a
  line): `read_frame_line` and `decode_json_frame` raise `InputLimitError` past them;
  `BoundedLineReader` stands in for the stdout a protocol library reads itself.

Defined in the SDK (`InputLimitError` is the host's error for every limit).
"""

from __future__ import annotations

from clawharness.errors import InputLimitError
from clawharness.limits import MAX_NATIVE_FRAME_BYTES
from clawharness.plugin_sdk._child_process import ChildProcess, kill_stray_groups, spawn
from clawharness.plugin_sdk._frames import BoundedLineReader, decode_json_frame, read_frame_line
from clawharness.plugin_sdk._supervision import SupervisedProcesses

__all__ = [
    "MAX_NATIVE_FRAME_BYTES",
    "BoundedLineReader",
    "ChildProcess",
    "InputLimitError",
    "SupervisedProcesses",
    "decode_json_frame",
    "kill_stray_groups",
    "read_frame_line",
    "spawn",
]
