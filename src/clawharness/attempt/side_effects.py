"""Agent-end side effects: the portable `agent_end` hook and core research capture.

`run_agent_end_side_effects(payload, hooks)` starts both without waiting, so an
interactive reply is never delayed; it keeps references to the tasks it starts (an
unreferenced asyncio task may be collected mid-flight). `await_agent_end_side_effects`
runs the same work to completion, for local non-interactive runs. Either way a failure
is logged once as a warning and never changes the completed attempt's result.

Research capture is skipped for helper sessions (active-memory) and is independent of
the plugin hooks: a slow or failing capture neither delays nor blocks `agent_end`.

The payload is the host's typed `AgentEnd`, or `{event, ctx}` already in the original's
shape; the hooks always receive `(event, ctx)` in the original's shape (camelCase keys),
the plugin-facing contract, converted here once.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from clawharness.records.agent_end import AgentEnd

__all__ = [
    "AgentEndHooks",
    "AgentEndSideEffects",
    "await_agent_end_side_effects",
    "drain_agent_end_side_effects",
    "pending_agent_end_side_effects",
    "run_agent_end_side_effects",
    "should_skip_research_capture",
]

log = logging.getLogger("clawharness.agent_end")

SideEffect = Callable[[Mapping[str, Any], Mapping[str, Any]], Awaitable[Any] | Any]

#: tasks started fire-and-forget, held until they finish
_pending: set[asyncio.Task[None]] = set()


@dataclass(frozen=True, slots=True)
class AgentEndHooks:
    """What runs at agent end: core research capture and the plugin `agent_end` hooks.

    Each callable receives `(event, ctx)`; plain functions and coroutines both work.
    """

    research_capture: SideEffect | None = None
    agent_end: Sequence[SideEffect] = field(default_factory=tuple)


@dataclass(frozen=True, slots=True)
class AgentEndSideEffects:
    """Handle on side effects started fire-and-forget (for tests and shutdown)."""

    tasks: tuple[asyncio.Task[None], ...]

    async def wait(self) -> None:
        """Wait for these side effects; their failures are already logged."""
        if self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)


def should_skip_research_capture(ctx: Mapping[str, Any]) -> bool:
    """Helper sessions (active memory) are not research material."""
    session_id = ctx.get("sessionId")
    session_key = ctx.get("sessionKey")
    if isinstance(session_id, str) and session_id.startswith("active-memory-"):
        return True
    return isinstance(session_key, str) and ":active-memory:" in session_key


def _split(payload: AgentEnd | Mapping[str, Any]) -> tuple[Mapping[str, Any], Mapping[str, Any]]:
    if isinstance(payload, AgentEnd):
        return payload.event.to_wire(), payload.ctx.to_wire()
    event = payload.get("event")
    ctx = payload.get("ctx")
    return (event if isinstance(event, Mapping) else {}), (ctx if isinstance(ctx, Mapping) else {})


async def _guarded(label: str, effect: SideEffect, event: Mapping[str, Any],
                   ctx: Mapping[str, Any]) -> None:
    try:
        outcome = effect(event, ctx)
        if inspect.isawaitable(outcome):
            await outcome
    except asyncio.CancelledError:
        raise
    except Exception as exc:  # observational work: a failure must not touch the result
        log.warning("%s failed for run %s: %s: %s", label, ctx.get("runId", "?"),
                    type(exc).__name__, exc)


async def _research(hooks: AgentEndHooks, event: Mapping[str, Any], ctx: Mapping[str, Any]) -> None:
    if hooks.research_capture is None or should_skip_research_capture(ctx):
        return
    await _guarded("research auto-capture", hooks.research_capture, event, ctx)


async def _agent_end(hooks: AgentEndHooks, event: Mapping[str, Any],
                     ctx: Mapping[str, Any]) -> None:
    for hook in hooks.agent_end:
        await _guarded("agent_end hook", hook, event, ctx)


def _track(coro: Awaitable[None]) -> asyncio.Task[None]:
    task: asyncio.Task[None] = asyncio.ensure_future(coro)
    _pending.add(task)
    task.add_done_callback(_pending.discard)
    return task


def run_agent_end_side_effects(
    payload: AgentEnd | Mapping[str, Any], hooks: AgentEndHooks
) -> AgentEndSideEffects:
    """Start agent-end side effects and return at once (call it from the event loop)."""
    event, ctx = _split(payload)
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        log.warning("agent_end side effects for run %s skipped: no running event loop",
                    ctx.get("runId", "?"))
        return AgentEndSideEffects(())
    tasks = [_track(_research(hooks, event, ctx))]
    if hooks.agent_end:
        tasks.append(_track(_agent_end(hooks, event, ctx)))
    return AgentEndSideEffects(tuple(tasks))


async def await_agent_end_side_effects(payload: AgentEnd | Mapping[str, Any],
                                       hooks: AgentEndHooks) -> None:
    """Run agent-end side effects to completion: research capture, then the hooks."""
    event, ctx = _split(payload)
    await _research(hooks, event, ctx)
    await _agent_end(hooks, event, ctx)


def pending_agent_end_side_effects() -> int:
    """How many fire-and-forget side effects are still running."""
    return len(_pending)


async def drain_agent_end_side_effects(timeout: float | None = None) -> None:
    """Wait (at most `timeout` seconds) for every pending side effect, e.g. at shutdown."""
    if not _pending:
        return
    tasks = list(_pending)
    if timeout is None:
        await asyncio.gather(*tasks, return_exceptions=True)
        return
    await asyncio.wait(tasks, timeout=timeout)
