"""Run one candidate's attempt. Build the attempt's parameters (history window, tools,
capabilities, runtime plan), reserve the turn's budgets (`TurnSpend.reserve`), run it on
the selected harness, and store what it said; every failure comes back as a result (`AttemptOutcome`), for the
fallback decision (`clawharness.harness.fallback`) to weigh."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Final, cast

from clawharness.attempt.caller_tools import (
    caller_result_messages,
    check_caller_tools,
    pending_calls,
)
from clawharness.attempt.compaction import attempt_prompt_context
from clawharness.attempt.inspector import RECORDED_STREAMS
from clawharness.attempt.outcomes import ToolTerminalObserver
from clawharness.attempt.prepare import PreparedTurn
from clawharness.attempt.tool_loops import ended_by_tool_loop, tool_loop_guard
from clawharness.attempt.tool_previews import ToolResultPreviews
from clawharness.attempt.transcript_contract import check_transcript_contract
from clawharness.attempt.turn_options import TurnContext, TurnOptions
from clawharness.attempt.validate import validate_attempt_result
from clawharness.config import CompactionConfig, agent_compaction, agent_context_pruning
from clawharness.context import PruningRules, TokenCounter, prompt_view
from clawharness.errors import AgentHarnessPreflightError, ClawHarnessError
from clawharness.harness import make_attempt_params, quick_maker
from clawharness.harness.capabilities import HostCapabilities, tool_spellings
from clawharness.harness.dispatch import run_selected_attempt
from clawharness.harness.selection import SelectionDecision
from clawharness.harness.tool_spec import CallerToolResult, ToolSpec
from clawharness.harness.types import (
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
    Message,
    Mirror,
)
from clawharness.harness.user_input_delivery import UserInputChannel, deliver_user_input_request
from clawharness.models import ThinkingPlans, apply_thinking
from clawharness.models.routes import Route
from clawharness.names.model_refs import ModelRef
from clawharness.observability.spans import attempt_span, end_attempt
from clawharness.redaction.outbound import redact_transcript_message
from clawharness.sessions.transcript import HistoryCache, TranscriptMirror, entry_to_message
from clawharness.store import SessionLease, SessionRecord, Store
from clawharness.tools.builtin.delegated import delegate_tools
from clawharness.tools.outcomes import ToolOutcomeLedger
from clawharness.tools.redacting import redacting_tool
from clawharness.tools.restriction import restricted_policy

__all__ = ["DEFAULT_HISTORY_LIMIT", "AttemptOutcome", "AttemptRunner", "Candidate"]

log = logging.getLogger("clawharness.turn")

#: how many newest transcript entries a turn carries as context
DEFAULT_HISTORY_LIMIT = 200
#: how long after a turn's deadline its harness may take to settle what was in flight
#: (an interrupted tool call's result, the messages so far) before it is cancelled
SETTLE_GRACE_SECONDS = 5.0
#: tools whose redacting wrappers are remembered (then forgotten all at once)
_MAX_WRAPPED = 1024


@dataclass(frozen=True, slots=True)
class Candidate:
    """One model of the turn's chain, routed and with its harness selected."""

    index: int
    ref: ModelRef
    route: Route
    decision: SelectionDecision


@dataclass(frozen=True, slots=True)
class AttemptOutcome:
    """One candidate's attempt and what the rest of the turn needs of it."""

    candidate: Candidate
    params: AttemptParams
    result: AttemptResult
    mirror: TranscriptMirror
    observer: ToolTerminalObserver
    #: the harness refused the attempt before any model work
    preflight: AgentHarnessPreflightError | None = None
    #: this run id ran before and was lost; this attempt continued it
    resumed: bool = False

    @property
    def ref(self) -> ModelRef:
        return self.candidate.ref

    @property
    def decision(self) -> SelectionDecision:
        return self.candidate.decision


#: makes an `AttemptOutcome` as the class does, in fewer instructions (`clawharness._frozen`)
_make_outcome = quick_maker(AttemptOutcome)
#: the transcript mirror's scrub of a built-in attempt's messages (its tools' results
#: were masked where they were made) and of a native runtime's (every result masked);
#: made once, not a `partial` per attempt
_SCRUB_BUILTIN: Final = partial(redact_transcript_message, tool_results=False)
_SCRUB_NATIVE: Final = partial(redact_transcript_message, tool_results=True)


async def _request_user_input(channel: UserInputChannel | None, run_id: str, session_key: str,
                              questions: Sequence[Any],
                              timeout_seconds: Any = None) -> Mapping[str, Any]:
    """The turn's user-input channel, bound for the harness by `_user_input_requester`
    (formatting and parsing are the shared helpers', so every front presents questions
    alike)."""
    delivery = await deliver_user_input_request(
        channel, questions, timeout_seconds=timeout_seconds, run_id=run_id,
        session_key=session_key)
    return delivery.answers.to_wire()


def _user_input_requester(channel: UserInputChannel | None, run_id: str,
                          session_key: str) -> Any:
    """`request(questions, timeout_seconds=None)` on the turn's user-input channel (a
    `partial`: two GC-tracked objects an attempt, not a closure's five)."""
    return partial(_request_user_input, channel, run_id, session_key)


class AttemptRunner:
    """Runs the attempts of one host's turns; holds the transcript windows between them."""

    def __init__(self, context: TurnContext, store: Store) -> None:
        self._context = context
        self._store = store
        self._history = HistoryCache(limit=DEFAULT_HISTORY_LIMIT)
        #: each agent's compaction settings and pruning rules (its keys over the
        #: defaults'), resolved on its first attempt
        self._agent_context: dict[str, tuple[CompactionConfig, PruningRules]] = {}
        #: token estimates of the windows' messages, kept across attempts and turns
        self._tokens = TokenCounter()
        #: each tool's redacting wrapper, made once per tool (by the tool's identity)
        self._redacting: dict[int, tuple[ToolSpec, ToolSpec]] = {}
        #: each tuple of tools' tuple of wrappers, by the tuple's identity
        self._wrapped: dict[int, tuple[tuple[ToolSpec, ...], tuple[ToolSpec, ...]]] = {}
        #: the thinking plan of each agent, route and levels (`ThinkingPlans`)
        self._thinking = ThinkingPlans()

    async def run(self, turn: PreparedTurn, candidate: Candidate, record: SessionRecord, *,
                  fresh: bool = False, after: Awaitable[Any] | None = None) -> AttemptOutcome:
        """Prepare and run one candidate's attempt; failures come back as results.

        `fresh`: the session row was created by this turn, so it has no history to read.
        `after`: the session row's creation, which the transcript's first append awaits.
        """
        context = self._context
        agent_tools, agents = context.tools, context.agents
        opts, run_id, session_key = turn.opts, turn.run_id, turn.session_key
        message, agent_id, fence = turn.message, turn.agent_id, turn.fence
        index, route, decision = candidate.index, candidate.route, candidate.decision
        recorder, abort, deadline = turn.recorder, turn.abort, turn.deadline
        window: list[dict[str, Any]] | None
        fence_no = None if fence is None else fence.fence
        resumed = opts.resumes_run and not fresh
        newest: list[Any] = []
        if not fresh and not resumed:
            newest = await self._store.read_entries(record.session_id, last=1)
            # the transcript ends with this very run: it ran before and was lost (its
            # worker died before anyone could say it was a retry)
            resumed = (opts.durable_tools and index == 0 and bool(newest)
                       and newest[-1].metadata.get("runId") == run_id)
        if fresh:
            newest_seq = 0
            window = self._history.put(record.session_id, [], fence_no)
        elif resumed:
            entries = await self._store.read_entries(record.session_id,
                                                     last=DEFAULT_HISTORY_LIMIT)
            newest_seq = entries[-1].seq if entries else 0
            self._history.invalidate(record.session_id)
            window = [entry_to_message(e) for e in entries
                      if e.metadata.get("runId") != run_id]
        else:
            newest_seq = newest[-1].seq if newest else 0
            window = self._history.get(record.session_id, newest_seq, fence_no)
        if window is None:
            window = self._history.put(record.session_id, await self._store.read_entries(
                record.session_id, last=DEFAULT_HISTORY_LIMIT), fence_no)
        start = 0
        while start < len(window) and window[start].get("role") == "toolResult":
            start += 1
        history = window[start:] if start else window
        if index and history and history[-1].get("role") == "user" and (
                history[-1].get("content") == [{"type": "text", "text": message}]):
            history = history[:-1]  # this turn's prompt, mirrored by the failed candidate
        # a native runtime's own tools' results are masked here; the host's own tools'
        # were masked where they were made (`redacting_tool`)
        mirror = TranscriptMirror(self._store, session_key, record.session_id, run_id,
                                  attempt=index, after=after, fence=fence,
                                  scrub=_SCRUB_BUILTIN if decision.builtin else _SCRUB_NATIVE)
        workspace = turn.workspace
        # (the configured MCP servers' tools, for the built-in runtime: the one await of
        # the tool surface, so the rest is a plain call)
        served = () if not decision.builtin or context.mcp is None else (
            await context.mcp.tool_specs(agent_tools.tool_policy(agent_id)))
        tools = self._tools(agent_id, opts, served)
        if opts.caller_tools:
            tools = (*tools, *check_caller_tools(opts.caller_tools, tools))
        capabilities = HostCapabilities(
            run_id=run_id, session_key=session_key, workspace_dir=workspace,
            policy=restricted_policy(agent_tools.tool_policy(agent_id), opts.tool_restriction),
            approvals=recorder.gate(opts.approvals),
            spellings=self._tool_spellings(tools),
        )
        system_prompt = agents.system_prompt(agent_id)
        # the prompt's budget, pruning and compaction (docs/compaction.md)
        compaction, pruning = self._context_settings(agent_id)
        prompt_context = None if not decision.builtin else attempt_prompt_context(
            history, compaction=compaction,
            rules=pruning, model=route.model, auth=route.auth,
            harness=decision.harness, agent_id=agent_id, session_key=session_key,
            run_id=run_id, system_prompt=system_prompt, tools=tools, mirror=mirror,
            window_limit=DEFAULT_HISTORY_LIMIT, counter=self._tokens)
        history = (prompt_view(history)[0] if prompt_context is None
                   else cast("list[dict[str, Any]]", prompt_context.history))
        observer = ToolTerminalObserver(run_id)
        observe: Callable[..., Any] = observer
        on_event = opts.on_agent_event
        if on_event is not None:
            previews = ToolResultPreviews(on_event)
            observe, on_event = previews.observing(observer), previews.sink
        # with no front listening, the turn's record is the one reader of its events
        streams = RECORDED_STREAMS if on_event is None else None
        on_event = recorder.chain(on_event)
        thinking = self._thinking.plan(self._context.config, agent_id, route,
                                       message=opts.thinking,
                                       session=record.meta.thinking_level)
        params = make_attempt_params(
            run_id=run_id, session_key=session_key, session_id=record.session_id,
            agent_id=agent_id, prompt=message, provider=route.model.provider,
            model_id=route.model.model_id, model=apply_thinking(route.model, thinking),
            thinking_level=thinking.level, workspace_dir=workspace,
            host_capabilities=capabilities,
            runtime_plan=agents.runtime_plan(route, decision.selected_harness_id, agent_id),
            system_prompt=system_prompt,
            # stored rows are transcript messages of the wire shape
            tools=tools,
            mcp_servers=() if decision.builtin or self._context.mcp is None
            else self._context.mcp.launches(),
            history=cast("list[Message]", history),
            auth=route.auth, abort=abort, deadline=deadline,
            max_steps=opts.max_steps or self._context.config.agents.defaults.max_steps or 24,
            on_partial_reply=opts.on_partial_reply, on_agent_event=on_event,
            observe_tool_terminal=observe,
            agent_harness_id=decision.selected_harness_id,
            plugin_config=agents.plugin_config(decision.owner_plugin_id),
            state_dir=str(self._context.state_dir), mirror=cast(Mirror, mirror),
            mirror_barrier=mirror.flush,
            transform_tool_result=context.hooks.tool_result_transform(
                decision.selected_harness_id),
            request_user_input=_user_input_requester(opts.user_input, run_id, session_key),
            tool_outcomes=ToolOutcomeLedger(self._store, record.session_id, run_id)
            if opts.durable_tools else None,
            tool_loops=tool_loop_guard(self._context.config.tools.loop_detection),
            prompt_context=prompt_context,
            take_steering=opts.take_steering, return_steering=opts.return_steering,
            # a built-in turn's budgets are held before each later model call: a spent
            # budget stops the turn there
            spend_check=turn.spend.check(workspace) if decision.builtin else None,
            agent_event_streams=streams,
        )
        # reserve: the turn is not started without room on its budgets (the estimate
        # reads the attempt's prompt and model, so it is made here, before dispatch)
        await turn.spend.reserve(params, deadline=deadline, builtin=decision.builtin)
        gate = agent_tools.tool_policy_gate(decision, agent_id, opts.tool_restriction)
        preflight: AgentHarnessPreflightError | None = None
        with attempt_span(decision.selected_harness_id, decision.selected_reason,
                          provider=route.model.provider, model=route.model.model_id,
                          session_id=record.session_id, attempt=index) as span:
            try:
                if deadline is not None:
                    # the harness stops at `deadline` itself (params.deadline) and settles
                    # what was in flight; this is the backstop for one that does not
                    async with asyncio.timeout_at(deadline + SETTLE_GRACE_SECONDS):
                        result = await run_selected_attempt(decision, params, gate=gate)
                else:
                    result = await run_selected_attempt(decision, params, gate=gate)
            except TimeoutError:
                abort.set()
                result = AttemptResult(AttemptTerminal("timeout", source="run_budget"),
                                       record.session_id)
            except AgentHarnessPreflightError as exc:
                preflight = exc
                result = AttemptResult(AttemptTerminal("failed", source="precheck", error=str(exc)),
                                       record.session_id)
            except ClawHarnessError as exc:
                result = AttemptResult(AttemptTerminal("failed", source="prompt", error=str(exc)),
                                       record.session_id)
            except Exception as exc:  # a harness bug must not take the host down
                log.exception("harness %s failed", decision.selected_harness_id)
                result = AttemptResult(
                    AttemptTerminal("failed", source="prompt", error=f"{type(exc).__name__}: {exc}"),
                    record.session_id)
            finally:
                capabilities.settle()
            end_attempt(span, terminal=result.terminal.kind, error=result.terminal.error)
        result = ended_by_tool_loop(params.tool_loops, result)
        try:  # the mirrored messages stored (a failed store fails the attempt)
            await mirror.flush()
        except Exception as exc:
            result = self._unstored(mirror, result, exc)
        self._history.extend(record.session_id, newest_seq, mirror.appended, fence_no)
        if result.last_tool_error is None and observer.last_tool_error is not None:
            result.last_tool_error = observer.last_tool_error
        if thinking.note and thinking.note not in result.warnings:
            result.warnings.append(thinking.note)  # a level clamped to what the model takes
        try:
            # the attempt-result rules, then the transcript contract (a finished
            # attempt's reply must be in its transcript messages)
            checked = validate_attempt_result(result)
            check_transcript_contract(checked)
            result = checked
        except ClawHarnessError as exc:
            result = AttemptResult(AttemptTerminal("failed", source="prompt", error=str(exc)),
                                   record.session_id, messages_snapshot=result.messages_snapshot,
                                   transcript_mirrored=result.transcript_mirrored)
        if not result.transcript_mirrored:
            # the prompt under its own key: a harness cut off after it mirrored the prompt
            # (a timeout) must not get it stored twice
            prompt = {"role": "user", "content": [{"type": "text", "text": message}],
                      "__meta": {"idempotencyKey": f"{run_id}:prompt"}}
            await mirror([prompt, *map(dict, result.messages_snapshot)])
            await mirror.flush()
        return _make_outcome(candidate, params, result, mirror, observer, preflight,
                             resumed=resumed)

    async def store_caller_results(self, turn: PreparedTurn, record: SessionRecord,
                                   results: Sequence[CallerToolResult],
                                   fence: SessionLease | None) -> None:
        """The caller's tool results, checked against the calls the transcript left
        pending, stored as the turn's first entries (`attempt.caller_tools`)."""
        tail = await self._store.read_entries(record.session_id, last=DEFAULT_HISTORY_LIMIT)
        messages = caller_result_messages(results, pending_calls(tail), run_id=turn.run_id)
        mirror = TranscriptMirror(self._store, turn.session_key, record.session_id,
                                  turn.run_id, fence=fence, scrub=redact_transcript_message)
        await mirror(messages)
        await mirror.flush()

    def _context_settings(self, agent_id: str) -> tuple[CompactionConfig, PruningRules]:
        """The agent's compaction settings and pruning rules (docs/compaction.md)."""
        settings = self._agent_context.get(agent_id)
        if settings is None:
            agents = self._context.config.agents
            settings = self._agent_context[agent_id] = (
                agent_compaction(agents, agent_id),
                PruningRules.from_config(agent_context_pruning(agents, agent_id)))
        return settings

    def _tools(self, agent_id: str, opts: TurnOptions,
               served: tuple[ToolSpec, ...]) -> tuple[ToolSpec, ...]:
        """The host tools, and for the built-in runtime the configured MCP servers' tools
        the agent's policy allows (`served`; native runtimes get the servers projected
        instead); the turn's restriction narrows them, its backends take over the file
        and exec tools they offer."""
        surface = self._context.tools
        tools = surface.tool_specs(agent_id)
        if self._context.host_tools:
            policy = surface.tool_policy(agent_id)
            tools += tuple(t for t in self._context.host_tools if policy.check(t.name) is None)
        if served:
            tools += served
        restriction = opts.tool_restriction
        if restriction is not None:
            tools = tuple(t for t in tools if restriction.allows(tool_spellings(t)))
        backends = opts.tool_backends
        if backends is not None and not backends.empty:
            tools = delegate_tools(tools, backends, surface.sandbox.for_agent(agent_id),
                                   self._context.config.tools)
        # what a tool prints or a server returns is masked before any runtime sees it
        # (the same tuple of wrappers for the same tuple of tools: an agent's tools are
        # one tuple from turn to turn, and a runtime may keep what it makes of them)
        kept = self._wrapped.get(id(tools))
        if kept is not None and kept[0] is tools:
            return kept[1]
        wrapped = tuple(self._redacting_tool(t) for t in tools)
        if len(self._wrapped) >= _MAX_WRAPPED:
            self._wrapped.clear()
        self._wrapped[id(tools)] = (tools, wrapped)
        return wrapped

    def _redacting_tool(self, tool: ToolSpec) -> ToolSpec:
        """`redacting_tool(tool)`, the same wrapper for the same tool from turn to turn
        (the host's tools are made once per agent; a turn's own tools, e.g. a backend's,
        get theirs and are forgotten when more than `_MAX_WRAPPED` are known)."""
        known = self._redacting.get(id(tool))
        if known is not None and known[0] is tool:
            return known[1]
        if len(self._redacting) >= _MAX_WRAPPED:
            self._redacting.clear()
        wrapped = redacting_tool(tool)
        self._redacting[id(tool)] = (tool, wrapped)
        return wrapped

    def _tool_spellings(self, tools: Sequence[ToolSpec]) -> dict[str, tuple[str, ...]]:
        """Tool policy names of the MCP tools known to this host, offered or left out."""
        mcp = self._context.mcp
        spellings = {} if mcp is None else mcp.policy_spellings()
        spellings.update((t.name, tool_spellings(t)) for t in tools if t.policy_names)
        return spellings

    @staticmethod
    def _unstored(mirror: TranscriptMirror, result: AttemptResult,
                  exc: Exception) -> AttemptResult:
        """The attempt's result when its mirrored messages could not be stored: a failed
        store fails the attempt (what was stored stays, in order, with no gap)."""
        log.warning("run %s: the transcript could not be stored: %s", mirror.run_id, exc)
        return AttemptResult(
            AttemptTerminal("failed", source="prompt",
                            error=f"the transcript could not be stored: {exc}"),
            result.session_id_used, messages_snapshot=result.messages_snapshot,
            transcript_mirrored=True, warnings=result.warnings)
