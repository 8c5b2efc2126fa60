"""Compaction for the built-in runtime: the budget of each model call, and the summary.

`TurnPromptContext` is the `PromptContext` a built-in attempt gets
(`AttemptParams.prompt_context`): before each model call the loop asks
`wants_compaction`; when the call would exceed the budget, `compact` has the model
summarise the oldest span through the host's isolated completion (`summariser`), stores
the summary as a transcript entry of its own (`clawharness.context.window`) behind the
attempt's own messages, and hands back the shorter context. `shape` prunes old tool
results and keeps each call within the budget whatever happened. A provider's
context-overflow error compacts once more and retries the call (the loop's part).

`compact_window` is the same compaction outside a turn (`/compact`, `sessions compact`,
`sessions.compact`), under the session's writer lease.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

from clawharness.attempt.isolated import (
    HostAuthorization,
    IsolatedCompletionRequest,
    complete_isolated,
)
from clawharness.config.context import CompactionConfig
from clawharness.context import (
    CHARS_PER_TOKEN,
    SUMMARY_ROLE,
    ContextBudget,
    PruningRules,
    TokenCounter,
    fit_to_budget,
    keyed,
    prompt_view,
    prune_tool_results,
    render_span,
    reply_reserve,
    select_cut,
    summary_entry,
    summary_prompt_message,
    summary_request,
)
from clawharness.harness import quick_maker
from clawharness.harness.types import Message, PreparedAuth, ResolvedModel
from clawharness.records.compaction import CompactionResult

__all__ = [
    "CompactionPlan",
    "Summarise",
    "TurnPromptContext",
    "attempt_prompt_context",
    "compact_window",
    "isolated_summariser",
    "turn_budget",
]

log = logging.getLogger("clawharness.compaction")

#: a span smaller than this (estimated tokens) is not worth a summary
MIN_SPAN_TOKENS = 64

#: `(system prompt, prompt, max reply tokens)` -> the summary the model wrote
Summarise = Callable[[str, str, int], Awaitable[str]]
#: stores a compaction's summary entry (the attempt's mirror, or a fenced append)
AppendSummary = Callable[["Raw"], Awaitable[int | None]]
#: a stored or prompt message as the pure rules (`clawharness.context`) take it
Raw = dict[str, Any]


def _raw(messages: Sequence[Message]) -> Sequence[Raw]:
    return cast("Sequence[Raw]", messages)


def _typed(messages: list[Raw]) -> list[Message]:
    return cast("list[Message]", messages)


def turn_budget(model: ResolvedModel, settings: CompactionConfig, *,
                system_prompt: str | None, tools: Sequence[Any]) -> ContextBudget | None:
    """The budget of a call to `model`, None when its context window is not configured."""
    window = model.context_window
    if not window:
        return None
    reserve = reply_reserve(window, reserve_tokens=settings.reserve_tokens,
                            reserve_floor=settings.reserve_tokens_floor,
                            max_tokens=model.max_tokens)
    return ContextBudget(window, reserve, _fixed_tokens(system_prompt, tools))


#: the fixed tokens of each tuple of tools (`ContextBudget.fixed_tokens`: a JSON text of
#: every tool's schema), by the tuple's identity, with the system prompt counted: an
#: agent's tools are one tuple of frozen `ToolSpec`s from turn to turn
#: (`AttemptRunner._tools`), so they are counted once, not at every attempt
_FIXED: dict[int, tuple[Sequence[Any], str | None, int]] = {}
_MAX_FIXED = 256


def _fixed_tokens(system_prompt: str | None, tools: Sequence[Any]) -> int:
    if type(tools) is not tuple:
        return ContextBudget.fixed_tokens(system_prompt, tools)
    known = _FIXED.get(id(tools))
    if known is not None and known[0] is tools and known[1] == system_prompt:
        return known[2]
    fixed = ContextBudget.fixed_tokens(system_prompt, tools)
    if len(_FIXED) >= _MAX_FIXED:
        _FIXED.clear()
    _FIXED[id(tools)] = (tools, system_prompt, fixed)
    return fixed


def isolated_summariser(harness: Any, model: ResolvedModel, auth: PreparedAuth, *,
                        agent_id: str, timeout: float) -> Summarise:
    """Summaries by `model` through the isolated completion of `harness` (the built-in
    runtime): no tools, no thread, the host's exact model and credential."""
    return _IsolatedSummariser(harness, model, auth, agent_id, timeout)


class _IsolatedSummariser:
    """`isolated_summariser`'s `Summarise` (an object, not a closure: one GC-tracked
    object a built-in attempt instead of a function, its closure tuple and five cells)."""

    __slots__ = ("agent_id", "auth", "harness", "model", "timeout")

    def __init__(self, harness: Any, model: ResolvedModel, auth: PreparedAuth,
                 agent_id: str, timeout: float) -> None:
        self.harness = harness
        self.model = model
        self.auth = auth
        self.agent_id = agent_id
        self.timeout = timeout

    async def __call__(self, system_prompt: str, prompt: str, max_tokens: int) -> str:
        model = self.model
        request = IsolatedCompletionRequest(
            provider=model.provider, model_id=model.model_id, system_prompt=system_prompt,
            prompt=prompt, agent_id=self.agent_id, max_tokens=max_tokens)
        result = await complete_isolated(self.harness, request,
                                          auth_attempts=[HostAuthorization(model, self.auth)],
                                          deadline=time.monotonic() + self.timeout)
        return result.text


@dataclass(frozen=True, slots=True)
class CompactionPlan:
    """What one compaction needs besides the messages. Without a budget (no configured
    context window) only an overflow or `/compact` compacts, sized on the context."""

    budget: ContextBudget | None
    settings: CompactionConfig
    rules: PruningRules
    summarise: Summarise

    def keep_tokens(self, total: int) -> int:
        """The newest history kept verbatim: `keepRecentTokens`, at most half the budget
        (without one, half of the `total` tokens of the context)."""
        half = (self.budget.history if self.budget is not None else total) // 2
        return max(1, min(self.settings.keep_recent_tokens, half))

    def summary_tokens(self, total: int) -> int:
        """The summary's reply cap: a quarter of the budget, between 256 and 2,048."""
        room = self.budget.history if self.budget is not None else total
        return max(256, min(2_048, room // 4))

    def span_chars(self, total: int) -> int:
        """Characters of conversation the summarising call may carry."""
        window = self.budget.context_window if self.budget is not None else total
        room = window - self.summary_tokens(total) - 512
        return max(2_000, room * CHARS_PER_TOKEN * 9 // 10)


#: makes a `CompactionPlan` as the class does, in fewer instructions (`clawharness._frozen`):
#: a built-in attempt makes one
_make_plan = quick_maker(CompactionPlan)


@dataclass(frozen=True, slots=True)
class _Summarised:
    context: list[Raw]
    summary: str
    cut: int
    tokens_before: int
    tokens_after: int


async def _summarise(plan: CompactionPlan, context: Sequence[Raw], counter: TokenCounter,
                     focus: str | None, keep_tokens: int) -> _Summarised | None:
    """Summarise the oldest span of `context`; None when there is none to summarise."""
    cut = select_cut(context, keep_tokens, counter)
    if cut is None or counter.messages(context[:cut]) < MIN_SPAN_TOKENS:
        return None
    before = counter.messages(context)
    system_prompt, prompt = summary_request(render_span(context[:cut], plan.span_chars(before)),
                                            focus)
    summary = (await plan.summarise(system_prompt, prompt, plan.summary_tokens(before))).strip()
    if not summary:
        return None
    shorter = [summary_prompt_message(summary), *context[cut:]]
    after = counter.messages(shorter)
    if after >= before:
        log.info("a summary of %d tokens saved nothing; not stored", after - before)
        return None
    return _Summarised(shorter, summary, cut, before, after)


class _PruneScan:
    """What the soft trim (`prune_tool_results`) needs of one context list that grows by
    appending (the loop's, from model call to model call): where its assistant messages
    are, and its long tool results with their trimmed copies. Each message is read once,
    when it is new, not again at every model call; a message in the list is not changed
    (as `_pruned`'s own memory assumes)."""

    __slots__ = ("assistants", "last", "long", "messages", "seen")

    def __init__(self, messages: Sequence[Raw]) -> None:
        self.messages = messages
        #: how many of the messages are read, and the last one read
        self.seen = 0
        self.last: Raw | None = None
        #: indices of the assistant messages
        self.assistants: list[int] = []
        #: (index, trimmed copy) of each tool result the soft trim would cut
        self.long: list[tuple[int, Raw]] = []

    def covers(self, messages: Sequence[Raw]) -> bool:
        """`messages` is the list read, grown (or not) since."""
        seen = self.seen
        return (self.messages is messages and seen <= len(messages)
                and (seen == 0 or messages[seen - 1] is self.last))

    def read(self, unprotected: PruningRules) -> None:
        """Read the messages appended since; `unprotected`: the rules with no message
        protected (the soft trim of one message as it would be trimmed when old)."""
        messages, start = self.messages, self.seen
        new = messages[start:]
        # (the soft trim itself, of the new messages at once, tells which tool results
        # are long: their trimmed copies)
        trimmed = prune_tool_results(new, unprotected)
        for index, (message, pruned) in enumerate(zip(new, trimmed, strict=True), start):
            if pruned is not message:
                self.long.append((index, pruned))
            elif message.get("role") == "assistant":
                self.assistants.append(index)
        self.seen = len(messages)
        if messages:
            self.last = messages[-1]

    def pruned(self, keep_last_assistants: int) -> list[Raw]:
        """`prune_tool_results` of the messages (read up to their end)."""
        out = list(self.messages)
        keep, assistants = keep_last_assistants, self.assistants
        # (as `prune_tool_results`: results before the keep-th newest assistant are cut)
        protected = (len(out) if keep <= 0 else assistants[-keep] if len(assistants) >= keep
                     else 0)
        for index, trimmed in self.long:
            if index >= protected:
                break
            out[index] = trimmed
        return out


@functools.lru_cache(maxsize=64)
def _unprotected(rules: PruningRules) -> PruningRules:
    """`rules` with no message protected (the soft trim of a message as it would be
    trimmed when old); made once per set of rules (an agent's, attempt after attempt),
    not by a `dataclasses.replace` per attempt."""
    return dataclasses.replace(rules, keep_last_assistants=0)


class TurnPromptContext:
    """The `PromptContext` of one built-in attempt (see the module docstring)."""

    def __init__(self, window: Sequence[Message], *, budget: ContextBudget | None,
                 rules: PruningRules, plan: CompactionPlan | None, append: AppendSummary,
                 on_compacted: Callable[[CompactionResult], object] | None = None,
                 session_key: str = "", window_limit: int | None = None,
                 counter: TokenCounter | None = None) -> None:
        """`window`: the stored messages the attempt's history was made of, oldest first;
        `window_limit`: the most entries a window holds (a turn reads the newest that
        many). A summary about to leave a full window is rolled into a new one, so a
        compacted session never loses its summary (`wants_compaction`). `counter`: the
        estimates to share (the turn runner's, across attempts); a new one by default."""
        history, origins = prompt_view(_raw(window))
        #: the window is (nearly: a turn may leave a few out) full and its summary is in
        #: its oldest quarter: compact now, before the summary leaves it (the window is
        #: looked through for its summary only when it is that full and has one: the
        #: history then starts with it, from no place in the window)
        self._retain = (window_limit is not None and len(window) >= window_limit * 3 // 4
                        and origins[:1] == [-1]
                        and (summary_at := next((i for i in range(len(window) - 1, -1, -1)
                                                 if window[i].get("role") == SUMMARY_ROLE),
                                                None)) is not None
                        and summary_at < window_limit // 4)
        #: the history the attempt starts from (a summary, the entries it kept, the rest)
        self.history = _typed(history)
        self._window_len = len(window)
        #: the history's messages as made, and each one's index in the window (-1: none),
        #: for a compaction's count of kept entries (`_kept_entries`): not made into a
        #: lookup per attempt, as most attempts do not compact
        self._origins = (tuple(history), origins)
        self._budget = budget
        self._rules = rules
        self._plan = plan
        self._append = append
        self._on_compacted = on_compacted
        self._session_key = session_key
        self._counter = counter if counter is not None else TokenCounter()
        self._last: tuple[Sequence[Message], int, list[Raw], int] | None = None
        self._scan: _PruneScan | None = None
        self._unprotected = _unprotected(rules)
        #: the compactions of this attempt
        self.results: list[CompactionResult] = []

    def _pruned(self, context: Sequence[Message]) -> tuple[list[Raw], int]:
        """The context pruned, and its tokens (0, uncounted, with no budget to weigh them
        against); remembered for the same list at the same length (the loop asks
        `wants_compaction`, then `shape`, of one context)."""
        last = self._last
        if last is not None and last[0] is context and last[1] == len(context):
            return last[2], last[3]
        pruned = self._soft_trimmed(_raw(context))
        total = 0 if self._budget is None else self._counter.messages(pruned)
        self._last = (context, len(context), pruned, total)
        return pruned, total

    def _soft_trimmed(self, context: Sequence[Raw]) -> list[Raw]:
        """`prune_tool_results(context, rules)`, from what is known of the list so far
        (the loop's context grows by a few messages a model call; reading it whole at
        each call cost a walk of the history per call)."""
        if not self._rules.enabled:
            return list(context)
        scan = self._scan
        if scan is None or not scan.covers(context):
            scan = self._scan = _PruneScan(context)
        scan.read(self._unprotected)
        return scan.pruned(self._rules.keep_last_assistants)

    def shape(self, context: Sequence[Message]) -> list[Message]:
        pruned, total = self._pruned(context)
        if self._budget is None or total <= self._budget.history:
            return _typed(pruned)
        return _typed(fit_to_budget(pruned, self._budget.history, self._counter, self._rules))

    def wants_compaction(self, context: Sequence[Message]) -> bool:
        if self._plan is None or not self._plan.settings.enabled:
            return False
        if self._retain:
            return True
        if self._budget is None:
            return False
        return self._pruned(context)[1] > self._budget.history

    def _kept_entries(self, first_kept: Raw, settled: Sequence[Message]) -> int | None:
        """Stored entries from `first_kept` up to now (None: it was never stored)."""
        for index in range(len(settled) - 1, -1, -1):
            if settled[index] is first_kept:
                return len(settled) - index
        viewed, origins = self._origins
        # (the last of the history's places holding it, as a lookup by identity made of
        # the history in order would keep)
        origin = next((origins[i] for i in range(len(viewed) - 1, -1, -1)
                       if viewed[i] is first_kept and origins[i] >= 0), None)
        if origin is None:
            return None
        return self._window_len - origin + len(settled)

    async def compact(self, context: Sequence[Message], settled: Sequence[Message], *,
                      overflow: bool = False, focus: str | None = None,
                      manual: bool = False) -> list[Message] | None:
        """`manual`: asked for (`/compact`): keeps at most a quarter of the context, and
        a failure of the summarising call is raised rather than logged."""
        plan = self._plan
        if plan is None or (not plan.settings.enabled and not (overflow or manual)):
            return None
        started = time.perf_counter()
        total = self._counter.messages(context)
        keep = plan.keep_tokens(total)
        if manual:
            keep = max(1, min(keep, total // 4))
        try:
            done = await _summarise(plan, _raw(context), self._counter, focus, keep)
        except Exception as exc:  # the budget still holds: `shape` trims what is left
            if manual:
                raise
            log.warning("compaction of %s failed: %s", self._session_key, exc)
            return None
        if done is None:
            return None
        kept = self._kept_entries(_raw(context)[done.cut], settled)
        if kept is None:
            return None
        seq = await self._append(summary_entry(done.summary, kept_entries=kept,
                                               tokens_before=done.tokens_before, focus=focus))
        result = CompactionResult(
            self._session_key, True,
            reason="manual" if manual else "overflow" if overflow else "threshold",
            summary=done.summary, summarised_entries=self._window_len + len(settled) - kept,
            kept_entries=kept, tokens_before=done.tokens_before, tokens_after=done.tokens_after,
            seq=seq, duration_ms=(time.perf_counter() - started) * 1000)
        self.results.append(result)
        self._retain = False
        if self._on_compacted is not None:
            self._on_compacted(result)
        return _typed(done.context)


async def compact_window(window: Sequence[Raw], plan: CompactionPlan, append: AppendSummary,
                         *, session_key: str, focus: str | None = None) -> CompactionResult:
    """Compact a session outside a turn (`/compact`): its stored window's oldest span
    summarised, whatever the budget says."""
    started = time.perf_counter()
    context = TurnPromptContext(cast("Sequence[Message]", window), budget=plan.budget, rules=plan.rules, plan=plan,
                                append=append, session_key=session_key)
    if not context.history:
        return CompactionResult(session_key, False, reason="the session has no history")
    shorter = await context.compact(context.history, (), focus=focus, manual=True)
    if shorter is None or not context.results:
        return CompactionResult(session_key, False,
                                reason="nothing worth summarising: the history is too short "
                                       "(or the summary was no shorter)",
                                duration_ms=(time.perf_counter() - started) * 1000)
    return context.results[-1]


def attempt_prompt_context(window: Sequence[Raw], *, compaction: CompactionConfig,
                           rules: PruningRules, model: ResolvedModel, auth: PreparedAuth,
                           harness: Any, agent_id: str, session_key: str, run_id: str,
                           system_prompt: str | None, tools: Sequence[Any],
                           mirror: Any, window_limit: int | None = None,
                           counter: TokenCounter | None = None) -> TurnPromptContext:
    """The prompt context of one built-in attempt: its summaries are stored through the
    attempt's own `mirror` (a `TranscriptMirror`), behind the messages already queued."""
    budget = turn_budget(model, compaction, system_prompt=system_prompt, tools=tools)
    plan = _make_plan(
        budget, compaction, rules,
        isolated_summariser(harness, model, auth, agent_id=agent_id,
                            timeout=compaction.timeout_seconds))
    return TurnPromptContext(cast("Sequence[Message]", window), budget=budget, rules=rules,
                             plan=plan, append=_MirroredSummaries(mirror, run_id),
                             session_key=session_key, window_limit=window_limit,
                             counter=counter)


class _MirroredSummaries:
    """`attempt_prompt_context`'s `AppendSummary`: a summary entry through the attempt's
    mirror, keyed by the run and the attempt's count of summaries (an object, not a
    closure: one GC-tracked object a built-in attempt instead of five)."""

    __slots__ = ("count", "mirror", "run_id")

    def __init__(self, mirror: Any, run_id: str) -> None:
        self.mirror = mirror
        self.run_id = run_id
        self.count = 0

    async def __call__(self, message: Raw) -> int | None:
        self.count += 1
        mirror = self.mirror
        await mirror([keyed(message, f"{self.run_id}:compaction:{self.count}")])
        await mirror.flush()
        appended = mirror.appended
        return appended[-1].entry.seq if appended else None
