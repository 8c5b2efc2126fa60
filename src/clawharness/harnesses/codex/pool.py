"""A bounded pool of `codex app-server` processes.

What the real binary allows decides the shape (observed with codex-cli 0.169.0):

- `thread/resume {threadId}` finds a thread only through the CODEX_HOME that created it
  (its rollout and state databases live there); from another CODEX_HOME it fails "no
  rollout found", even with the rollout `path`. So the processes of one agent share that
  agent's CODEX_HOME (`<home root>/<agent id>`, with one `config.toml`), and a thread can
  move between them.
- While a live process has a thread loaded it holds the thread's writer lock: a second
  process gets "thread ... already has an active writer", and `thread/unsubscribe` does
  not release it. So a thread is served by the process that loaded it for as long as that
  process lives; it moves (by `thread/resume`) only after that process is evicted, closed
  or crashed. A SIGKILLed process releases the lock too.

Rules:
- At most `max_processes` processes exist at once (starting and stopping ones count).
- One process hosts up to `max_threads_per_process` threads.
- A process is never closed or replaced while a turn on it is in flight (the original's
  bug #80618): only idle processes are evicted (least recently used first), and idle
  ones are closed after `idle_timeout_seconds`.
- A crashed process leaves the pool at once; its threads resume elsewhere on next use.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import itertools
import logging
import os
import re
import time
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from clawharness.harnesses.codex.client import AppServerClient
from clawharness.harnesses.codex.config import (
    AppServerConfig,
    build_env,
    render_config_toml,
    resolve_command,
)
from clawharness.harnesses.codex.errors import CodexPoolClosedError, CodexProcessExitedError
from clawharness.plugin_sdk.agent_harness_telemetry import (
    native_process_start,
    track_native_process,
)

__all__ = ["AppServerPool", "PooledProcess", "ProcessSlot"]

log = logging.getLogger("clawharness.harnesses.codex")

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")
_ids = itertools.count(1)


@dataclass(eq=False, slots=True)
class PooledProcess:
    """One live app-server process of the pool."""

    client: AppServerClient
    home: str
    agent_key: str
    id: int = field(default_factory=lambda: next(_ids))
    #: threads loaded in this process (they stay loaded until it exits)
    threads: set[str] = field(default_factory=set)
    #: new threads promised to acquirers that have not started them yet
    reserved: int = 0
    #: turns in flight on this process
    active: int = 0
    last_used: float = field(default_factory=time.monotonic)
    closing: bool = False
    #: serves no new turn; closed as soon as its in-flight turns end
    doomed: bool = False

    @property
    def usable(self) -> bool:
        return not self.closing and not self.doomed and not self.client.closed

    @property
    def pid(self) -> int:
        return self.client.pid


@dataclass(eq=False, slots=True)
class _Spawning:
    """A process being started, and the acquirers waiting to share it."""

    home: str
    done: asyncio.Future[PooledProcess]
    claims: int = 1


def _retrieve(future: asyncio.Future[PooledProcess]) -> None:
    if not future.cancelled():
        future.exception()  # a failed start is reported to its starter; don't warn


@dataclass(eq=False, slots=True)
class ProcessSlot:
    """What one turn holds: a process, pinned (never evicted) until the slot is released."""

    process: PooledProcess
    #: the thread is already loaded in this process (no resume needed)
    loaded: bool
    pool: AppServerPool
    _reserved: bool = False

    @property
    def client(self) -> AppServerClient:
        return self.process.client

    def mark_loaded(self, thread_id: str) -> None:
        """Record that `thread_id` now lives in this process (after start or resume)."""
        self.pool._mark_loaded(self, thread_id)


class AppServerPool:
    """Spawns, shares, evicts and closes app-server processes."""

    def __init__(self, config: AppServerConfig, *, home_root: str | os.PathLike[str],
                 client_version: str, host_env: Mapping[str, str] | None = None,
                 on_spawn: Callable[[PooledProcess], None] | None = None) -> None:
        self.config = config
        self.home_root = Path(home_root)
        self.client_version = client_version
        self._host_env = host_env
        self._on_spawn = on_spawn
        self._procs: list[PooledProcess] = []
        self._by_thread: dict[str, PooledProcess] = {}
        self._starting = 0
        self._spawning: list[_Spawning] = []
        self._closed = False
        self._changed = asyncio.Event()
        self._reaper: asyncio.Task[None] | None = None
        self._closers: set[asyncio.Task[None]] = set()
        #: the most processes that ever existed at once (tests and status read it)
        self.peak = 0
        #: the pid of every process this pool started, in order
        self.pids: list[int] = []

    # --- facts ----------------------------------------------------------------------------

    @property
    def live_count(self) -> int:
        """Processes that exist now: running, starting or stopping."""
        return len(self._procs) + self._starting

    def processes(self) -> tuple[PooledProcess, ...]:
        return tuple(self._procs)

    def process_of(self, thread_id: str) -> PooledProcess | None:
        """The live process that has `thread_id` loaded, if any (never starts one)."""
        proc = self._by_thread.get(thread_id)
        return proc if proc is not None and proc.usable else None

    def home_for(self, agent_key: str) -> str:
        safe = _UNSAFE.sub("_", agent_key).strip("._") or "default"
        return str(self.home_root / safe)

    # --- acquiring --------------------------------------------------------------------------

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def _count_peak(self) -> None:
        self.peak = max(self.peak, self.live_count)

    @contextlib.asynccontextmanager
    async def slot(self, agent_key: str, thread_id: str | None, *,
                   timeout: float | None = None) -> AsyncIterator[ProcessSlot]:
        """Hold a process for one turn on `thread_id` (None: a new thread)."""
        held = await self.acquire(agent_key, thread_id, timeout=timeout)
        try:
            yield held
        finally:
            self.release(held)

    async def acquire(self, agent_key: str, thread_id: str | None, *,
                      timeout: float | None = None) -> ProcessSlot:
        """Pin a process for a turn: the thread's own, a same-home one with room, a new
        one, or (at the bound) a new one in place of the least recently used idle one.

        Waits while every process is busy (bounded by `timeout` when given).
        """
        async with asyncio.timeout(timeout):
            return await self._acquire(agent_key, thread_id)

    async def _acquire(self, agent_key: str, thread_id: str | None) -> ProcessSlot:
        home = self.home_for(agent_key)
        while True:
            if self._closed:
                raise CodexPoolClosedError("the Codex app-server pool is closed")
            owner = self._by_thread.get(thread_id) if thread_id else None
            if owner is not None:
                if owner.usable:
                    owner.active += 1
                    owner.last_used = time.monotonic()
                    return ProcessSlot(owner, True, self)
                # Its process is stopping and still holds the thread's writer lock: wait
                # until it is gone, then resume the thread elsewhere.
                await self._changed.wait()
                continue
            room = [p for p in self._procs if p.home == home and p.usable
                    and len(p.threads) + p.reserved < self.config.max_threads_per_process]
            if room:
                proc = min(room, key=lambda p: (p.active, len(p.threads) + p.reserved))
                proc.active += 1
                proc.reserved += 1
                proc.last_used = time.monotonic()
                return ProcessSlot(proc, False, self, _reserved=True)
            starting = [w for w in self._spawning if w.home == home
                        and w.claims < self.config.max_threads_per_process]
            if starting:  # a process for this home is on its way and has room: share it
                claimed = await self._claim(starting[0])
                if claimed is not None:
                    return claimed
                continue
            if self.live_count < self.config.max_processes:
                return await self._spawn_slot(agent_key, home)
            idle = [p for p in self._procs if p.active == 0 and not p.closing]
            if idle:
                victim = min(idle, key=lambda p: p.last_used)
                log.info("codex pool: evicting idle app-server pid %s to make room", victim.pid)
                await self._retire(victim)
                continue
            await self._changed.wait()

    async def _claim(self, spawning: _Spawning) -> ProcessSlot | None:
        """Wait for a starting process that reserved a place for us (None: it failed)."""
        spawning.claims += 1
        try:
            proc = await asyncio.shield(spawning.done)
        except asyncio.CancelledError:
            done = spawning.done
            if done.done() and not done.cancelled() and done.exception() is None:
                self._unpin(done.result(), reserved=True)
            else:
                spawning.claims -= 1
            raise
        except Exception:
            return None
        return ProcessSlot(proc, False, self, _reserved=True)

    async def _spawn_slot(self, agent_key: str, home: str) -> ProcessSlot:
        spawning = _Spawning(home, asyncio.get_running_loop().create_future())
        spawning.done.add_done_callback(_retrieve)
        self._spawning.append(spawning)
        self._starting += 1
        self._count_peak()
        try:
            client = await self._start_process(home)
        except BaseException as exc:
            self._starting -= 1
            self._spawning.remove(spawning)
            spawning.done.set_exception(exc if isinstance(exc, Exception)
                                        else CodexPoolClosedError("process start cancelled"))
            self._notify()
            raise
        self._starting -= 1
        self._spawning.remove(spawning)
        # every acquirer that claimed a place while it started holds one now
        proc = PooledProcess(client, home, agent_key, active=spawning.claims,
                             reserved=spawning.claims)
        self._procs.append(proc)
        self.pids.append(client.pid)
        client.on_exit(functools.partial(self._on_exit, proc))
        self._ensure_reaper()
        if self._on_spawn is not None:
            self._on_spawn(proc)
        if self._closed:  # closed while we were starting
            spawning.done.set_exception(CodexPoolClosedError("the Codex app-server pool is closed"))
            proc.active = proc.reserved = 0
            await self._retire(proc)
            raise CodexPoolClosedError("the Codex app-server pool is closed")
        spawning.done.set_result(proc)
        return ProcessSlot(proc, False, self, _reserved=True)

    async def _start_process(self, home: str) -> AppServerClient:
        argv = resolve_command(self.config)
        Path(home).mkdir(parents=True, exist_ok=True)
        _write_if_changed(Path(home) / "config.toml", render_config_toml(self.config))
        env = build_env(self.config, home, argv[0], host_env=self._host_env)
        # the app-server continues the trace of the turn that started it
        with native_process_start("codex", argv[0], env) as traced_env:
            client = await AppServerClient.spawn(
                argv, env=traced_env, cwd=home, label=f"codex[{Path(home).name}]",
                request_timeout=self.config.request_timeout_seconds)
        track_native_process(client.process, "codex")
        try:
            await client.initialize(self.client_version, min_version=self.config.min_version,
                                    max_validated_version=self.config.max_validated_version,
                                    timeout=self.config.startup_timeout_seconds)
        except BaseException:
            await asyncio.shield(client.close(grace=1.0, term_grace=1.0))
            raise
        return client

    def release(self, held: ProcessSlot) -> None:
        """Unpin a slot's process (the turn is over)."""
        reserved, held._reserved = held._reserved, False
        self._unpin(held.process, reserved=reserved)

    def _unpin(self, proc: PooledProcess, *, reserved: bool) -> None:
        if reserved:
            proc.reserved -= 1
        proc.active -= 1
        proc.last_used = time.monotonic()
        if proc.doomed and proc.active == 0:
            self._retire_later(proc)
        self._notify()

    def retire_when_idle(self, proc: PooledProcess) -> None:
        """Take `proc` out of service; close it once no turn on it is in flight (never
        before). Its threads resume elsewhere after it is gone."""
        proc.doomed = True
        if proc.active == 0:
            self._retire_later(proc)
        self._notify()

    def _retire_later(self, proc: PooledProcess) -> None:
        if proc.closing or proc not in self._procs:
            return
        task = asyncio.get_running_loop().create_task(self._retire(proc))
        self._closers.add(task)
        task.add_done_callback(self._closers.discard)

    def _mark_loaded(self, held: ProcessSlot, thread_id: str) -> None:
        proc = held.process
        if held._reserved:
            held._reserved = False
            proc.reserved -= 1
        proc.threads.add(thread_id)
        if proc in self._procs:
            self._by_thread[thread_id] = proc

    # --- ending -------------------------------------------------------------------------------

    def _forget(self, proc: PooledProcess) -> None:
        for thread_id in proc.threads:
            if self._by_thread.get(thread_id) is proc:
                del self._by_thread[thread_id]

    def _on_exit(self, proc: PooledProcess, error: CodexProcessExitedError) -> None:
        if proc.closing:
            return  # a retirement we started; it removes the process itself
        log.warning("codex pool: %s", error)
        proc.closing = True
        self._remove(proc)

    def _remove(self, proc: PooledProcess) -> None:
        """The process is gone: its threads may resume elsewhere now."""
        self._forget(proc)
        if proc in self._procs:
            self._procs.remove(proc)
        self._notify()

    async def _retire(self, proc: PooledProcess) -> None:
        """Close an idle process; it (and its threads) stay counted until it is gone."""
        proc.closing = True
        try:
            await asyncio.shield(proc.client.close())
        finally:
            self._remove(proc)

    def _ensure_reaper(self) -> None:
        if self._reaper is None or self._reaper.done():
            self._reaper = asyncio.get_running_loop().create_task(self._reap(),
                                                                   name="codex-pool-reaper")

    async def _reap(self) -> None:
        timeout = self.config.idle_timeout_seconds
        interval = min(max(timeout / 4, 0.05), 30.0)
        while not self._closed and self._procs:
            await asyncio.sleep(interval)
            now = time.monotonic()
            for proc in list(self._procs):
                if proc.active == 0 and not proc.closing and now - proc.last_used >= timeout:
                    log.info("codex pool: closing app-server pid %s idle for %.1f s",
                             proc.pid, now - proc.last_used)
                    self._retire_later(proc)

    async def close(self) -> None:
        """Close every process (waiting for in-flight turns' processes to be released
        is the caller's business: close is for shutdown) and stop the reaper."""
        self._closed = True
        self._notify()
        if self._reaper is not None:
            self._reaper.cancel()
            await asyncio.gather(self._reaper, return_exceptions=True)
        procs = list(self._procs)
        for proc in procs:
            proc.closing = True
        await asyncio.gather(*(p.client.close() for p in procs), *self._closers,
                             return_exceptions=True)
        for proc in procs:
            self._remove(proc)


def _write_if_changed(path: Path, text: str) -> None:
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except FileNotFoundError:
        pass
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
