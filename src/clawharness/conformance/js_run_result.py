"""Run-result classification at the conformance boundary.

Decodes the vectors' JavaScript run results and harness turn facts into
`clawharness.runtime_plan.run_result` records with the original's coercions (a flag that
must be `=== true`, one read with truthiness, `String(provider)`), and encodes a
classification back in the original's key order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from clawharness.conformance.jsrules import (
    get,
    is_js_number,
    is_nullish,
    is_record,
    is_true,
    js_string,
    js_trim,
    js_truthy,
    non_empty_string,
    string_or_none,
    strings,
    to_json,
)
from clawharness.conformance.jsvalue import UNDEFINED
from clawharness.runtime_plan.classify import (
    classify_agent_harness_terminal_outcome,
    classify_embedded_agent_run_result_for_model_fallback,
)
from clawharness.runtime_plan.run_result import (
    EmbeddedRunClassificationParams,
    EmbeddedRunResult,
    HarnessTurnOutcome,
    ModelFallbackClassification,
    ProviderRefusal,
    RunError,
    RunMeta,
    RunPayload,
    TtsSupplement,
)
from clawharness.runtime_plan.spawns import AcceptedSessionSpawn

__all__ = [
    "classify_embedded_run",
    "classify_terminal_outcome",
    "decode_classification_params",
    "decode_run_payload",
    "encode_classification",
]


def classify_terminal_outcome(params: Any = UNDEFINED) -> Any:
    """`classifyAgentHarnessTerminalOutcome(params)`: a label or `undefined`."""
    prompt_error = get(params, "promptError")
    outcome = HarnessTurnOutcome(
        turn_completed=js_truthy(get(params, "turnCompleted")),
        assistant_texts=strings(get(params, "assistantTexts")),
        prompt_error=None if is_nullish(prompt_error) else prompt_error,
        plan_text=string_or_none(get(params, "planText")),
        reasoning_text=string_or_none(get(params, "reasoningText")),
    )
    label = classify_agent_harness_terminal_outcome(outcome)
    return UNDEFINED if label is None else label


def decode_run_payload(value: Any) -> RunPayload:
    """One reply payload; a non-object reads as a payload with nothing in it."""
    if not isinstance(value, Mapping):
        return RunPayload()
    supplement = value.get("ttsSupplement")
    attachments = value.get("attachments")
    return RunPayload(
        text=string_or_none(value.get("text")),
        media_url=string_or_none(value.get("mediaUrl")),
        media_urls=strings(value.get("mediaUrls")),
        attachments=tuple(to_json(attachments)) if isinstance(attachments, list) else None,
        is_error=is_true(value.get("isError")),
        is_reasoning=is_true(value.get("isReasoning")),
        is_commentary=is_true(value.get("isCommentary")),
        is_compaction_notice=js_truthy(get(value, "isCompactionNotice")),
        is_fallback_notice=js_truthy(get(value, "isFallbackNotice")),
        is_status_notice=js_truthy(get(value, "isStatusNotice")),
        visible=value.get("visible") if isinstance(value.get("visible"), bool) else None,
        tts_supplement=TtsSupplement(
            spoken_text=string_or_none(supplement.get("spokenText")),
            visible_text_already_delivered=is_true(supplement.get("visibleTextAlreadyDelivered")),
        ) if is_record(supplement) else None,
        has_presentation=js_truthy(get(value, "presentation")),
        has_interactive=js_truthy(get(value, "interactive")),
        has_channel_data=js_truthy(get(value, "channelData")),
    )


def _decode_meta(meta: Any) -> RunMeta:
    error = get(meta, "error")
    agent_meta = get(meta, "agentMeta")
    refusal = get(agent_meta, "providerRefusal")
    return RunMeta(
        aborted=js_truthy(get(meta, "aborted")),
        error=RunError(
            kind=string_or_none(get(error, "kind")),
            fallback_safe=is_true(get(error, "fallbackSafe")),
            terminal_presentation=is_true(get(error, "terminalPresentation")),
        ) if isinstance(error, Mapping) else None,
        replay_invalid=is_true(get(meta, "replayInvalid")),
        intentional_terminal_completion=string_or_none(get(meta, "intentionalTerminalCompletion")),
        final_assistant_raw_text=string_or_none(get(meta, "finalAssistantRawText")),
        final_assistant_visible_text=string_or_none(get(meta, "finalAssistantVisibleText")),
        agent_harness_result_classification=string_or_none(
            get(meta, "agentHarnessResultClassification")),
        agent_harness_id=string_or_none(get(agent_meta, "agentHarnessId")),
        provider_refusal=ProviderRefusal(
            provider=string_or_none(get(refusal, "provider")),
            category=string_or_none(get(refusal, "category")),
        ) if isinstance(refusal, Mapping) else None,
    )


def _decode_spawns(value: Any) -> tuple[AcceptedSessionSpawn, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(
        AcceptedSessionSpawn(js_trim(spawn["runId"]), js_trim(spawn["childSessionKey"]))
        for spawn in value
        if is_record(spawn) and non_empty_string(spawn.get("runId"))
        and non_empty_string(spawn.get("childSessionKey"))
    )


def _decode_result(result: Any) -> EmbeddedRunResult | None:
    meta = get(result, "meta")
    # An array is an object too: its (absent) fields read as undefined.
    if not isinstance(result, Mapping) or not isinstance(meta, (Mapping, list)):
        return None
    payloads = get(result, "payloads")
    targets = get(result, "messagingToolSentTargets")
    cron_adds = get(result, "successfulCronAdds")
    return EmbeddedRunResult(
        meta=_decode_meta(meta if isinstance(meta, Mapping) else {}),
        payloads=tuple(decode_run_payload(p) for p in payloads) if isinstance(payloads, list)
        else (),
        did_send_via_messaging_tool=is_true(get(result, "didSendViaMessagingTool")),
        messaging_tool_sent_texts=strings(get(result, "messagingToolSentTexts")),
        messaging_tool_sent_media_urls=strings(get(result, "messagingToolSentMediaUrls")),
        messaging_tool_sent_targets=tuple(to_json(targets)) if isinstance(targets, list) else (),
        accepted_session_spawns=_decode_spawns(get(result, "acceptedSessionSpawns")),
        successful_cron_adds=float(cron_adds) if is_js_number(cron_adds) else 0,
    )


def decode_classification_params(params: Any) -> EmbeddedRunClassificationParams:
    """The classification question, with `String(provider)`/`String(model)` as the original."""
    return EmbeddedRunClassificationParams(
        provider=js_string(get(params, "provider")),
        model=js_string(get(params, "model")),
        result=_decode_result(get(params, "result")),
        has_directly_sent_block_reply=is_true(get(params, "hasDirectlySentBlockReply")),
        has_block_reply_pipeline_output=is_true(get(params, "hasBlockReplyPipelineOutput")),
    )


def encode_classification(value: ModelFallbackClassification | None) -> Any:
    """The original's object (`null` when fallback must not run)."""
    if value is None:
        return None
    out: dict[str, Any] = {"message": value.message, "reason": value.reason, "code": value.code}
    if value.raw_error is not None:
        out["rawError"] = value.raw_error
    if value.preserve_result_on_exhaustion:
        out["preserveResultOnExhaustion"] = True
        out["preserveResultPriority"] = value.preserve_result_priority
    return out


def classify_embedded_run(params: Any = UNDEFINED) -> Any:
    """`classifyEmbeddedAgentRunResultForModelFallback(params)`."""
    decoded = decode_classification_params(params if isinstance(params, dict) else {})
    return encode_classification(classify_embedded_agent_run_result_for_model_fallback(decoded))
