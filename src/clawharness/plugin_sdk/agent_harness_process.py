"""`clawharness.plugin_sdk.agent_harness_process`: supervising native runtime processes.

A native harness that drives a local CLI or agent process spawns it in its own process
group and, on abort or shutdown, kills the whole tree (tools often start processes in
sessions of their own). These helpers do that; the harness keeps its protocol.

The process's JSON-lines output is read within limits (`MAX_NATIVE_FRAME_BYTES` a line,
`MAX_JSON_DEPTH` levels): `read_frame_line` and `decode_json_frame` raise
`InputLimitError` past them, and `BoundedLineReader` stands in for the stdout a protocol
library reads itself.
"""

from __future__ import annotations

from clawharness.errors import InputLimitError
from clawharness.harness.child_process import (
    ChildProcess,
    descendants,
    kill_stray_groups,
    kill_tree,
    spawn,
)
from clawharness.harness.frames import BoundedLineReader, decode_json_frame, read_frame_line
from clawharness.limits import MAX_JSON_DEPTH, MAX_NATIVE_FRAME_BYTES

__all__ = [
    "MAX_JSON_DEPTH",
    "MAX_NATIVE_FRAME_BYTES",
    "BoundedLineReader",
    "ChildProcess",
    "InputLimitError",
    "decode_json_frame",
    "descendants",
    "kill_stray_groups",
    "kill_tree",
    "read_frame_line",
    "spawn",
]
