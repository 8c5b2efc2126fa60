"""What a front passes for one turn (`TurnOptions`) and what the turn runner reads from
its host (`TurnContext`); the steps of the turn (`clawharness.attempt.turn`) share them."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, fields, replace
from operator import attrgetter
from pathlib import Path
from typing import TYPE_CHECKING

from clawharness.harness.capabilities import ApprovalGate
from clawharness.harness.tool_spec import CallerToolResult, ToolSpec
from clawharness.harness.types import AgentEvent, ReturnSteering, TakeSteering
from clawharness.harness.user_input_delivery import UserInputChannel
from clawharness.tools.backends import ToolBackends
from clawharness.tools.restriction import ToolRestriction

if TYPE_CHECKING:
    from clawharness.attempt.agent_setup import AgentSetup
    from clawharness.attempt.services import HarnessChoice, TurnHooks
    from clawharness.config.schema import ClawConfig
    from clawharness.mcp.manager import McpManager
    from clawharness.sessions.writers import SessionWriters
    from clawharness.tools.agent_tools import AgentTools

__all__ = ["TurnContext", "TurnOptions", "steered_options"]


@dataclass(slots=True)
class TurnOptions:
    """Per-turn knobs a front passes to `Host.run_turn`."""

    model: str | None = None
    #: this message's thinking level (`off`..`xhigh`), over the session's and the
    #: agent's (`clawharness.models.thinking`)
    thinking: str | None = None
    on_partial_reply: Callable[[str], Awaitable[None] | None] | None = None
    on_agent_event: Callable[[AgentEvent], Awaitable[None] | None] | None = None
    abort: asyncio.Event | None = None
    approvals: ApprovalGate | None = None
    timeout: float | None = None
    #: how long to wait for the session's writer (None: `sessions.writerWaitSeconds`)
    busy_timeout: float | None = None
    max_steps: int | None = None
    run_id: str | None = None
    #: tool calls exactly once across retries of this run (`clawharness.tools.outcomes`):
    #: set by a cluster worker, whose turns Temporal may retry elsewhere
    durable_tools: bool = False
    #: this `run_id` ran before and was lost (a retried turn): what it stored is not
    #: history for its new attempt, and its re-mirrored messages are idempotent no-ops
    resumes_run: bool = False
    #: where a harness's questions for the user go (a terminal, a pending-question queue)
    user_input: UserInputChannel | None = None
    #: W3C trace context (`traceparent`, `tracestate`) of a caller in another process (a
    #: cluster front): the turn's spans continue that caller's trace
    trace_context: Mapping[str, str] | None = None
    #: the directory this turn's tools work in instead of the agent's workspace (an
    #: editor's project, over ACP): an absolute path to an existing directory
    workspace: str | None = None
    #: where the file and exec tools do their work instead of this host (an editor's
    #: files and terminals; `clawharness.tools.backends`), where the sandbox allows
    tool_backends: ToolBackends | None = None
    #: a narrowing of the agent's tool policy for this turn (an ACP session's mode)
    tool_restriction: ToolRestriction | None = None
    #: tools the caller runs (`caller_tool`: an HTTP client's function tools): the
    #: built-in runtime offers them and ends the turn with their calls pending
    #: (`TurnResult.client_tool_calls`; `clawharness.attempt.caller_tools`)
    caller_tools: tuple[ToolSpec, ...] = ()
    #: the caller's results of the calls the session's last turn ended with: stored as
    #: tool results before this turn's attempt (its message may then be empty)
    caller_results: tuple[CallerToolResult, ...] = ()
    #: who started the turn over the HTTP API (its `budgets.perCaller` budgets apply)
    caller: str | None = None
    #: sessions whose `budgets.perSession` budget this turn also falls under: a
    #: sub-agent's ancestors, its parent first (`clawharness.subagents`)
    budget_sessions: tuple[str, ...] = ()
    #: how to handle this message if a turn of its session is running (`steer`,
    #: `followup`, `collect`, `interrupt`; None: the agent's `queue.mode`)
    queue_mode: str | None = None
    #: the steered messages the running turn may take (set by the session queue)
    take_steering: TakeSteering | None = None
    #: hand back steered messages the runtime refused (set by the session queue)
    return_steering: ReturnSteering | None = None
    #: the steering inbox row that offered this message to the turn running when it
    #: arrived (a cluster worker's turn, docs/steering.md "On a cluster"): settled first;
    #: taken, the answer is that turn's reply and this message does not run
    steer_offer: str | None = None
    #: the steering inbox row that asked the turn running when this `interrupt` message
    #: arrived to stop (on a cluster): removed once this message's turn ran
    interrupt_offer: str | None = None


#: every field of `TurnOptions`, read at once (`steered_options`)
_OPTION_VALUES = attrgetter(*(f.name for f in fields(TurnOptions)))


def steered_options(opts: TurnOptions, *, abort: asyncio.Event,
                    take_steering: TakeSteering, return_steering: ReturnSteering,
                    run_id: str) -> TurnOptions:
    """`replace(opts, abort=..., take_steering=..., return_steering=..., run_id=...)`:
    the options a queued turn runs with. Made once per turn, so without `replace`'s
    field-by-field walk (a subclass still goes through `replace`)."""
    if type(opts) is not TurnOptions:
        return replace(opts, abort=abort, take_steering=take_steering,
                       return_steering=return_steering, run_id=run_id)
    steered = TurnOptions(*_OPTION_VALUES(opts))
    steered.abort = abort
    steered.take_steering = take_steering
    steered.return_steering = return_steering
    steered.run_id = run_id
    return steered


@dataclass(frozen=True, slots=True)
class TurnContext:
    """What a turn reads from its host, and nothing more (the host builds it)."""

    config: ClawConfig
    #: which harness runs a route (the plugin runtime's `selector`)
    harnesses: HarnessChoice
    #: the agents' tool policy, host tools and policy gates
    tools: AgentTools
    #: the agents' system prompts, runtime plans and plugin config
    agents: AgentSetup
    #: what plugins do to a turn's tool results and after it (the runtime's `hooks`)
    hooks: TurnHooks
    writers: SessionWriters
    env: Mapping[str, str]
    state_dir: Path
    #: the configured MCP servers (`host.mcp`), None when there are none
    mcp: McpManager | None = None
    #: tools the host itself adds (`sessions_spawn`), offered where the policy allows
    host_tools: tuple[ToolSpec, ...] = ()
