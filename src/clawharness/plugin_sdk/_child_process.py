"""Child-process supervision for native CLI runtimes: own process group, whole-tree kills.

A native runtime runs in a new session (so its own process group). Its tools may start
processes in further sessions of their own (Claude Code runs each Bash command under
`setsid`), which a group kill would miss, so killing walks the process tree through
`/proc` first and kills every descendant group as well.

Native harnesses reach this through `clawharness.plugin_sdk.agent_harness_process`.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from clawharness.limits import MAX_NATIVE_FRAME_BYTES
from clawharness.observability.processes import track_native_process
from clawharness.observability.spans import native_process_span, trace_env
from clawharness.observability.telemetry import current_telemetry

__all__ = [
    "ChildProcess",
    "descendants",
    "kill_stray_groups",
    "kill_tree",
    "spawn",
]

#: the bytes of stderr kept for error messages
STDERR_TAIL_BYTES = 8192


def _children_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    try:
        entries = os.listdir("/proc")
    except OSError:
        return children
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                raw = fh.read().decode("utf-8", "replace")
        except OSError:
            continue
        # the command name may contain spaces and parentheses: split after the last ')'
        rest = raw[raw.rfind(")") + 2:].split()
        if len(rest) < 2:
            continue
        try:
            ppid = int(rest[1])
        except ValueError:
            continue
        children.setdefault(ppid, []).append(int(entry))
    return children


def descendants(pid: int) -> list[int]:
    """Every live descendant of `pid` (not `pid` itself), parents before children."""
    tree = _children_map()
    found: list[int] = []
    stack = list(tree.get(pid, ()))
    while stack:
        child = stack.pop()
        found.append(child)
        stack.extend(tree.get(child, ()))
    return found


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except OSError:
        return None


def _signal_group(pgid: int, sig: int) -> None:
    if pgid <= 1 or pgid == os.getpgrp():
        return  # never our own group (nor init's)
    with contextlib.suppress(OSError):
        os.killpg(pgid, sig)


def kill_tree(pid: int, pgid: int | None = None) -> None:
    """SIGKILL `pid`, its process group and every descendant's group, at once.

    The tree is frozen (SIGSTOP) before it is read a second time, so a process spawned
    between the first look and the kill is caught too.
    """
    own = pgid if pgid is not None else _pgid(pid)
    groups: set[int] = set()
    pids: set[int] = set()
    for _ in range(2):
        found = [pid, *descendants(pid)]
        pids.update(found)
        for child in found:
            group = _pgid(child)
            if group is not None and group > 1:
                groups.add(group)
        if own is not None:
            groups.add(own)
        for group in groups:
            _signal_group(group, signal.SIGSTOP)
    for group in groups:
        _signal_group(group, signal.SIGKILL)
    for each in pids:
        with contextlib.suppress(OSError):
            os.kill(each, signal.SIGKILL)


def kill_stray_groups(pid: int, pgid: int) -> int:
    """Kill descendants of `pid` that left its process group (tool commands run under
    `setsid`); the runtime itself and its own group stay. Returns how many groups."""
    strays: set[int] = set()
    for child in descendants(pid):
        group = _pgid(child)
        if group is not None and group not in (pgid, 0, 1):
            strays.add(group)
    for group in strays:
        _signal_group(group, signal.SIGKILL)
    return len(strays)


@dataclass(slots=True)
class ChildProcess:
    """A spawned runtime: the asyncio process, its group, and the tail of its stderr."""

    process: asyncio.subprocess.Process
    pgid: int
    stderr_tail: bytearray
    stderr_task: asyncio.Task[None] | None = None

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def alive(self) -> bool:
        return self.process.returncode is None

    def stderr_text(self) -> str:
        return self.stderr_tail.decode("utf-8", "replace").strip()

    def kill(self) -> None:
        """SIGKILL the whole tree (no waiting)."""
        kill_tree(self.pid, self.pgid)

    async def wait(self, timeout: float) -> bool:
        """True once the process exited within `timeout` seconds."""
        try:
            await asyncio.wait_for(self.process.wait(), timeout)
        except TimeoutError:
            return False
        return True

    async def shutdown(self, *, grace: float = 2.0) -> None:
        """Close stdin, wait, SIGTERM the group, wait, then SIGKILL the whole tree."""
        stdin = self.process.stdin
        if stdin is not None and not stdin.is_closing():
            with contextlib.suppress(Exception):
                stdin.close()
        if self.alive and not await self.wait(grace):
            _signal_group(self.pgid, signal.SIGTERM)
            if not await self.wait(grace):
                self.kill()
                await self.wait(grace)
        # whatever the runtime left behind in other sessions goes too
        kill_tree(self.pid, self.pgid)
        await self._drain()

    async def _drain(self) -> None:
        task = self.stderr_task
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task


async def _pump_stderr(stream: asyncio.StreamReader, tail: bytearray) -> None:
    while True:
        chunk = await stream.read(4096)
        if not chunk:
            return
        tail.extend(chunk)
        if len(tail) > STDERR_TAIL_BYTES:
            del tail[: len(tail) - STDERR_TAIL_BYTES]


async def spawn(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    cwd: str,
    limit: int = MAX_NATIVE_FRAME_BYTES,
) -> ChildProcess:
    """Start `argv` in a new session (its own process group) with exactly `env`; its
    stdout reads lines of up to `limit` bytes (a longer one is an error, not a buffer).

    Traced (`native_process_start`), and when a trace is running the process gets its
    context as `TRACEPARENT` in its environment."""
    label = os.path.basename(argv[0]) if argv else "process"
    with native_process_span(label, argv[0] if argv else ""):
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=trace_env(env),
            cwd=cwd,
            start_new_session=True,
            limit=limit,
        )
    track_native_process(process, label)
    current_telemetry().native_processes_started.add(1, {"runtime": label})
    tail = bytearray()
    child = ChildProcess(process, process.pid, tail)
    if process.stderr is not None:
        child.stderr_task = asyncio.get_running_loop().create_task(
            _pump_stderr(process.stderr, tail))
    return child
