"""The live native processes a process-owning harness keeps, one per session binding.

A CLI agent or an ACP agent serves one host session from a process the harness keeps
between turns. `SupervisedProcesses` is that table, shared by every such harness:

- `put(key, process)` / `get(key)` / `pop(key)`: the process kept for a binding key;
- `expire_after(key, seconds)`: stop it once it sat idle that long (a later `get` or
  `put` of the same key cancels the timer);
- `close(key)` / `close_all()`: stop it (its whole process tree) now;
- `close_with(bindings)`: stop a session's process when the host resets, deletes or
  rewinds that session (its binding is gone, so the process would resume nothing).

What "stop" means is the harness's (`stop=`: close a connection first, then shut the
child down); by default the child gets SIGTERM, `grace` seconds, then SIGKILL.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Iterator
from typing import Any, Generic, Protocol, TypeVar

from clawharness.plugin_sdk._child_process import ChildProcess
from clawharness.sessions.bindings.session_bindings import RemovedBinding

__all__ = ["RemovalNotifier", "SupervisedProcess", "SupervisedProcesses"]

log = logging.getLogger("clawharness.plugin_sdk._supervision")


class SupervisedProcess(Protocol):
    """What the table keeps: anything that owns one child process."""

    @property
    def child(self) -> ChildProcess: ...


class RemovalNotifier(Protocol):
    """Session bindings the host removes with their sessions (`SessionBindings`)."""

    def on_removed(self, callback: Callable[[RemovedBinding[Any]], Awaitable[None]]) -> None: ...


P = TypeVar("P", bound=SupervisedProcess)


class SupervisedProcesses(Generic[P]):
    """Live processes by binding key; every one is stopped, whatever ends it."""

    def __init__(self, *, stop: Callable[[P], Awaitable[None]] | None = None,
                 grace: float = 2.0) -> None:
        self._stop = stop
        self._grace = grace
        self._live: dict[str, P] = {}
        self._idle: dict[str, asyncio.TimerHandle] = {}

    def get(self, key: str) -> P | None:
        """The process kept for `key` (its idle timer is cancelled: it is in use again)."""
        self._cancel_idle(key)
        return self._live.get(key)

    def put(self, key: str, process: P) -> None:
        """Keep `process` for `key` (replacing the entry; stop the old one first)."""
        self._cancel_idle(key)
        self._live[key] = process

    def pop(self, key: str) -> P | None:
        """Forget the process kept for `key` without stopping it."""
        self._cancel_idle(key)
        return self._live.pop(key, None)

    def expire_after(self, key: str, seconds: float) -> None:
        """Kill the process of `key` once it sat idle `seconds` (<= 0: never)."""
        self._cancel_idle(key)
        process = self._live.get(key)
        if process is None or seconds <= 0:
            return

        def expire() -> None:
            self._idle.pop(key, None)
            if self._live.get(key) is process:
                del self._live[key]
                process.child.kill()

        self._idle[key] = asyncio.get_running_loop().call_later(seconds, expire)

    async def close(self, key: str) -> None:
        """Stop the process kept for `key`, if any."""
        process = self.pop(key)
        if process is None:
            return
        try:
            if self._stop is not None:
                await self._stop(process)
            else:
                await process.child.shutdown(grace=self._grace)
        except BaseException:
            process.child.kill()  # however the stop failed, the process does not outlive it
            raise

    async def close_all(self) -> None:
        """Stop every process (a harness's `dispose`); one failing does not stop the rest."""
        for key in list(self._live):
            try:
                await self.close(key)
            except Exception as exc:
                log.warning("stopping the process of %s failed: %s", key, exc)

    def close_with(self, bindings: RemovalNotifier) -> None:
        """Stop a session's process when the host removes that session's binding."""

        async def removed(binding: RemovedBinding[Any]) -> None:
            await self.close(binding.key)

        bindings.on_removed(removed)

    def pids(self) -> list[int]:
        """Pids of the processes still running (for diagnostics and tests)."""
        return [p.child.pid for p in self._live.values() if p.child.alive]

    def _cancel_idle(self, key: str) -> None:
        timer = self._idle.pop(key, None)
        if timer is not None:
            timer.cancel()

    def __contains__(self, key: object) -> bool:
        return key in self._live

    def __len__(self) -> int:
        return len(self._live)

    def __iter__(self) -> Iterator[str]:
        return iter(list(self._live))
