"""`SubagentManager`: the children a host's sessions spawn, run in the background.

`spawn` checks the limits (depth, active children per session), the agent and the
route, makes the child's session (`fresh`: empty; `fork`: a copy of the parent's
transcript as far as it is settled), registers it in the store and starts its turn as a
task of this manager; it returns at once. When the child's turn ends, its row gets the
status and the final reply, and the parent session is told: the announcement is the
message of a turn run on the parent (queued behind the parent's own turn), as OpenClaw
announces a child's completion to its requester.

Each host has one manager (`Host.subagents`). Its running children are beaten for in
the store every `BEAT_SECONDS`; a row whose owner stopped beating (its process died)
shows as lost. A kill is a conditional write in the store, so any process can kill any
child: the owner sees it at its next beat (at once when it is this process) and aborts
the child's turn. Closing the host interrupts its children (`interrupted`).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Final, Protocol

from clawharness._ids import new_id
from clawharness.attempt import TurnOptions, turn_caller
from clawharness.config import ClawConfig
from clawharness.errors import ClawHarnessError, SubagentError, SubagentForbiddenError
from clawharness.harness import ToolCallContext, ToolPolicyCheck, ToolSpec
from clawharness.records import SessionMeta, TurnResult
from clawharness.sessions import parse_session_key, require_known_agent
from clawharness.store import SessionRecord, Store, SubagentRecord, SubagentStatus
from clawharness.subagents.request import (
    SPAWN_PARAMETERS,
    SpawnRequest,
    announcement,
    parse_spawn_request,
    settled_through,
    spawn_result,
)
from clawharness.tools import ToolRestriction

# a fork's result is named for typing only (the fork and portable-session code loads
# when a session is forked, not with every host that can spawn a child)
if TYPE_CHECKING:
    from clawharness.sessions import ForkResult

__all__ = ["BEAT_SECONDS", "LOST_AFTER_SECONDS", "SPAWN_TOOL", "SpawnHost",
           "SubagentManager"]

log = logging.getLogger("clawharness.subagents")

SPAWN_TOOL: Final = "sessions_spawn"
#: how often a host tells the store it still runs its children (and reads kills)
BEAT_SECONDS: Final = 2.0
#: an active child whose owner has not beaten for this long is shown as lost
LOST_AFTER_SECONDS: Final = 30.0
#: how long an announcement waits for the parent session's writer
ANNOUNCE_WAIT_SECONDS: Final = 3600.0
_ACTIVE: Final[tuple[SubagentStatus, ...]] = ("queued", "running")
_BY_TERMINAL: Final[dict[str, SubagentStatus]] = {
    "ok": "ok", "aborted": "killed", "timeout": "timeout", "failed": "error"}


class SpawnHost(Protocol):
    """What the manager needs of `Host`."""

    config: ClawConfig

    @property
    def store(self) -> Store: ...

    async def run_turn(self, session_key: str | None, message: str,
                       options: TurnOptions | None = None) -> TurnResult: ...

    async def fork_session(self, key: str, *, at: str | None = None,
                           new_key: str | None = None, model: str | None = None,
                           runtime: str | None = None, settled: bool = True) -> ForkResult: ...

    def spawn_route(self, parent: SessionRecord, agent_id: str, model: str | None,
                    runtime: str | None) -> tuple[str | None, str | None]: ...


@dataclass(slots=True)
class _Child:
    record: SubagentRecord
    abort: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[SubagentRecord] | None = None


class SubagentManager:
    """The children of one host's sessions (see the module docstring)."""

    def __init__(self, host: SpawnHost, *, policy: Callable[[str], ToolPolicyCheck],
                 tool_names: Callable[[str], Sequence[str]]) -> None:
        """`policy(agent)`: the agent's tool policy; `tool_names(agent)`: the host tools
        the agent is offered (a child of another agent gets only those its parent's
        policy allows too)."""
        self._host = host
        self._policy = policy
        self._tool_names = tool_names
        #: this host instance, as the store's rows name their owner
        self.owner = f"host-{new_id()[:12]}"
        self._children: dict[str, _Child] = {}
        self._slots: asyncio.Semaphore | None = None
        self._beater: asyncio.Task[None] | None = None
        self._wake: asyncio.Event | None = None
        self._closing = False

    @property
    def _limits(self) -> Any:
        return self._host.config.agents.defaults.subagents

    # the tool ----------------------------------------------------------------------

    def tool(self) -> ToolSpec:
        """`sessions_spawn`, spawning children of the calling session."""

        async def execute(args: Any, ctx: ToolCallContext) -> dict[str, Any]:
            try:
                request = parse_spawn_request(args)
                record, applied = await self.spawn(ctx.session_key, request,
                                                   caller=turn_caller())
            except SubagentForbiddenError as exc:
                return spawn_result("forbidden", error=str(exc))
            except ClawHarnessError as exc:
                return spawn_result("error", error=str(exc))
            return spawn_result("accepted", record=record, model_applied=applied)

        return ToolSpec(SPAWN_TOOL, (
            "Spawn a sub-agent: a child session that works on `task` in the background, "
            "on this host's runtime selection or the runtime you name, and announces its "
            "result to this session when it ends. context='fork' gives the child a copy "
            "of this conversation; 'fresh' (default) only the task."),
            SPAWN_PARAMETERS, execute)

    # spawning ----------------------------------------------------------------------

    async def spawn(self, parent_key: str, request: SpawnRequest, *,
                    caller: str | None = None) -> tuple[SubagentRecord, bool]:
        """Start a child of `parent_key`: its record, and whether a model was applied.
        `caller`: the HTTP API caller of the parent's turn, whose budgets the child's
        turns count on too (`budgets.perCaller`, `budgets.callers`).
        `SubagentForbiddenError` for a limit, `SubagentError` (or the route's error)
        for a spawn that cannot be made; nothing is left behind then."""
        if self._closing:
            raise SubagentError("the host is closing: no new sub-agents")
        store = self._host.store
        parent = await store.get_session(parent_key)
        if parent is None:
            raise SubagentError(f"no session {parent_key} to spawn from")
        depth = await self._depth_of(parent_key)
        agent_id = await self._check_limits(parent, depth, request)
        model = request.model or self._limits.model
        ref, harness = self._host.spawn_route(parent, agent_id, model, request.runtime)
        child_key = f"agent:{agent_id}:subagent:{new_id()}"
        now = time.time()
        record = SubagentRecord(
            child_key=child_key, parent_key=parent_key, run_id=new_id(), agent_id=agent_id,
            status="queued", depth=depth + 1, task=request.task, label=request.label,
            context=request.context, runtime=harness or request.runtime, model_ref=ref,
            owner=self.owner, created_at=now, heartbeat_at=now, caller=caller)
        await self._make_session(parent, record, ref, harness)
        await store.register_subagent(record)
        self._start(record, request)
        return record, model is not None and ref is not None

    async def _depth_of(self, session_key: str) -> int:
        row = await self._host.store.get_subagent(session_key)
        return 0 if row is None else row.depth

    async def _check_limits(self, parent: SessionRecord, depth: int,
                            request: SpawnRequest) -> str:
        """The child's agent, once the limits and the agent allow the spawn."""
        limits = self._limits
        if depth >= limits.max_spawn_depth:
            raise SubagentForbiddenError(
                f"sessions_spawn is not allowed at this depth (current depth: {depth}, "
                f"max: {limits.max_spawn_depth})")
        active = [r for r in await self._host.store.list_subagents(parent.key, active=True)
                  if not r.lost(time.time(), after=LOST_AFTER_SECONDS)]
        if len(active) >= limits.max_children_per_agent:
            raise SubagentForbiddenError(
                "sessions_spawn has reached max active children for this session "
                f"({len(active)}/{limits.max_children_per_agent})")
        agent_id = request.agent_id or parent.agent_id
        if agent_id != parent.agent_id:
            allowed = {a.strip() for a in limits.allow_agents if a.strip()}
            if "*" not in allowed and agent_id not in allowed:
                raise SubagentForbiddenError(
                    f"agentId {agent_id!r} is not allowed for sessions_spawn (allowed: "
                    f"{', '.join(sorted(allowed)) or 'none'}; "
                    "agents.defaults.subagents.allowAgents)")
            if request.context == "fork":
                raise SubagentError("context 'fork' keeps the parent's agent: leave out "
                                    "agentId, or use context 'fresh'")
        require_known_agent(self._host.config, agent_id)
        return agent_id

    async def _make_session(self, parent: SessionRecord, record: SubagentRecord,
                            ref: str | None, harness: str | None) -> None:
        store = self._host.store
        if record.context == "fork":
            entries = await store.read_entries(parent.session_id)
            through = settled_through(entries)
            await self._host.fork_session(
                parent.key, new_key=record.child_key, model=ref, runtime=harness,
                at=None if through is None else f"entry:{through}", settled=False)
            if record.label:
                await store.update_session(record.child_key, meta=(
                    await self._session(record.child_key)).meta.merged(
                        {"label": record.label}))
            return
        now = time.time()
        await store.create_session(SessionRecord(
            key=record.child_key, session_id=new_id(), agent_id=record.agent_id,
            model_ref=ref, created_at=now, updated_at=now,
            meta=SessionMeta(agent_harness_runtime_override=harness, label=record.label)))

    async def _session(self, key: str) -> SessionRecord:
        found = await self._host.store.get_session(key)
        if found is None:
            raise SubagentError(f"the child session {key} is gone")
        return found

    def _restriction(self, parent_agent: str, child_agent: str) -> ToolRestriction | None:
        """A child of another agent gets only the tools its parent's policy allows."""
        if parent_agent == child_agent:
            return None
        parent = self._policy(parent_agent)
        allowed = tuple(n for n in (*self._tool_names(child_agent), SPAWN_TOOL)
                        if parent.check(n) is None)
        return ToolRestriction(f"the tool policy of the parent's agent {parent_agent!r}",
                               allow=allowed)

    # running -----------------------------------------------------------------------

    def _start(self, record: SubagentRecord, request: SpawnRequest) -> None:
        child = _Child(record)
        self._children[record.child_key] = child
        # a context of its own: nothing of the spawning turn (its writer slot, its native
        # binding lease, its spans) is the child's, nor the announcement's later
        child.task = asyncio.get_running_loop().create_task(
            self._run(child, request), name=f"subagent {record.child_key}",
            context=contextvars.Context())
        if self._beater is None or self._beater.done():
            self._wake = asyncio.Event()
            self._beater = asyncio.get_running_loop().create_task(
                self._beat(), name="subagent heartbeat", context=contextvars.Context())

    async def _run(self, child: _Child, request: SpawnRequest) -> SubagentRecord:
        record, store = child.record, self._host.store
        key = record.child_key
        if self._slots is None:
            self._slots = asyncio.Semaphore(self._limits.max_concurrent)
        final: SubagentRecord | None = None
        try:
            async with self._slots:
                if await store.mark_subagent(key, "running", when=("queued",)) is not None:
                    final = await self._turn(child, request)
            final = final or await store.get_subagent(key)
            assert final is not None
            if not self._closing:
                await self._announce(final)
            return final
        finally:
            self._children.pop(key, None)

    async def _turn(self, child: _Child, request: SpawnRequest) -> SubagentRecord | None:
        """Run the child's turn; its row once ended (None when a kill got there first)."""
        record, store = child.record, self._host.store
        seconds = request.run_timeout_seconds
        if seconds is None:
            seconds = self._limits.run_timeout_seconds
        parent_agent = parse_session_key(record.parent_key).agent_id
        options = TurnOptions(run_id=record.run_id, abort=child.abort,
                              timeout=float(seconds) if seconds else None,
                              tool_restriction=self._restriction(parent_agent,
                                                                 record.agent_id),
                              budget_sessions=await self._ancestors(record),
                              caller=record.caller)
        try:
            result = await self._host.run_turn(record.child_key, record.task, options)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await asyncio.shield(store.mark_subagent(
                    record.child_key, "interrupted", when=_ACTIVE,
                    error="the host running the child closed"))
            raise
        except Exception as exc:
            log.warning("sub-agent %s failed: %s", record.child_key, exc)
            return await store.mark_subagent(record.child_key, "error", when=("running",),
                                             error=str(exc) or type(exc).__name__)
        status = _BY_TERMINAL.get(result.terminal, "error")
        return await store.mark_subagent(
            record.child_key, status, when=("running",), result=result.text or None,
            error=None if status == "ok" else (result.error or result.terminal))

    async def _ancestors(self, record: SubagentRecord) -> tuple[str, ...]:
        """The sessions above the child, its parent first: their session budgets bound it."""
        chain = [record.parent_key]
        for _ in range(record.depth):  # a registry loop cannot hold the child forever
            above = await self._host.store.get_subagent(chain[-1])
            if above is None or above.parent_key in chain:
                break
            chain.append(above.parent_key)
        return tuple(chain)

    async def _announce(self, record: SubagentRecord) -> None:
        """Tell the parent session: a turn on it, with the announcement as its message."""
        store = self._host.store
        try:
            if await store.get_session(record.parent_key) is None:
                return
            told = await self._host.run_turn(record.parent_key, announcement(record),
                                             TurnOptions(busy_timeout=ANNOUNCE_WAIT_SECONDS,
                                                         caller=record.caller))
            if told.terminal != "ok":
                log.warning("announcing sub-agent %s to %s: the parent's turn ended %s: %s",
                            record.child_key, record.parent_key, told.terminal, told.error)
                return
            await store.note_subagent_announced(record.child_key)
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("announcing sub-agent %s to %s failed: %s", record.child_key,
                        record.parent_key, exc)

    async def _beat(self) -> None:
        """Beat for the running children, and abort those killed elsewhere."""
        store = self._host.store
        while self._children:
            assert self._wake is not None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), BEAT_SECONDS)
            self._wake.clear()
            keys = list(self._children)
            try:
                rows = await store.beat_subagents(self.owner, keys)
            except ClawHarnessError as exc:
                log.warning("sub-agent heartbeat failed: %s", exc)
                continue
            for row in rows:
                child = self._children.get(row.child_key)
                if child is not None and row.status == "killed":
                    child.abort.set()

    # operating ---------------------------------------------------------------------

    async def children(self, parent_key: str | None = None, *,
                   active: bool = False) -> list[SubagentRecord]:
        """The registered children of `parent_key` (all when None), oldest first."""
        return await self._host.store.list_subagents(parent_key, active=active)

    async def kill(self, child_key: str, *, reason: str = "killed") -> list[SubagentRecord]:
        """Kill a child and its active descendants: the rows that were killed (none when
        it had ended). `SubagentError` for a key that is no child."""
        store = self._host.store
        if await store.get_subagent(child_key) is None:
            raise SubagentError(f"{child_key} is not a sub-agent session",
                                hint="`clawharness sessions list --children` lists them")
        killed: list[SubagentRecord] = []
        pending = [child_key]
        while pending:
            key = pending.pop()
            row = await store.mark_subagent(key, "killed", when=_ACTIVE, error=reason)
            if row is not None:
                killed.append(row)
                child = self._children.get(key)
                if child is not None:
                    child.abort.set()
            pending.extend(r.child_key for r in await store.list_subagents(key, active=True))
        if self._wake is not None:
            self._wake.set()
        return killed

    async def wait(self, child_key: str, timeout: float | None = None) -> SubagentRecord:
        """The child's row once its run here ended and the parent was told (at once
        when it is not running in this host)."""
        child = self._children.get(child_key)
        if child is not None and child.task is not None:
            await asyncio.wait_for(asyncio.shield(child.task), timeout)
        found = await self._host.store.get_subagent(child_key)
        if found is None:
            raise SubagentError(f"{child_key} is not a sub-agent session")
        return found

    async def close(self) -> None:
        """Interrupt this host's running children (their rows say so) and stop beating."""
        self._closing = True
        tasks: list[asyncio.Task[Any]] = [c.task for c in self._children.values()
                                          if c.task is not None]
        for task in tasks:
            task.cancel()
        if self._beater is not None:
            self._beater.cancel()
            tasks.append(self._beater)
        if tasks:
            await asyncio.gather(*tasks, return_exceptions=True)
        self._beater = None
