"""Projecting a full attempt into a settled-turn finalization result.

A harness that runs the finalization through its full attempt engine gets that
engine's whole result back. `project_settled_turn_finalization_attempt_result` turns
the facts of that attempt (`FinalizationAttemptFacts`) into the narrow result the
contract allows (`finalize_result`), rejecting failures and capability activity first:
the finalizer runs with tools disabled, so anything it did besides answering is a
contract break.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from clawharness._json import JsonObject, JsonValue
from clawharness.attempt.finalize_result import (
    SettledTurnFinalizationRejectedError,
    SettledTurnFinalizationResult,
    parse_settled_turn_finalization_result,
)
from clawharness.attempt.terminal import (
    LegacyTerminalFlags,
    Terminal,
    normalize_attempt_terminal,
)

__all__ = [
    "FinalizationAttemptFacts",
    "FinalizationToolMeta",
    "ItemLifecycle",
    "ReplayMetadata",
    "project_settled_turn_finalization_attempt_result",
]


@dataclass(frozen=True, slots=True)
class FinalizationToolMeta:
    """One tool call the finalization attempt made (it should have made none)."""

    is_error: bool = False
    async_started: bool = False
    terminate: bool = False
    code_mode_suspended: bool = False


@dataclass(frozen=True, slots=True)
class ItemLifecycle:
    """How many tool items started, completed and are still running."""

    started_count: float | None = None
    completed_count: float | None = None
    active_count: float | None = None


@dataclass(frozen=True, slots=True)
class ReplayMetadata:
    """Whether the attempt may be replayed, and whether it may have had side effects."""

    had_potential_side_effects: bool = False
    replay_safe: bool = False


@dataclass(frozen=True, slots=True)
class FinalizationAttemptFacts:
    """What a harness's full attempt engine reports about the finalization attempt."""

    #: the attempt's terminal; None when the engine reported only the legacy flags
    terminal: Terminal | None = None
    legacy_flags: LegacyTerminalFlags = field(default_factory=LegacyTerminalFlags)
    compaction_count: float = 0
    #: failure reports: the prompt timed out, preflight recovered, a before-finalize hook
    #: asked for a revision, the Codex app server failed, Cloud Code Assist rejected the
    #: request format
    prompt_timeout_outcome: bool = False
    preflight_recovery: bool = False
    before_agent_finalize_revision: bool = False
    codex_app_server_failure: bool = False
    cloud_code_assist_format_error: bool = False
    tool_metas: tuple[FinalizationToolMeta, ...] = ()
    item_lifecycle: ItemLifecycle = field(default_factory=ItemLifecycle)
    #: None: the attempt reported no replay facts, so it is not known to be replay-safe
    replay_metadata: ReplayMetadata | None = None
    current_attempt_replay_metadata: ReplayMetadata | None = None
    #: whether the last tool error's execution started (None: not reported); the field
    #: is None when there was no tool error
    last_tool_error_execution_started: bool | None = None
    had_last_tool_error: bool = False
    #: capability activity reported as flags
    did_send_via_messaging_tool: bool = False
    did_deliver_source_reply_via_message_tool: bool = False
    did_send_deterministic_approval_prompt: bool = False
    heartbeat_tool_response: bool = False
    tool_audio_as_voice: bool = False
    tool_trusted_local_media: bool = False
    has_tool_media_block_reply: bool = False
    yield_detected: bool = False
    #: capability activity reported as lists
    client_tool_calls: tuple[JsonValue, ...] = ()
    accepted_session_spawns: tuple[JsonValue, ...] = ()
    messaging_tool_sent_texts: tuple[JsonValue, ...] = ()
    messaging_tool_sent_media_urls: tuple[JsonValue, ...] = ()
    messaging_tool_sent_targets: tuple[JsonValue, ...] = ()
    messaging_tool_source_reply_payloads: tuple[JsonValue, ...] = ()
    tool_media_urls: tuple[JsonValue, ...] = ()
    host_owned_tool_media_urls: tuple[JsonValue, ...] = ()
    successful_cron_adds: float = 0
    #: the assistant message this attempt completed; None when there was none
    completed_assistant: JsonValue = None
    attempt_usage: JsonValue = None
    assistant_transcript_owned: bool = False
    assistant_transcript_idempotency_key: JsonValue = None
    #: None when the engine did not say which message carried the answer
    last_assistant_text_message_index: JsonValue = None
    has_last_assistant_text_message_index: bool = False
    diagnostic_trace: JsonValue = None


def _positive(count: float | None) -> bool:
    return count is not None and count > 0


def _only_rejected_tool_calls(attempt: FinalizationAttemptFacts) -> bool:
    # The finalizer runs with tools disabled, so a call it makes is rejected before it runs.
    # Calls that all failed without starting, and left nothing running, did no work.
    lifecycle = attempt.item_lifecycle
    return (
        len(attempt.tool_metas) > 0
        and all(
            tool.is_error and not tool.async_started and not tool.terminate
            and not tool.code_mode_suspended
            for tool in attempt.tool_metas
        )
        and attempt.last_tool_error_execution_started is False
        and lifecycle.active_count == 0
        and lifecycle.completed_count == lifecycle.started_count
    )


def _has_capability_activity(attempt: FinalizationAttemptFacts) -> bool:
    lifecycle = attempt.item_lifecycle
    current_replay = attempt.current_attempt_replay_metadata
    tool_evidence = (
        len(attempt.tool_metas) > 0
        or _positive(lifecycle.started_count)
        or _positive(lifecycle.completed_count)
        or _positive(lifecycle.active_count)
        or (current_replay is not None
            and (current_replay.had_potential_side_effects or not current_replay.replay_safe))
        or attempt.had_last_tool_error
    )
    if tool_evidence and not _only_rejected_tool_calls(attempt):
        return True
    replay = attempt.replay_metadata
    flags = (
        attempt.did_send_via_messaging_tool,
        attempt.did_deliver_source_reply_via_message_tool,
        attempt.did_send_deterministic_approval_prompt,
        attempt.heartbeat_tool_response,
        attempt.tool_audio_as_voice,
        attempt.tool_trusted_local_media,
        attempt.has_tool_media_block_reply,
        attempt.yield_detected,
    )
    lists = (
        attempt.client_tool_calls,
        attempt.accepted_session_spawns,
        attempt.messaging_tool_sent_texts,
        attempt.messaging_tool_sent_media_urls,
        attempt.messaging_tool_sent_targets,
        attempt.messaging_tool_source_reply_payloads,
        attempt.tool_media_urls,
        attempt.host_owned_tool_media_urls,
    )
    return (
        replay is None
        or replay.had_potential_side_effects
        or not replay.replay_safe
        or any(len(items) > 0 for items in lists)
        or any(flags)
        or attempt.successful_cron_adds > 0
    )


def project_settled_turn_finalization_attempt_result(
    attempt: FinalizationAttemptFacts,
) -> SettledTurnFinalizationResult:
    """Narrow a full attempt into a finalization result, or raise why it cannot be."""
    terminal = (attempt.terminal if attempt.terminal is not None
                else normalize_attempt_terminal(attempt.legacy_flags))
    failed = (
        attempt.prompt_timeout_outcome
        or attempt.preflight_recovery
        or attempt.before_agent_finalize_revision
        or attempt.codex_app_server_failure
        or attempt.cloud_code_assist_format_error
    )
    if terminal.kind != "ok" or attempt.compaction_count > 0 or failed:
        raise SettledTurnFinalizationRejectedError(
            "Settled-turn finalization attempt did not complete successfully"
        )
    if _has_capability_activity(attempt):
        raise SettledTurnFinalizationRejectedError(
            "Settled-turn finalization attempt reported capability activity"
        )
    if attempt.completed_assistant is None:
        raise SettledTurnFinalizationRejectedError(
            "Settled-turn finalization attempt returned no completed assistant message"
        )
    projected: JsonObject = {"assistant": attempt.completed_assistant}
    if attempt.attempt_usage is not None:
        projected["usage"] = attempt.attempt_usage
    if attempt.assistant_transcript_owned:
        projected["assistantTranscriptOwned"] = True
        if attempt.assistant_transcript_idempotency_key is not None:
            projected["assistantTranscriptIdempotencyKey"] = (
                attempt.assistant_transcript_idempotency_key)
    elif attempt.has_last_assistant_text_message_index:
        projected["assistantMessageIndex"] = attempt.last_assistant_text_message_index
    if attempt.diagnostic_trace is not None:
        projected["diagnosticTrace"] = attempt.diagnostic_trace
    return parse_settled_turn_finalization_result(projected)
