"""One turn, end to end: resolve, select, prepare, run, validate, mirror, deliver.

This is the machinery around the pure decisions (selection, gates, policy); no step
reaches back up the list, and a turn claimed by a plugin harness is never replayed
through another runtime.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from clawharness._ids import new_id
from clawharness.attempt.budget_step import SpendLedger, TurnSpend
from clawharness.attempt.caller_tools import (
    caller_result_messages,
    check_caller_tools,
    pending_calls,
)
from clawharness.attempt.failure import describe_failure
from clawharness.attempt.finalize import (
    IncompleteTurnError,
    SettledTurnFinalized,
    run_settled_turn_finalization,
    should_finalize,
)
from clawharness.attempt.inspector import TurnRecorder, TurnRecordKeeper
from clawharness.attempt.tool_loops import ended_by_tool_loop, tool_loop_guard
from clawharness.attempt.tool_previews import ToolResultPreviews
from clawharness.errors import (
    AgentHarnessPreflightError,
    ClawHarnessError,
    ClientToolError,
    ClientToolsUnsupportedError,
    ConfigError,
    WorkspaceInvalidError,
)
from clawharness.harness.capabilities import ApprovalGate, HostCapabilities, tool_spellings
from clawharness.harness.dispatch import run_selected_attempt
from clawharness.harness.tool_spec import CallerToolResult, ToolSpec
from clawharness.harness.types import (
    AgentEvent,
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
    Message,
    Mirror,
    TakeSteering,
)
from clawharness.harness.user_input_delivery import UserInputChannel, deliver_user_input_request
from clawharness.models.routes import known_provider_ids, resolve_route
from clawharness.names.model_refs import ModelRef, parse_model_ref
from clawharness.observability.spans import (
    attempt_span,
    content_attribute,
    end_attempt,
    end_turn,
    turn_span,
)
from clawharness.providers.diagnostics import endpoint_url
from clawharness.providers.registry import resolve_api
from clawharness.records.agent_end import AgentEnd, AgentEndContext, AgentEndEvent
from clawharness.records.tool_calls import ToolCallMeta
from clawharness.records.turn_result import ModelFallback, QueueDelivery, TurnResult
from clawharness.redaction.outbound import (
    redact_secrets,
    redact_secrets_in,
    redact_transcript_message,
)
from clawharness.sessions.agents import require_known_agent
from clawharness.sessions.keys import parse_session_key
from clawharness.sessions.queue import (
    SessionQueues,
    Steering,
    parse_queue_mode,
    resolve_queue_mode,
)
from clawharness.sessions.transcript import HistoryCache, TranscriptMirror, entry_to_message
from clawharness.store import SessionLease, SessionRecord, Store
from clawharness.tools.backends import ToolBackends
from clawharness.tools.builtin.delegated import delegate_tools
from clawharness.tools.outcomes import ToolOutcomeLedger
from clawharness.tools.redacting import redacting_tool
from clawharness.tools.restriction import ToolRestriction, restricted_policy

if TYPE_CHECKING:
    from clawharness.config.schema import ClawConfig
    from clawharness.mcp.manager import McpManager
    from clawharness.plugins.runtime import PluginRuntime
    from clawharness.sessions.writers import SessionWriters

__all__ = ["TurnContext", "TurnOptions", "TurnRunner"]

log = logging.getLogger("clawharness.turn")

#: how many newest transcript entries a turn carries as context
DEFAULT_HISTORY_LIMIT = 200
#: how long after a turn's deadline its harness may take to settle what was in flight
#: (an interrupted tool call's result, the messages so far) before it is cancelled
SETTLE_GRACE_SECONDS = 5.0


@dataclass(slots=True)
class TurnOptions:
    """Per-turn knobs a front passes to `Host.run_turn`."""

    model: str | None = None
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
    #: how to handle this message if a turn of its session is running (`steer`,
    #: `followup`, `collect`, `interrupt`; None: the agent's `queue.mode`)
    queue_mode: str | None = None
    #: the steered messages the running turn may take (set by the session queue)
    take_steering: TakeSteering | None = None


@dataclass(frozen=True, slots=True)
class _Attempt:
    """One candidate's attempt and what the rest of the turn needs of it."""

    ref: ModelRef
    decision: Any
    params: AttemptParams
    result: AttemptResult
    mirror: TranscriptMirror
    observer: Any
    workspace: str
    preflight: AgentHarnessPreflightError | None = None
    #: this run id ran before and was lost; this attempt continued it
    resumed: bool = False


def _fallback_verdict(attempt: _Attempt, *, last: bool) -> str | None:
    """None: the turn ends with this attempt. "next": try the next model. "skip-harness":
    try the next model unless it selects the same harness. "stop": end with this failure.

    A preflight error is terminal for the chain unless scoped to its harness. After that,
    only a built-in attempt that failed before producing anything falls back: a plugin
    harness that claimed the turn is never replayed through another runtime.
    """
    result = attempt.result
    if result.terminal.kind != "failed" or last:
        return None
    if attempt.preflight is not None:
        return "skip-harness" if attempt.preflight.scope == "harness" else "stop"
    produced = result.tool_metas or result.assistant_texts
    if attempt.decision.builtin and not produced:
        return "next"
    return None


def _user_input_requester(channel: UserInputChannel | None, run_id: str,
                          session_key: str) -> Any:
    """Bind the turn's user-input channel for the harness (formatting and parsing are the
    shared helpers', so every front presents questions alike)."""

    async def request(questions: Sequence[Any],
                      timeout_seconds: Any = None) -> Mapping[str, Any]:
        delivery = await deliver_user_input_request(
            channel, questions, timeout_seconds=timeout_seconds, run_id=run_id,
            session_key=session_key)
        return delivery.answers.to_wire()

    return request


def _check_workspace(path: str) -> None:
    """A turn's own workspace must be an absolute path to a directory that exists."""
    if not os.path.isabs(path):
        raise WorkspaceInvalidError(f"the turn's workspace {path!r} is not an absolute path")
    if not os.path.isdir(path):
        raise WorkspaceInvalidError(f"the turn's workspace {path} is not an existing directory")


def _redacted(text: str | None) -> str | None:
    return None if text is None else redact_secrets(text)


def _redacted_call(meta: ToolCallMeta) -> ToolCallMeta:
    if not (meta.is_error and meta.error):
        return meta
    return replace(meta, error=redact_secrets(meta.error))


def _final_text(result: AttemptResult) -> str:
    if result.assistant_texts:
        return result.assistant_texts[-1]
    last = result.last_assistant
    if isinstance(last, dict):
        blocks = last.get("content") or []
        return "".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")
    return ""


@dataclass(frozen=True, slots=True)
class TurnContext:
    """What a turn reads from its host, and nothing more (the host builds it)."""

    config: ClawConfig
    plugins: PluginRuntime
    writers: SessionWriters
    env: Mapping[str, str]
    state_dir: Path
    #: the configured MCP servers (`host.mcp`), None when there are none
    mcp: McpManager | None = None


class TurnRunner:
    """Runs turns for one host. Holds no per-turn state between turns."""

    def __init__(self, context: TurnContext, store: Store) -> None:
        self._context = context
        self._store = store
        self._background: set[asyncio.Task[Any]] = set()
        self._records = TurnRecordKeeper(store)
        self._spend = SpendLedger(context.config, store)
        self._history = HistoryCache(limit=DEFAULT_HISTORY_LIMIT)
        self._workspaces: dict[str, str] = {}
        self._queues: SessionQueues[TurnResult] = SessionQueues()

    def queued(self, session_key: str) -> int:
        """Messages for the session waiting in this process behind its running turn."""
        return self._queues.waiting(session_key)

    async def drain(self) -> None:
        if self._background:
            await asyncio.gather(*self._background, return_exceptions=True)
        await self._records.drain()
        await self._spend.drain()

    # resolution ----------------------------------------------------------------------

    def _model_ref(self, agent_id: str, override: str | None, record: SessionRecord | None) -> ModelRef:
        config = self._context.config
        text = override
        if text is None and record is not None and record.model_ref:
            text = record.model_ref
        if text is None:
            entry = config.agents.entries.get(agent_id)
            if entry is not None and entry.model is not None and entry.model.primary:
                text = entry.model.primary
        if text is None and config.agents.defaults.model is not None:
            text = config.agents.defaults.model.primary
        if not text:
            raise ConfigError("no model configured: set agents.defaults.model or pass --model",
                              key_path="agents.defaults.model")
        return self._parse_ref(text)

    def _parse_ref(self, text: str) -> ModelRef:
        config = self._context.config
        models_by_provider = {p: [m.id for m in cfg.models]
                              for p, cfg in config.models.providers.items()}
        return parse_model_ref(
            text,
            known_providers=known_provider_ids(config, self._context.plugins.providers),
            models_by_provider=models_by_provider,
        )

    def _workspace(self, agent_id: str) -> str:
        text = self._workspaces.get(agent_id)
        if text is None:
            config = self._context.config
            entry = config.agents.entries.get(agent_id)
            raw = (entry.workspace if entry else None) or config.agents.defaults.workspace
            path = Path(raw).expanduser() if raw else self._context.state_dir / "workspace" / agent_id
            text = self._workspaces[agent_id] = str(path)
        if not os.path.isdir(text):  # made on first use, and again if someone removed it
            Path(text).mkdir(parents=True, exist_ok=True)
        return text

    # the turn --------------------------------------------------------------------------

    def _candidates(self, agent_id: str, primary: ModelRef, opts: TurnOptions,
                    record: SessionRecord | None) -> list[ModelRef]:
        """The model fallback chain: the turn's model, then the configured fallbacks
        (none when the caller named the model or the session carries its own)."""
        if opts.model is not None or (record is not None and record.model_ref
                                      and record.model_ref != self._configured_primary(agent_id)):
            return [primary]
        config = self._context.config
        entry = config.agents.entries.get(agent_id)
        setting = entry.model if entry is not None and entry.model is not None else (
            config.agents.defaults.model)
        chain = [primary]
        for text in (setting.fallbacks if setting is not None else []):
            try:
                ref = self._parse_ref(text)
            except ClawHarnessError as exc:
                log.warning("model fallback %r skipped: %s", text, exc)
                continue
            if ref not in chain:
                chain.append(ref)
        return chain

    def _configured_primary(self, agent_id: str) -> str | None:
        config = self._context.config
        entry = config.agents.entries.get(agent_id)
        setting = entry.model if entry is not None and entry.model is not None else (
            config.agents.defaults.model)
        return setting.primary if setting is not None else None

    async def run(self, session_key: str, message: str, opts: TurnOptions) -> TurnResult:
        """Run the turn of `message`, or hand it to the session's running turn by its
        queue mode (`clawharness.sessions.queue`)."""
        agent_id = parse_session_key(session_key).agent_id
        mode = resolve_queue_mode(self._context.config, agent_id,
                                  parse_queue_mode(opts.queue_mode))

        def turn(text: str, steering: Steering) -> Awaitable[TurnResult]:
            return self._run_turn(session_key, text, replace(
                opts, abort=steering.abort, take_steering=steering.take))

        wait = (self._context.writers.timings.wait if opts.busy_timeout is None
                else opts.busy_timeout)
        queued = await self._queues.submit(session_key, message, mode, turn,
                                           abort=opts.abort, wait=wait)
        if queued.mode is None:
            return queued.result
        return replace(queued.result, queue=QueueDelivery(queued.mode, queued.carried))

    async def _run_turn(self, session_key: str, message: str,
                        opts: TurnOptions) -> TurnResult:
        started = time.perf_counter()
        key = parse_session_key(session_key)
        require_known_agent(self._context.config, key.agent_id, session_key=session_key)
        if opts.workspace is not None:
            _check_workspace(opts.workspace)
        run_id = opts.run_id or new_id()
        with turn_span(key.agent_id, session_key, run_id) as span:
            content_attribute(span, "gen_ai.input.messages", [
                {"role": "user", "parts": [{"type": "text", "content": message}]}])
            # the turn's budgets: reserved before its first dispatch, settled here
            spend = self._spend.turn(run_id, key.agent_id, session_key, caller=opts.caller,
                                     approvals=opts.approvals)
            try:
                try:
                    result = await self._run(key, session_key, message, opts, run_id,
                                             started, spend)
                except BaseException:
                    await spend.release()
                    raise
                result = await spend.settle(result)
            except Exception as exc:
                end_turn(span, runtime="none", selected_reason="none", terminal="error",
                         session_id="", usage=None, duration=time.perf_counter() - started,
                         error=str(exc), error_type=getattr(exc, "code", type(exc).__name__))
                raise
            end_turn(span, runtime=result.runtime, selected_reason=result.selected_reason,
                     terminal=result.terminal, session_id=result.session_id, usage=result.usage,
                     duration=result.duration_ms / 1000, error=result.error,
                     error_type=result.error_type)
            if result.text:
                content_attribute(span, "gen_ai.output.messages", [
                    {"role": "assistant", "parts": [{"type": "text", "content": result.text}]}])
            return result

    async def _run(self, key: Any, session_key: str, message: str, opts: TurnOptions,
                   run_id: str, started: float, spend: TurnSpend) -> TurnResult:
        plugins = self._context.plugins
        async with self._context.writers.hold(session_key, timeout=opts.busy_timeout,
                                           purpose=f"turn {run_id}") as slot:
            # read under the lease: the complete transcript, whoever wrote it
            record = await self._store.get_session(session_key)
            primary = self._model_ref(key.agent_id, opts.model, record)
            chain = self._candidates(key.agent_id, primary, opts, record)
            # the pin this session carried into the turn (not one this turn just created)
            pinned = record.agent_harness_id if record else None
            # a runtime chosen for the session before its first turn (a fork's --runtime)
            override = record.meta.agent_harness_runtime_override if record else None
            abort = opts.abort or asyncio.Event()
            timeout = opts.timeout or self._context.config.agents.defaults.timeout_seconds
            deadline = asyncio.get_running_loop().time() + timeout if timeout else None
            skipped_harnesses: set[str] = set()
            fallbacks: list[ModelFallback] = []
            attempt: _Attempt | None = None
            created = False
            #: the new session row's write, in flight while the first attempt starts; the
            #: transcript waits for it before its first append (and so does any tool that
            #: may change state), so a lost creation race writes nothing
            creating: asyncio.Future[SessionRecord] | None = None
            caller_turn = bool(opts.caller_tools or opts.caller_results)
            results_stored = False
            recorder = TurnRecorder(run_id, session_key, slot.fence)
            for index, ref in enumerate(chain):
                route = resolve_route(self._context.config, ref, env=self._context.env,
                                      extra_providers=plugins.providers)
                decision = plugins.select(agent_id=key.agent_id, route=route, pinned=pinned,
                                          session_key=session_key, override=override)
                if decision.selected_harness_id in skipped_harnesses:
                    fallbacks.append(ModelFallback(str(ref), skipped="harness-scoped preflight"))
                    continue
                if caller_turn and not decision.builtin:
                    if attempt is None and not fallbacks:
                        raise ClientToolsUnsupportedError(
                            f"the caller's tools need the built-in runtime, but agent "
                            f"{key.agent_id!r} runs {decision.selected_harness_id!r} for "
                            f"{ref}: a native runtime cannot stop for a caller's tool")
                    fallbacks.append(ModelFallback(
                        str(ref), skipped="runtime cannot take the caller's tools"))
                    continue
                if opts.caller_results and not results_stored:
                    if record is None:
                        raise ClientToolError("tool results need the session the tool calls "
                                              f"were made in, and {session_key} has none")
                    await self._store_caller_results(record, session_key, run_id,
                                                     opts.caller_results, slot.fence)
                    results_stored = True
                recorder.selected(index, str(ref), decision)
                attempt_started = recorder.now_ms()
                if record is None:
                    # a new session is born pinned to the harness selected for it
                    now = time.time()
                    record = SessionRecord(
                        key=session_key, session_id=new_id(), agent_id=key.agent_id,
                        model_ref=str(ref), agent_harness_id=decision.selected_harness_id,
                        created_at=now, updated_at=now,
                    )
                    creating = asyncio.ensure_future(self._store.create_session(record))
                    created = True
                try:
                    attempt = await self._attempt(
                        index, key.agent_id, session_key, record, ref, route, decision,
                        message, opts, run_id, abort, deadline, fresh=created and index == 0,
                        after=creating, fence=slot.fence, recorder=recorder, spend=spend)
                finally:
                    if creating is not None:
                        record = await creating  # raises when the row could not be made
                        creating = None
                recorder.attempt_ended(index, attempt.result, attempt_started)
                verdict = _fallback_verdict(attempt, last=index == len(chain) - 1)
                if verdict is None:
                    break
                fallbacks.append(ModelFallback(str(ref), error=attempt.result.terminal.error))
                if verdict == "skip-harness":
                    skipped_harnesses.add(decision.selected_harness_id)
                elif verdict == "stop":
                    break
            assert attempt is not None and record is not None
            return await self._conclude(attempt, record, session_key, key.agent_id, message,
                                        started, fallbacks, slot.fence, pinned=pinned,
                                        timeout=timeout, recorder=recorder)

    async def _attempt(self, index: int, agent_id: str, session_key: str,
                       record: SessionRecord, ref: ModelRef, route: Any, decision: Any,
                       message: str, opts: TurnOptions, run_id: str, abort: asyncio.Event,
                       deadline: float | None, *, fresh: bool = False,
                       after: Awaitable[Any] | None = None,
                       fence: SessionLease | None = None,
                       recorder: TurnRecorder | None = None,
                       spend: TurnSpend | None = None) -> _Attempt:
        """Prepare and run one candidate's attempt; failures come back as results.

        `fresh`: the session row was created by this turn, so it has no history to read.
        `fence`: the session writer lease the turn holds; its transcript writes carry it.
        """
        plugins = self._context.plugins
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
                                  scrub=partial(redact_transcript_message,
                                                tool_results=not decision.builtin))
        workspace = opts.workspace or self._workspace(agent_id)
        tools = await self._tools(agent_id, decision, opts)
        if opts.caller_tools:
            tools = (*tools, *check_caller_tools(opts.caller_tools, tools))
        capabilities = HostCapabilities(
            run_id=run_id, session_key=session_key, workspace_dir=workspace,
            policy=restricted_policy(plugins.tool_policy(agent_id), opts.tool_restriction),
            approvals=opts.approvals if recorder is None else recorder.gate(opts.approvals),
            spellings=self._tool_spellings(tools),
        )
        observer = plugins.new_tool_observer(run_id)
        observe: Callable[..., Any] = observer
        on_event = opts.on_agent_event
        if on_event is not None:
            previews = ToolResultPreviews(on_event)
            observe, on_event = previews.observing(observer), previews.sink
        if recorder is not None:
            on_event = recorder.chain(on_event)
        params = AttemptParams(
            run_id=run_id, session_key=session_key, session_id=record.session_id,
            agent_id=agent_id, prompt=message, provider=route.model.provider,
            model_id=route.model.model_id, model=route.model, workspace_dir=workspace,
            host_capabilities=capabilities,
            runtime_plan=plugins.runtime_plan(route, decision.selected_harness_id, agent_id),
            system_prompt=plugins.system_prompt(agent_id),
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
            plugin_config=plugins.plugin_config(decision.owner_plugin_id),
            state_dir=str(self._context.state_dir), mirror=cast(Mirror, mirror),
            mirror_barrier=mirror.flush,
            transform_tool_result=plugins.tool_result_transform(decision.selected_harness_id),
            request_user_input=_user_input_requester(opts.user_input, run_id, session_key),
            tool_outcomes=ToolOutcomeLedger(self._store, record.session_id, run_id)
            if opts.durable_tools else None,
            tool_loops=tool_loop_guard(self._context.config.tools.loop_detection),
            take_steering=opts.take_steering,
        )
        if spend is not None:  # the reserve step: the turn is not started without room
            await spend.reserve(params, deadline=deadline)
        gate = plugins.tool_policy_gate(decision, agent_id, opts.tool_restriction)
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
        result = await self._stored(mirror, result)
        self._history.extend(record.session_id, newest_seq, mirror.appended, fence_no)
        if result.last_tool_error is None and observer.last_tool_error is not None:
            result.last_tool_error = observer.last_tool_error
        try:
            result = plugins.validate_result(result)
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
        return _Attempt(ref, decision, params, result, mirror, observer, workspace, preflight,
                        resumed=resumed)

    async def _store_caller_results(self, record: SessionRecord, session_key: str,
                                    run_id: str, results: Sequence[CallerToolResult],
                                    fence: SessionLease | None) -> None:
        """The caller's tool results, checked against the calls the transcript left
        pending, stored as the turn's first entries (`attempt.caller_tools`)."""
        tail = await self._store.read_entries(record.session_id, last=DEFAULT_HISTORY_LIMIT)
        messages = caller_result_messages(results, pending_calls(tail), run_id=run_id)
        mirror = TranscriptMirror(self._store, session_key, record.session_id, run_id,
                                  fence=fence, scrub=redact_transcript_message)
        await mirror(messages)
        await mirror.flush()

    async def _tools(self, agent_id: str, decision: Any,
                     opts: TurnOptions) -> tuple[ToolSpec, ...]:
        """The host tools, and for the built-in runtime the configured MCP servers' tools
        the agent's policy allows (native runtimes get the servers projected instead);
        the turn's restriction narrows them, its backends take over the file and exec
        tools they offer."""
        plugins = self._context.plugins
        tools = plugins.tool_specs(agent_id)
        if decision.builtin and self._context.mcp is not None:
            tools += await self._context.mcp.tool_specs(plugins.tool_policy(agent_id))
        restriction = opts.tool_restriction
        if restriction is not None:
            tools = tuple(t for t in tools if restriction.allows(tool_spellings(t)))
        backends = opts.tool_backends
        if backends is not None and not backends.empty:
            tools = delegate_tools(tools, backends, plugins.sandbox.for_agent(agent_id),
                                   self._context.config.tools)
        # what a tool prints or a server returns is masked before any runtime sees it
        return tuple(redacting_tool(t) for t in tools)

    def _tool_spellings(self, tools: Sequence[ToolSpec]) -> dict[str, tuple[str, ...]]:
        """Tool policy names of the MCP tools known to this host, offered or left out."""
        mcp = self._context.mcp
        spellings = {} if mcp is None else mcp.policy_spellings()
        spellings.update((t.name, tool_spellings(t)) for t in tools if t.policy_names)
        return spellings

    @staticmethod
    async def _stored(mirror: TranscriptMirror, result: AttemptResult) -> AttemptResult:
        """The attempt's result once its mirrored messages are stored; a failed store
        fails the attempt (what was stored stays, in order, with no gap)."""
        try:
            await mirror.flush()
        except Exception as exc:
            log.warning("run %s: the transcript could not be stored: %s", mirror.run_id, exc)
            return AttemptResult(
                AttemptTerminal("failed", source="prompt",
                                error=f"the transcript could not be stored: {exc}"),
                result.session_id_used, messages_snapshot=result.messages_snapshot,
                transcript_mirrored=True, warnings=result.warnings)
        return result

    async def _conclude(self, attempt: _Attempt, record: SessionRecord, session_key: str,
                        agent_id: str, message: str, started: float,
                        fallbacks: list[ModelFallback],
                        fence: SessionLease | None = None, *, pinned: str | None = None,
                        timeout: float | None = None,
                        recorder: TurnRecorder | None = None) -> TurnResult:
        """Pin, finalize when needed, start side effects, and shape the turn's result."""
        plugins = self._context.plugins
        decision, result, ref = attempt.decision, attempt.result, attempt.ref
        # a fallback model answers this turn only: the session keeps its own model and pin
        if not fallbacks and (record.agent_harness_id != decision.selected_harness_id
                              or record.model_ref != str(ref)):
            pin = {"agent_harness_id": decision.selected_harness_id, "model_ref": str(ref)}
            if fence is None:
                await self._store.update_session(session_key, **pin)
            else:
                await self._store.update_session(session_key, fence=fence, **pin)
        text = _final_text(result)
        warning: str | None = None
        if decision.harness is not None and should_finalize(result) and not text.strip():
            text, warning = await self._finalize(decision.harness, attempt.params, result,
                                                 attempt.observer, attempt.mirror)
            if recorder is not None:
                recorder.finalized("incomplete-warning" if warning else "finalized")
        silent = plugins.is_silent(text)
        # what every front shows of a failed call: a tool echoing a key is masked
        tool_calls = tuple(_redacted_call(m) for m in result.tool_metas)
        run_id = attempt.params.run_id
        plugins.after_turn(AgentEnd(
            AgentEndEvent(run_id=run_id, session_key=session_key,
                          terminal=result.terminal.kind, text=text, tool_metas=tool_calls,
                          usage=result.usage),
            AgentEndContext(run_id=run_id, agent_id=agent_id, session_key=session_key,
                            session_id=record.session_id,
                            harness_id=decision.selected_harness_id,
                            workspace_dir=attempt.workspace)))
        model = attempt.params.model
        failure = None if result.terminal.kind == "ok" else describe_failure(
            result.terminal, model=model, url=endpoint_url(model, resolve_api(model)),
            runtime=decision.selected_harness_id, builtin=decision.builtin,
            timeout_seconds=timeout)
        turn = TurnResult(
            session_key=session_key, session_id=record.session_id, run_id=run_id,
            runtime=decision.selected_harness_id, selected_reason=decision.selected_reason,
            terminal=result.terminal.kind, text="" if silent else text, silent=silent,
            tool_calls=tool_calls, usage=result.usage,
            # what every front shows of a failure: a provider echoing its key is masked
            error=_redacted(failure.message if failure else result.terminal.error),
            duration_ms=(time.perf_counter() - started) * 1000,
            warnings=tuple(result.warnings),
            error_details=redact_secrets_in(failure.details) if failure else None,
            pinned_harness_id=pinned,
            model=str(ref), fallbacks=tuple(fallbacks), incomplete_turn_warning=warning or None,
            resumed_run=attempt.resumed,
            client_tool_calls=tuple(dict(c) for c in result.client_tool_calls or ()),
        )
        if recorder is not None:
            self._records.keep(recorder.build(turn, agent_id=agent_id))
        return turn

    async def _finalize(self, harness: Any, params: AttemptParams, result: AttemptResult,
                        observer: Any, mirror: TranscriptMirror) -> tuple[str, str | None]:
        """Settled-turn finalization: once, outside the attempt loop; else the warning."""
        try:
            outcome = await run_settled_turn_finalization(harness, params, result,
                                                          observer=observer, timeout=120)
        except IncompleteTurnError as exc:
            return exc.warning.text, exc.warning.text
        if isinstance(outcome, SettledTurnFinalized):
            if not outcome.result.assistant_transcript_owned:
                await mirror([outcome.result.assistant])
                await mirror.flush()
            return outcome.text, None
        return outcome.text, outcome.text
