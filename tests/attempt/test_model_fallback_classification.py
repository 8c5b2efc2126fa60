"""Which finished runs advance the model-fallback chain, and why."""

from __future__ import annotations

from typing import Any

from clawharness.runtime_plan.classify import (
    GENERIC_EXTERNAL_RUN_FAILURE_TEXT,
    classify_embedded_agent_run_result_for_model_fallback,
)
from clawharness.runtime_plan.run_result import (
    EmbeddedRunClassificationParams,
    EmbeddedRunResult,
    ProviderRefusal,
    RunError,
    RunMeta,
    RunPayload,
    TtsSupplement,
)
from clawharness.runtime_plan.spawns import AcceptedSessionSpawn


def _classify(*payloads: RunPayload, meta: RunMeta | None = None, **result: Any) -> object:
    run = EmbeddedRunResult(meta or RunMeta(), payloads, **result)
    outcome = classify_embedded_agent_run_result_for_model_fallback(
        EmbeddedRunClassificationParams(provider="openai", model="gpt-5", result=run))
    return None if outcome is None else outcome.code


def test_an_invisible_run_falls_back_and_a_visible_one_does_not() -> None:
    assert _classify() == "empty_result"
    assert _classify(RunPayload(text="   ")) == "empty_result"
    assert _classify(RunPayload(text="hello")) is None
    assert _classify(RunPayload(media_urls=("https://m/a.png",))) is None
    assert _classify(RunPayload(attachments=({"attachments": [{"url": "https://m/b"}]},))) is None


def test_deliberate_silence_and_committed_effects_never_fall_back() -> None:
    assert _classify(RunPayload(text="NO_REPLY")) is None
    assert _classify(did_send_via_messaging_tool=True) is None
    assert _classify(accepted_session_spawns=(AcceptedSessionSpawn("r", "k"),)) is None
    assert _classify(successful_cron_adds=1) is None
    assert _classify(meta=RunMeta(aborted=True)) is None
    assert _classify(meta=RunMeta(error=RunError(kind="hook_block"))) is None


def test_reasoning_only_and_a_tts_supplement_are_not_an_answer() -> None:
    assert _classify(RunPayload(text="hmm", is_reasoning=True)) == "reasoning_only_result"
    supplement = RunPayload(text="spoken", media_url="https://m/a.mp3",
                            tts_supplement=TtsSupplement("spoken", True))
    assert _classify(supplement) == "empty_result"


def test_an_incomplete_turn_falls_back_only_when_safe() -> None:
    unsafe = RunMeta(error=RunError(kind="incomplete_turn"))
    assert _classify(meta=unsafe) is None
    safe = RunMeta(error=RunError(kind="incomplete_turn", fallback_safe=True))
    assert _classify(RunPayload(text="partial", is_error=True), meta=safe) == "incomplete_result"


def test_provider_error_payloads_carry_the_provider_reason() -> None:
    assert _classify(RunPayload(text="429 Too Many Requests", is_error=True)) == (
        "embedded_error_payload")
    # an error text the providers do not classify does not fall back
    assert _classify(RunPayload(text="the tool failed", is_error=True)) is None


def test_the_generic_external_failure_text_and_a_cyber_refusal_are_recognised() -> None:
    assert _classify(RunPayload(text=GENERIC_EXTERNAL_RUN_FAILURE_TEXT)) == (
        "generic_external_run_failure")
    cyber = RunMeta(agent_harness_id="openclaw",
                    provider_refusal=ProviderRefusal(provider="openai", category="cyber"))
    assert _classify(meta=cyber) == "OPENAI_CYBER_POLICY_REFUSAL"
    misaligned = RunMeta(provider_refusal=ProviderRefusal(category="misalignment"))
    assert _classify(meta=misaligned) is None


def test_no_result_record_is_never_classified() -> None:
    params = EmbeddedRunClassificationParams(provider="openai", model="gpt-5", result=None)
    assert classify_embedded_agent_run_result_for_model_fallback(params) is None
