"""`projectSettledTurnFinalizationAttemptResult` at the conformance boundary.

Decodes a JavaScript attempt result into `FinalizationAttemptFacts` with the original's
coercions (a flag read with truthiness, a count as `value ?? 0` compared with `>`), and
turns the core's result and errors back into the original's shapes: the rejection is a
plain `Error`, the empty answer an `EmptySettledTurnFinalizationError` with the narrow
result as its `result` field.
"""

from __future__ import annotations

from typing import Any

from clawharness.attempt.finalize_projection import (
    FinalizationAttemptFacts,
    FinalizationToolMeta,
    ItemLifecycle,
    ReplayMetadata,
    project_settled_turn_finalization_attempt_result,
)
from clawharness.attempt.finalize_result import (
    EmptySettledTurnFinalizationError,
    SettledTurnFinalizationRejectedError,
    SettledTurnFinalizationResult,
)
from clawharness.attempt.terminal import Terminal
from clawharness.conformance.js_terminal import decode_legacy_flags, decode_terminal
from clawharness.conformance.jsrules import (
    get,
    is_js_number,
    is_nullish,
    is_true,
    js_string,
    js_trim,
    js_truthy,
    to_json,
)
from clawharness.conformance.jsvalue import UNDEFINED, JsError

__all__ = ["encode_finalization_result", "project_finalization"]


def _count(value: Any) -> float:
    """`value ?? 0` as a JavaScript `>` comparison coerces it (NaN when not a number)."""
    if is_nullish(value) or value is False:
        return 0
    if value is True:
        return 1
    if is_js_number(value):
        return float(value)
    if isinstance(value, str):
        try:
            return float(js_trim(value) or "0")
        except ValueError:
            return float("nan")
    return float("nan")


def _optional_count(value: Any) -> float | None:
    return None if is_nullish(value) else _count(value)


def _items(value: Any) -> tuple[Any, ...]:
    """The entries of a list field; a non-empty string counts like a non-empty list."""
    if isinstance(value, list):
        return tuple(to_json(value))
    if isinstance(value, str) and value:
        return (value,)
    return ()


def _replay(value: Any) -> ReplayMetadata:
    return ReplayMetadata(
        had_potential_side_effects=js_truthy(get(value, "hadPotentialSideEffects")),
        replay_safe=js_truthy(get(value, "replaySafe")),
    )


def _tool_metas(value: Any) -> tuple[FinalizationToolMeta, ...]:
    return tuple(
        FinalizationToolMeta(
            is_error=is_true(get(tool, "isError")),
            async_started=is_true(get(tool, "asyncStarted")),
            terminate=is_true(get(tool, "terminate")),
            code_mode_suspended=is_true(get(tool, "codeModeSuspended")),
        )
        for tool in (value if isinstance(value, list) else _items(value))
    )


def _terminal(result: Any) -> Terminal | None:
    if "terminal" not in result:
        return None
    try:
        return decode_terminal(result["terminal"])
    except TypeError:
        # A terminal the original cannot read as ok is not ok.
        return Terminal("failed")


def _assistant(value: Any) -> Any:
    if not js_truthy(value):
        return None
    assistant = to_json(value) if isinstance(value, dict) else value
    stop = get(value, "stopReason")
    if isinstance(assistant, dict) and not isinstance(stop, str) and not is_nullish(stop):
        # A stop reason that is not a string is always refused; the refusal quotes it as
        # `String(stopReason)` does.
        assistant["stopReason"] = js_string(stop)
    elif isinstance(assistant, dict) and stop is UNDEFINED:
        assistant["stopReason"] = "undefined"
    return assistant


def decode_finalization_attempt(result: Any) -> FinalizationAttemptFacts:
    """The facts of a JavaScript attempt result, as the projection reads them."""
    lifecycle = get(result, "itemLifecycle")
    current_replay = get(result, "currentAttemptReplayMetadata")
    last_tool_error = get(result, "lastToolError")
    executed = get(last_tool_error, "executionStarted")

    def flag(name: str) -> bool:
        return js_truthy(get(result, name))

    def truthy_json(name: str) -> Any:
        value = get(result, name)
        return to_json(value) if js_truthy(value) else None

    index = get(result, "lastAssistantTextMessageIndex")
    return FinalizationAttemptFacts(
        terminal=_terminal(result),
        legacy_flags=decode_legacy_flags(result),
        compaction_count=_count(get(result, "compactionCount")),
        prompt_timeout_outcome=flag("promptTimeoutOutcome"),
        preflight_recovery=flag("preflightRecovery"),
        before_agent_finalize_revision=flag("beforeAgentFinalizeRevisionReason"),
        codex_app_server_failure=flag("codexAppServerFailure"),
        cloud_code_assist_format_error=flag("cloudCodeAssistFormatError"),
        tool_metas=_tool_metas(get(result, "toolMetas")),
        item_lifecycle=ItemLifecycle(
            started_count=_optional_count(get(lifecycle, "startedCount")),
            completed_count=_optional_count(get(lifecycle, "completedCount")),
            active_count=_optional_count(get(lifecycle, "activeCount")),
        ),
        replay_metadata=_replay(get(result, "replayMetadata")),
        current_attempt_replay_metadata=_replay(current_replay)
        if js_truthy(current_replay) else None,
        last_tool_error_execution_started=executed if isinstance(executed, bool) else None,
        had_last_tool_error=js_truthy(last_tool_error),
        did_send_via_messaging_tool=flag("didSendViaMessagingTool"),
        did_deliver_source_reply_via_message_tool=flag("didDeliverSourceReplyViaMessageTool"),
        did_send_deterministic_approval_prompt=flag("didSendDeterministicApprovalPrompt"),
        heartbeat_tool_response=flag("heartbeatToolResponse"),
        tool_audio_as_voice=flag("toolAudioAsVoice"),
        tool_trusted_local_media=flag("toolTrustedLocalMedia"),
        has_tool_media_block_reply=flag("hasToolMediaBlockReply"),
        yield_detected=flag("yieldDetected"),
        client_tool_calls=_items(get(result, "clientToolCalls")),
        accepted_session_spawns=_items(get(result, "acceptedSessionSpawns")),
        messaging_tool_sent_texts=_items(get(result, "messagingToolSentTexts")),
        messaging_tool_sent_media_urls=_items(get(result, "messagingToolSentMediaUrls")),
        messaging_tool_sent_targets=_items(get(result, "messagingToolSentTargets")),
        messaging_tool_source_reply_payloads=_items(
            get(result, "messagingToolSourceReplyPayloads")),
        tool_media_urls=_items(get(result, "toolMediaUrls")),
        host_owned_tool_media_urls=_items(get(result, "hostOwnedToolMediaUrls")),
        successful_cron_adds=_count(get(result, "successfulCronAdds")),
        completed_assistant=_assistant(get(result, "currentAttemptCompletedAssistant")),
        attempt_usage=truthy_json("attemptUsage"),
        assistant_transcript_owned=flag("assistantTranscriptOwned"),
        assistant_transcript_idempotency_key=truthy_json("assistantTranscriptIdempotencyKey"),
        last_assistant_text_message_index=to_json(index),
        has_last_assistant_text_message_index=index is not UNDEFINED,
        diagnostic_trace=truthy_json("diagnosticTrace"),
    )


def encode_finalization_result(result: SettledTurnFinalizationResult) -> dict[str, Any]:
    """The narrow result object, fields present only when set."""
    out: dict[str, Any] = {"assistant": result.assistant}
    if result.usage is not None:
        out["usage"] = result.usage
    if result.assistant_transcript_owned:
        out["assistantTranscriptOwned"] = True
    if result.assistant_transcript_idempotency_key is not None:
        out["assistantTranscriptIdempotencyKey"] = result.assistant_transcript_idempotency_key
    if result.assistant_message_index is not None:
        out["assistantMessageIndex"] = result.assistant_message_index
    if result.diagnostic_trace is not None:
        out["diagnosticTrace"] = result.diagnostic_trace
    return out


def project_finalization(result: Any = UNDEFINED) -> Any:
    """`projectSettledTurnFinalizationAttemptResult(result)`."""
    try:
        projected = project_settled_turn_finalization_attempt_result(
            decode_finalization_attempt(result))
    except EmptySettledTurnFinalizationError as exc:
        raise JsError("EmptySettledTurnFinalizationError", str(exc),
                      {"result": encode_finalization_result(exc.result)}) from exc
    except SettledTurnFinalizationRejectedError as exc:
        raise JsError("Error", str(exc)) from exc
    return encode_finalization_result(projected)
