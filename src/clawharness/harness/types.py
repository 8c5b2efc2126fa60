"""The harness contract: what the host hands a harness, and what it hands back.

Records are frozen dataclasses; the harness itself is a structural `typing.Protocol`
(a plugin need not import a base class). Transcript messages keep the original's wire
shape (plain dicts with camelCase keys, typed as `Message`), so a session can switch
between runtimes and keep its history.

The transcript contract (which result fields become transcript rows):

- The host stores the turn's user prompt and then `AttemptResult.messages_snapshot`, in
  order, unless the harness mirrored the transcript itself (`params.mirror`, then
  `transcript_mirrored=True`; the host stores nothing more).
- `assistant_texts` and `last_assistant` are *reply* fields (what is delivered); they
  are never stored on their own. A result whose `assistant_texts` carry text that no
  assistant message of `messages_snapshot` holds is refused by the host's result
  validation (`AttemptResultRejectedError`, field `messagesSnapshot`), because the reply
  would be missing from the transcript. `AttemptResult.reply(...)` builds a result
  that satisfies this.

Seed-name to Python-name table: docs/seed-names.md.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from clawharness._frozen import quick_maker
from clawharness._json import JsonValue
from clawharness.harness.capabilities import HostCapabilities
from clawharness.harness.mcp_servers import McpServerLaunch
from clawharness.harness.messages import Message, assistant_message
from clawharness.harness.tool_loops import ToolLoopGuard
from clawharness.harness.tool_spec import (
    ToolCallContext,
    ToolExecute,
    ToolOutcomes,
    ToolResult,
    ToolSpec,
)
from clawharness.records.terminal_kind import TerminalKind
from clawharness.records.tool_calls import ToolCallMeta
from clawharness.records.usage import Usage, normalize_usage
from clawharness.runtime_plan import AgentRuntimePlan

__all__ = [
    "AgentEvent",
    "AgentHarness",
    "AttemptParams",
    "AttemptResult",
    "AttemptTerminal",
    "AuthFacts",
    "CompactParams",
    "EventSink",
    "Message",
    "Mirror",
    "MirrorBarrier",
    "ModelProviderFacts",
    "ObserveToolTerminal",
    "PartialReply",
    "PreparedAuth",
    "PromptContext",
    "RequestUserInput",
    "ResolvedModel",
    "ReturnSteering",
    "RuntimeArtifact",
    "RuntimePolicyFact",
    "SpendCheck",
    "SupportContext",
    "SupportResult",
    "Supported",
    "TakeSteering",
    "TerminalKind",
    "ToolCallContext",
    "ToolCallMeta",
    "ToolExecute",
    "ToolResult",
    "ToolSpec",
    "TransformToolResult",
    "Unsupported",
    "Usage",
    "make_attempt_params",
]


# --- route facts for supports(ctx) -------------------------------------------------


@dataclass(frozen=True, slots=True)
class RuntimePolicyFact:
    """`runtimePolicy.compatibleIds`: runtimes the provider declares for this route."""

    compatible_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class AuthFacts:
    """`preparedAuth`: how credentials for the route were prepared (secret-free)."""

    source: Literal["profile", "direct", "harness", "none"]
    mode: str | None = None
    requirement: str | None = None


@dataclass(frozen=True, slots=True)
class ModelProviderFacts:
    """The resolved route a harness is asked to reproduce. Secret-free."""

    api: str | None = None
    base_url: str | None = None
    request_transport_overrides: Literal["none", "present"] = "none"
    #: None means undeclared, which is never permission
    runtime_policy: RuntimePolicyFact | None = None
    prepared_auth: AuthFacts | None = None


@dataclass(frozen=True, slots=True)
class SupportContext:
    """What `supports(ctx)` sees."""

    provider: str
    model_id: str | None
    requested_runtime: str = "auto"
    model_provider: ModelProviderFacts | None = None
    provider_owner_status: Literal["unowned", "owned", "ambiguous"] | None = None
    provider_owner_plugin_ids: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Supported:
    priority: int = 0
    reason: str | None = None
    supported: Literal[True] = True


@dataclass(frozen=True, slots=True)
class Unsupported:
    reason: str | None = None
    #: only "openclaw": the built-in runtime can reproduce the exact request losslessly
    fallback_runtime: Literal["openclaw"] | None = None
    supported: Literal[False] = False


SupportResult = Supported | Unsupported


# --- the prepared attempt -------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ResolvedModel:
    """The exact transport model the host resolved (the built-in runtime uses it)."""

    provider: str
    model_id: str
    api: str | None = None
    base_url: str | None = None
    context_window: int | None = None
    max_tokens: int | None = None
    headers: Mapping[str, str] = field(default_factory=dict)
    params: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class PreparedAuth:
    """Credentials prepared for one attempt. `api_key` never reaches transcripts or logs."""

    source: Literal["profile", "direct", "harness", "none"] = "none"
    api_key: str | None = field(default=None, repr=False)
    profile_id: str | None = None

    def facts(self) -> AuthFacts:
        return AuthFacts(source=self.source)


@dataclass(frozen=True, slots=True)
class RuntimeArtifact:
    """`{id, fingerprint}` attesting the exact native implementation that ran."""

    id: str
    fingerprint: str


@dataclass(frozen=True, slots=True)
class AgentEvent:
    """A streamed agent event: `stream` is lifecycle | assistant | tool | usage | ..."""

    stream: str
    data: Mapping[str, JsonValue]


#: `on_partial_reply(text)`: the assistant message so far (whole, not a delta), streamed
#: to the user as it grows; a later message of the turn starts over from its first
#: characters (docs/writing-a-harness.md, "Streaming the reply")
PartialReply = Callable[[str], Awaitable[None] | None]
#: `on_agent_event(event)`: lifecycle / assistant / tool / usage / warning events
EventSink = Callable[[AgentEvent], Awaitable[None] | None]
#: `observe_tool_terminal(observation) -> resolution`: report each tool's one terminal
#: outcome (JSON keys `toolCallId`, `toolName`, `arguments`, `executionStarted`,
#: `outcome`, `result`, `failure`, `nativeMutation`); the resolution carries
#: `lastToolError` for the attempt result
ObserveToolTerminal = Callable[[Mapping[str, object]], Mapping[str, object]]
#: tool-result middleware bound by the host: `(tool, call id, args, result, is_error)` ->
#: the result the model sees (the observer still gets the original)
TransformToolResult = Callable[[str, str, dict[str, Any], ToolResult, bool],
                               Awaitable[ToolResult]]
#: ask the user through the host's blocking reply path: `(questions, timeout_seconds)`
#: -> `{"answers": {question_id: {"answers": [...]}}}`; empty answers when no one replies
RequestUserInput = Callable[[Sequence[Mapping[str, Any]], Any], Awaitable[Mapping[str, Any]]]
#: queue messages for the transcript, in order, behind the attempt
Mirror = Callable[[Sequence[Message]], Awaitable[object]]
#: wait until every mirrored message is stored (raises if one could not be)
MirrorBarrier = Callable[[], Awaitable[None]]
#: `await take_steering()`: the user messages steered into the running turn since the
#: last call, in arrival order (each taken once: the harness then owns it); some may come
#: from another process sharing the store
TakeSteering = Callable[[], Awaitable[Sequence[str]]]
#: `await return_steering(messages)`: the last messages `take_steering` gave, which the
#: harness could not deliver (its runtime refused them): they run as the next turn instead
ReturnSteering = Callable[[Sequence[str]], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class CompactParams:
    """What a harness's optional `compact(params)` receives: compact the native session
    bound to this host session now (`/compact [focus]`); it answers `{ok, compacted,
    reason?, failure?}` (docs/compaction.md)."""

    agent_id: str
    session_key: str
    session_id: str
    #: what the summary should keep above all (`/compact FOCUS`), None when not said
    focus: str | None = None


class PromptContext(Protocol):
    """The host's hold on what a built-in attempt sends the model: its token budget,
    pruning and compaction (`clawharness.attempt.compaction`, docs/compaction.md)."""

    def shape(self, context: Sequence[Message]) -> list[Message]:
        """The messages of the next model call: old tool results pruned, the whole
        within the budget (a new list; the context itself is not changed)."""
        ...

    def wants_compaction(self, context: Sequence[Message]) -> bool:
        """Whether the next model call would exceed the budget before any trimming."""
        ...

    async def compact(self, context: Sequence[Message], settled: Sequence[Message], *,
                      overflow: bool = False) -> list[Message] | None:
        """The context with its oldest span summarised by the model (the summary is
        stored); None when nothing could be compacted. `settled`: the messages this
        attempt has mirrored so far, in order."""
        ...


class SpendCheck(Protocol):
    """The host's hold on a built-in attempt's spend (`budgets`, docs/budgets.md): asked
    before each model call after the first, it holds more of the turn's budgets when
    what the turn spent so far and its next call need more than it reserved."""

    async def before_model_call(self, spent: Usage,
                                context: Sequence[Message]) -> AttemptTerminal | None:
        """None: the call may go. Else the terminal the attempt ends with, before the
        call: a budget has no room for it (`details["type"]` `budget_exceeded`, the
        budget, and the config key that raises it). `spent`: the attempt's usage so far;
        `context`: the messages of the next call."""
        ...


@dataclass(frozen=True, slots=True)
class AttemptParams:
    """One prepared attempt (`AgentHarnessAttemptParamsV2`). Host-owned and frozen; a
    test builds one with `clawharness.plugin_sdk.testing.attempt_params(...)`."""

    run_id: str
    session_key: str
    session_id: str
    agent_id: str
    prompt: str
    provider: str
    model_id: str
    model: ResolvedModel
    workspace_dir: str
    host_capabilities: HostCapabilities
    #: the host-owned policy bundle (`AgentRuntimePlan`); read it, never mutate it
    runtime_plan: AgentRuntimePlan
    system_prompt: str | None = None
    images: Sequence[Mapping[str, JsonValue]] = ()
    tools: Sequence[ToolSpec] = ()
    #: the configured MCP servers (`mcp.servers`, secrets resolved) a native runtime
    #: should start itself; empty for the built-in runtime, whose `tools` hold them
    mcp_servers: Sequence[McpServerLaunch] = ()
    #: prior transcript messages of this session (the built-in runtime's context)
    history: Sequence[Message] = ()
    auth: PreparedAuth = field(default_factory=PreparedAuth)
    abort: asyncio.Event = field(default_factory=asyncio.Event)
    deadline: float | None = None
    max_steps: int = 24
    on_partial_reply: PartialReply | None = None
    on_agent_event: EventSink | None = None
    observe_tool_terminal: ObserveToolTerminal | None = None
    tools_allow: Sequence[str] | None = None
    plugin_harness_tool_policy_restricted: bool = False
    plugin_harness_tool_policy_safe_denied_tools: Sequence[str] = ()
    capture_runtime_artifact: bool = False
    expected_runtime_artifact: RuntimeArtifact | None = None
    continuation: Mapping[str, JsonValue] | None = None
    skill_workshop_proposal_only: bool = False
    operation: Literal["attempt", "settled-tool-finalization"] = "attempt"
    agent_harness_id: str | None = None
    thinking_level: str | None = None
    #: the plugin's own config block (`plugins.entries.<id>.config`)
    plugin_config: Mapping[str, JsonValue] = field(default_factory=dict)
    state_dir: str | None = None
    #: tool-result middleware for this runtime (None when none applies)
    transform_tool_result: TransformToolResult | None = None
    #: ask the user (None when the front cannot)
    request_user_input: RequestUserInput | None = None
    #: append mirrored messages to the transcript as they settle (queued: the host writes
    #: them behind the attempt, in order; a mirrored message is not changed afterwards).
    #: A harness that mirrors returns `transcript_mirrored=True`.
    mirror: Mirror | None = None
    #: wait until every mirrored message is stored (raises if one could not be); await
    #: it before a step with effects outside the host, e.g. a tool that may change state
    mirror_barrier: MirrorBarrier | None = None
    #: tool calls exactly once across retries of this run (a turn run by a cluster
    #: worker): `begin` each call before running it, `commit` its outcome before the
    #: model sees it (see `ToolOutcomeLedger`); None when the turn is never retried
    tool_outcomes: ToolOutcomes | None = None
    #: the attempt's tool-loop detection (`clawharness.harness.tool_loops`), fed every
    #: settled call by the SDK's tool-call routine; None when it is off
    tool_loops: ToolLoopGuard | None = None
    #: messages the user sent while this turn runs, to steer it (docs/steering.md): a
    #: harness that can take them calls it at each tool boundary (after a round of tool
    #: results, before the next model call) and appends and mirrors every message it
    #: returns as a user message; what it never takes runs as the next turn. None when
    #: nothing can steer the turn
    take_steering: TakeSteering | None = None
    #: the prompt's budget, pruning and compaction (None: the history is sent as it is)
    prompt_context: PromptContext | None = None
    #: hand back taken messages the runtime refused (see `ReturnSteering`)
    return_steering: ReturnSteering | None = None
    #: the turn's budgets, checked before each model call after the first (None: no
    #: budget applies, or the runtime is not the built-in one)
    spend_check: SpendCheck | None = None
    #: the streams `on_agent_event` reads (None: every stream); a harness may skip
    #: building the events of the others (the host's own record reads `tool`, `usage`
    #: and `lifecycle`, so with no front listening a reply's text deltas go unbuilt)
    agent_event_streams: frozenset[str] | None = None


#: makes an `AttemptParams` as `AttemptParams(...)` does, in about a third of the
#: instructions (29k, not 87k: the host makes one per attempt; `clawharness._frozen`)
make_attempt_params = quick_maker(AttemptParams)


@dataclass(frozen=True, slots=True)
class AttemptTerminal:
    """How an attempt ended (`terminal`)."""

    kind: TerminalKind
    source: str | None = None
    error: str | None = None
    phase: str | None = None
    #: what the host can tell the user about a failure besides `error`, JSON-keyed:
    #: `type` (a stable code such as "provider_unreachable"), `provider`, `model`, `url`,
    #: `status`, `rule`, `hint` (what to do); see `ProviderError`
    details: Mapping[str, JsonValue] | None = field(default=None, compare=False, hash=False)

    @staticmethod
    def ok() -> AttemptTerminal:
        return AttemptTerminal("ok")


@dataclass(slots=True)
class AttemptResult:
    """What a harness hands back (`AgentHarnessAttemptResult`, main fields).

    Transcript: `messages_snapshot` (stored after the user prompt unless
    `transcript_mirrored`). Reply: `assistant_texts` (the last one is the turn's text)
    and `last_assistant`; every reply text must also be in an assistant message of
    `messages_snapshot` (or of what the harness mirrored). See the module docstring.
    """

    terminal: AttemptTerminal
    session_id_used: str
    #: the attempt's new transcript messages, in order (assistant, tool results, ...)
    messages_snapshot: list[Message] = field(default_factory=list)
    #: the reply texts, in order; each must also be in `messages_snapshot`
    assistant_texts: list[str] = field(default_factory=list)
    last_assistant: Message | None = None
    #: each tool call the attempt made, in order (a plugin may still report the
    #: original's `toolMetas` dicts: the host's result validation reads them)
    tool_metas: list[ToolCallMeta] = field(default_factory=list)
    last_tool_error: dict[str, JsonValue] | None = None
    accepted_session_spawns: list[dict[str, JsonValue]] = field(default_factory=list)
    client_tool_calls: list[dict[str, JsonValue]] | None = None
    did_send_via_messaging_tool: bool = False
    messaging_tool_sent_texts: list[str] = field(default_factory=list)
    messaging_tool_sent_media_urls: list[str] = field(default_factory=list)
    messaging_tool_sent_targets: list[dict[str, JsonValue]] = field(default_factory=list)
    tool_media_urls: list[str] = field(default_factory=list)
    host_owned_tool_media_urls: list[str] = field(default_factory=list)
    #: the attempt's token totals: a `Usage`, or the original's open record of token
    #: counts in any spelling (`{"input", "output", "cacheRead", "totalTokens"}`, ...);
    #: the host's result validation makes it a `Usage`, and `usage` reads it as one
    attempt_usage: Usage | Mapping[str, JsonValue] | None = None
    agent_harness_id: str | None = None
    agent_harness_result_classification: str | None = None
    runtime_artifact: RuntimeArtifact | None = None
    #: `{source: "openclaw-transcript"|"harness"|"unavailable", ...}`
    settled_turn_finalization_context: dict[str, JsonValue] | None = None
    #: messages the harness already mirrored into the transcript itself
    transcript_mirrored: bool = False
    #: user-visible warnings about this attempt (e.g. its native session was gone and a
    #: new one started); the host passes them on in the turn's result
    warnings: list[str] = field(default_factory=list)
    #: anything else a harness reports (e.g. `nativeSessionId`); the host reads what it
    #: knows and checks each value's type
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def usage(self) -> Usage | None:
        """The token totals as a `Usage` (a reported record read with `normalize_usage`)."""
        usage = self.attempt_usage
        if usage is None or isinstance(usage, Usage):
            return usage
        return normalize_usage(dict(usage))

    @classmethod
    def reply(cls, session_id_used: str, text: str, *, agent_harness_id: str | None = None,
              attempt_usage: Usage | Mapping[str, JsonValue] | None = None,
              stop_reason: str = "stop",
              provider: str | None = None, model: str | None = None) -> AttemptResult:
        """A finished attempt that answered `text`: one assistant message in the
        transcript and the same text as the reply."""
        message = assistant_message(text, stop_reason=stop_reason, provider=provider,
                                    model=model)
        return cls(AttemptTerminal.ok(), session_id_used, messages_snapshot=[message],
                   assistant_texts=[text], last_assistant=message,
                   agent_harness_id=agent_harness_id, attempt_usage=attempt_usage)


# --- the harness ----------------------------------------------------------------------


@runtime_checkable
class AgentHarness(Protocol):
    """`AgentHarnessV2`: the registration object of a harness.

    Required: `id`, `label`, `supports`, `run_attempt`. Optional capabilities are plain
    attributes read with `getattr` (see `clawharness.harness.capabilities_of`):
    `auth_bootstrap` ("harness"), `auto_selection` ({"providerIds": [...]}),
    `conversation_tool_policy_support` ("exact"), `conversation_tool_policy_safe_deny_tools`,
    `delivery_defaults`, `delegated_execution_plugin_ids`, `runtime_artifact` (an object
    with `validate(artifact) -> bool`), `classify`, `compact`, `reset`,
    `with_session_deletion`, `with_session_context_reset`, `finalize_settled_turn`,
    `run_isolated_completion_v2`, `load_mcp_tool_catalog`, `dispose`, and the portable
    sessions `adopt_native_session` / `handoff_native_session`
    (`clawharness.harness.portable`).
    """

    id: str
    label: str

    def supports(self, ctx: SupportContext) -> SupportResult: ...

    async def run_attempt(self, params: AttemptParams) -> AttemptResult: ...

