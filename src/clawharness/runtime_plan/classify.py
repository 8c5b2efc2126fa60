"""Classify how a turn ended, for model fallback.

Two decisions live here:

- `classify_agent_harness_terminal_outcome`: a harness turn that completed with no
  visible text is `empty`, `reasoning-only` or `planning-only` (the last one only with
  an explicit plan). Prompt errors, unfinished turns and any visible text (a deliberate
  `NO_REPLY` counts as visible) stay unclassified.
- `classify_embedded_agent_run_result_for_model_fallback`: whether a finished run result
  should advance the model-fallback chain. Delivered messages, deliberate silence, hook
  blocks, aborts and anything with side effects never do; invisible failures do.
"""

from __future__ import annotations

import math
from dataclasses import replace

from clawharness._json import JsonValue
from clawharness._text import is_blank, trim
from clawharness.delivery.silent import is_silent_reply_payload_text
from clawharness.runtime_plan.failover import classify_failover_reason
from clawharness.runtime_plan.run_result import (
    EmbeddedRunClassificationParams,
    EmbeddedRunResult,
    HarnessTurnOutcome,
    ModelFallbackClassification,
    RunMeta,
    RunPayload,
    TerminalClassification,
)

__all__ = [
    "GENERIC_EXTERNAL_RUN_FAILURE_TEXT",
    "classify_agent_harness_terminal_outcome",
    "classify_embedded_agent_run_result_for_model_fallback",
    "has_committed_outbound_delivery_evidence",
    "has_visible_agent_payload",
    "is_reply_payload_terminal_content",
]

#: the exact copy an external runner shows when it failed without detail
GENERIC_EXTERNAL_RUN_FAILURE_TEXT = (
    "⚠️ Something went wrong while processing your request. Please try again, "
    "or use /new to start a fresh session."
)
_CYBER_FAILOVER_CODE = "OPENAI_CYBER_POLICY_REFUSAL"
_PROVIDER_ERROR_REASONS = (
    "auth",
    "auth_permanent",
    "billing",
    "rate_limit",
    "server_error",
    "overloaded",
    "timeout",
)
_MEDIA_KEYS = ("mediaUrl", "mediaUrls", "path", "url", "filePath")


def _has_text(value: str | None) -> bool:
    return value is not None and not is_blank(value)


def classify_agent_harness_terminal_outcome(
    outcome: HarnessTurnOutcome,
) -> TerminalClassification | None:
    """`empty`, `reasoning-only`, `planning-only`, or None when the turn is not one."""
    has_visible = any(not is_blank(text) for text in outcome.assistant_texts)
    if not outcome.turn_completed or outcome.prompt_error is not None or has_visible:
        return None
    if _has_text(outcome.plan_text):
        return "planning-only"
    if _has_text(outcome.reasoning_text):
        return "reasoning-only"
    return "empty"


# --- payload visibility ---------------------------------------------------------------


def _names_media(value: JsonValue) -> bool:
    if isinstance(value, str):
        return not is_blank(value)
    return isinstance(value, list) and any(
        isinstance(item, str) and not is_blank(item) for item in value
    )


def _attachment_has_media(entry: JsonValue, seen: set[int]) -> bool:
    # Attachments may nest (an album of files); a shared record is looked at once.
    if not isinstance(entry, dict) or id(entry) in seen:
        return False
    seen.add(id(entry))
    if any(_names_media(entry.get(key)) for key in _MEDIA_KEYS):
        return True
    nested = entry.get("attachments")
    return isinstance(nested, list) and any(_attachment_has_media(item, seen) for item in nested)


def _has_media(payload: RunPayload) -> bool:
    return _has_text(payload.media_url) or any(not is_blank(url) for url in payload.media_urls)


def is_reply_payload_terminal_content(payload: RunPayload) -> bool:
    """False for reasoning, commentary, status notices and TTS supplements of shown text."""
    if payload.is_reasoning or payload.is_commentary:
        return False
    if payload.is_compaction_notice or payload.is_fallback_notice or payload.is_status_notice:
        return False
    supplement = payload.tts_supplement
    is_supplement = (
        supplement is not None and _has_text(supplement.spoken_text) and _has_media(payload)
    )
    return not (is_supplement and supplement is not None
                and supplement.visible_text_already_delivered)


def _is_visible(payload: RunPayload, *, include_silent_reply_payloads: bool) -> bool:
    text = payload.text
    visible_text = text is not None and not is_blank(text) and (
        include_silent_reply_payloads or not is_silent_reply_payload_text(text)
    )
    seen: set[int] = set()
    return (
        visible_text
        or _has_media(payload)
        or (payload.attachments is not None
            and any(_attachment_has_media(entry, seen) for entry in payload.attachments))
        or payload.visible is True
        or payload.has_presentation
        or payload.has_interactive
        or payload.has_channel_data
    )


def has_visible_agent_payload(
    payloads: tuple[RunPayload, ...],
    *,
    include_error_payloads: bool = True,
    include_reasoning_payloads: bool = True,
    include_silent_reply_payloads: bool = True,
    require_terminal_content: bool = False,
) -> bool:
    """True when the payloads contain user-visible content."""
    for payload in payloads:
        if require_terminal_content and (
            payload.visible is False or not is_reply_payload_terminal_content(payload)
        ):
            continue
        if not include_error_payloads and payload.is_error:
            continue
        if not include_reasoning_payloads and payload.is_reasoning:
            continue
        if _is_visible(payload, include_silent_reply_payloads=include_silent_reply_payloads):
            return True
    return False


def has_committed_outbound_delivery_evidence(result: EmbeddedRunResult) -> bool:
    """True when a message was sent, a child session accepted or a cron job added."""
    return (
        result.did_send_via_messaging_tool
        or any(not is_blank(text) for text in result.messaging_tool_sent_texts)
        or any(not is_blank(url) for url in result.messaging_tool_sent_media_urls)
        or len(result.messaging_tool_sent_targets) > 0
        or len(result.accepted_session_spawns) > 0
        or 0 < result.successful_cron_adds < math.inf
    )


# --- model-fallback classification ----------------------------------------------------


def _has_deliberate_silent_reply(meta: RunMeta) -> bool:
    if meta.error is not None and meta.error.kind == "hook_block":
        return True
    return any(
        text is not None and is_silent_reply_payload_text(text)
        for text in (meta.final_assistant_raw_text, meta.final_assistant_visible_text)
    )


def _has_deliverable_payload(payloads: tuple[RunPayload, ...], meta: RunMeta | None) -> bool:
    final_text = meta.final_assistant_visible_text if meta is not None else None
    if _has_text(final_text) and not is_silent_reply_payload_text(final_text or ""):
        return True
    return has_visible_agent_payload(
        payloads,
        include_error_payloads=False,
        include_reasoning_payloads=False,
        require_terminal_content=True,
    )


def _has_non_text_visible_content(payload: RunPayload) -> bool:
    return _has_deliverable_payload((replace(payload, text=None, is_error=False),), None)


def _fallback(provider: str, model: str, tail: str, code: str) -> ModelFallbackClassification:
    return ModelFallbackClassification(f"{provider}/{model} {tail}", "format", code)


def _generic_external_failure(
    provider: str, model: str, payloads: tuple[RunPayload, ...]
) -> ModelFallbackClassification | None:
    if len(payloads) != 1:
        return None
    payload = payloads[0]
    text = payload.text
    if (
        payload.is_error
        or payload.is_reasoning
        or text is None
        or trim(text) != GENERIC_EXTERNAL_RUN_FAILURE_TEXT
        or _has_non_text_visible_content(payload)
    ):
        return None
    return ModelFallbackClassification(
        f"{provider}/{model} ended with a generic external runner failure: {text}",
        "format",
        "generic_external_run_failure",
        raw_error=text,
    )


def _harness_classification(
    provider: str, model: str, meta: RunMeta
) -> ModelFallbackClassification | None:
    kind = meta.agent_harness_result_classification
    if kind == "empty":
        return _fallback(provider, model, "ended without a visible assistant reply", "empty_result")
    if kind == "reasoning-only":
        return _fallback(provider, model, "ended with reasoning only", "reasoning_only_result")
    if kind == "planning-only":
        return _fallback(provider, model, "ended with a structured plan but no final answer",
                         "planning_only_result")
    return None


def _is_cyber_refusal(provider: str, meta: RunMeta) -> bool:
    refusal = meta.provider_refusal
    return (
        provider == "openai"
        and meta.agent_harness_id == "openclaw"
        and not meta.replay_invalid
        and refusal is not None
        and refusal.provider == "openai"
        and refusal.category == "cyber"
    )


def classify_embedded_agent_run_result_for_model_fallback(
    params: EmbeddedRunClassificationParams,
) -> ModelFallbackClassification | None:
    """A model-fallback classification for a run result, or None when fallback must not run."""
    result = params.result
    if result is None:
        return None
    meta = result.meta
    provider, model = params.provider, params.model
    error = meta.error
    if meta.provider_refusal is not None and meta.provider_refusal.category == "misalignment":
        return None
    if (
        meta.intentional_terminal_completion == "tool-batch"
        or meta.aborted
        or params.has_directly_sent_block_reply
        or params.has_block_reply_pipeline_output
    ):
        return None
    incomplete = error is not None and error.kind == "incomplete_turn"
    fallback_safe = incomplete and error is not None and error.fallback_safe
    if meta.replay_invalid and not fallback_safe:
        return None
    if has_committed_outbound_delivery_evidence(result) or (
        error is not None and error.kind == "hook_block"
    ):
        return None
    if _is_cyber_refusal(provider, meta):
        return ModelFallbackClassification(
            f"{provider}/{model} was refused by OpenAI cyber policy",
            "unknown",
            _CYBER_FAILOVER_CODE,
            preserve_result_on_exhaustion=True,
            preserve_result_priority=100,
        )
    if incomplete and not fallback_safe:
        return None
    payloads = result.payloads
    generic = _generic_external_failure(provider, model, payloads)
    if generic is not None:
        return generic
    if _has_deliverable_payload(payloads, meta):
        return None
    if fallback_safe:
        terminal_text = next(
            (p.text for p in payloads if p.is_error and p.text is not None), None
        )
        presented = error is not None and error.terminal_presentation
        return ModelFallbackClassification(
            terminal_text if terminal_text is not None
            else f"{provider}/{model} ended with an incomplete terminal response",
            "format",
            "incomplete_result",
            preserve_result_on_exhaustion=True,
            preserve_result_priority=1 if presented else 0,
        )
    harness = _harness_classification(provider, model, meta)
    if harness is not None:
        return harness
    error_text = "\n".join(p.text or "" for p in payloads if p.is_error)
    if not is_blank(error_text):
        # Only a reason another model can cure advances the chain; any other error
        # text is the answer the user sees.
        reason = classify_failover_reason(error_text, provider)
        if reason is None or reason not in _PROVIDER_ERROR_REASONS:
            return None
        return ModelFallbackClassification(
            f"{provider}/{model} ended with a provider error: {error_text}",
            reason,
            "embedded_error_payload",
            raw_error=error_text,
        )
    if _has_deliberate_silent_reply(meta):
        return None
    if any(p.is_error and _has_non_text_visible_content(p) for p in payloads):
        return None
    assistant_payloads = [p for p in payloads if not p.is_error]
    if assistant_payloads and all(p.is_reasoning for p in assistant_payloads):
        return _fallback(provider, model, "ended with reasoning only", "reasoning_only_result")
    return _fallback(provider, model, "ended without a visible assistant reply", "empty_result")
