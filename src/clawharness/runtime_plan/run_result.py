"""The finished-run facts that model-fallback classification reads.

A run result (the built-in runtime's, or a harness's projected onto it) says what was
shown to the user (`payloads`), what happened on the way (`meta`) and what was
committed outside the reply (messages sent through a tool, child sessions, cron jobs).
These records are those facts, parsed once; `classify` decides on them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from clawharness._json import JsonValue
from clawharness.runtime_plan.spawns import AcceptedSessionSpawn

__all__ = [
    "EmbeddedRunClassificationParams",
    "EmbeddedRunResult",
    "HarnessTurnOutcome",
    "ModelFallbackClassification",
    "ProviderRefusal",
    "RunError",
    "RunMeta",
    "RunPayload",
    "TerminalClassification",
    "TtsSupplement",
]

#: how a completed harness turn without visible text is classified
TerminalClassification = Literal["empty", "reasoning-only", "planning-only"]


@dataclass(frozen=True, slots=True)
class HarnessTurnOutcome:
    """What a harness knows when its native turn ended."""

    turn_completed: bool
    assistant_texts: tuple[str, ...] = ()
    #: the prompt error, None when the turn reported none
    prompt_error: object = None
    #: an explicit plan the turn produced (planning-only turns)
    plan_text: str | None = None
    reasoning_text: str | None = None


@dataclass(frozen=True, slots=True)
class TtsSupplement:
    """Spoken audio that accompanies (or replaces) a payload's text."""

    spoken_text: str | None = None
    visible_text_already_delivered: bool = False


@dataclass(frozen=True, slots=True)
class RunPayload:
    """One reply payload of a finished run, as delivery would send it."""

    text: str | None = None
    media_url: str | None = None
    media_urls: tuple[str, ...] = ()
    #: attachment records (arbitrary JSON: each may name media by several keys)
    attachments: tuple[JsonValue, ...] | None = None
    is_error: bool = False
    is_reasoning: bool = False
    is_commentary: bool = False
    is_compaction_notice: bool = False
    is_fallback_notice: bool = False
    is_status_notice: bool = False
    #: True or False when the producer said so, None when it did not
    visible: bool | None = None
    tts_supplement: TtsSupplement | None = None
    has_presentation: bool = False
    has_interactive: bool = False
    has_channel_data: bool = False


@dataclass(frozen=True, slots=True)
class RunError:
    """`meta.error`: why the run ended badly (`kind`: incomplete_turn, hook_block, ...)."""

    kind: str | None = None
    #: an incomplete turn that may safely be retried on another model
    fallback_safe: bool = False
    #: the incomplete turn's error payload is itself the terminal presentation
    terminal_presentation: bool = False


@dataclass(frozen=True, slots=True)
class ProviderRefusal:
    """The provider refused the request on policy grounds."""

    provider: str | None = None
    #: e.g. "cyber" or "misalignment"
    category: str | None = None


@dataclass(frozen=True, slots=True)
class RunMeta:
    """`meta`: what happened during the run."""

    aborted: bool = False
    error: RunError | None = None
    replay_invalid: bool = False
    #: "tool-batch" when a tool deliberately ended the turn
    intentional_terminal_completion: str | None = None
    final_assistant_raw_text: str | None = None
    final_assistant_visible_text: str | None = None
    agent_harness_result_classification: str | None = None
    agent_harness_id: str | None = None
    provider_refusal: ProviderRefusal | None = None


@dataclass(frozen=True, slots=True)
class EmbeddedRunResult:
    """A finished run: its payloads, metadata and committed outbound effects."""

    meta: RunMeta
    payloads: tuple[RunPayload, ...] = ()
    did_send_via_messaging_tool: bool = False
    messaging_tool_sent_texts: tuple[str, ...] = ()
    messaging_tool_sent_media_urls: tuple[str, ...] = ()
    messaging_tool_sent_targets: tuple[JsonValue, ...] = ()
    accepted_session_spawns: tuple[AcceptedSessionSpawn, ...] = ()
    successful_cron_adds: float = 0


@dataclass(frozen=True, slots=True)
class EmbeddedRunClassificationParams:
    """What model-fallback classification is asked about one finished run."""

    provider: str
    model: str
    #: None when the run produced no result record (nothing to classify)
    result: EmbeddedRunResult | None
    has_directly_sent_block_reply: bool = False
    has_block_reply_pipeline_output: bool = False


@dataclass(frozen=True, slots=True)
class ModelFallbackClassification:
    """Why a run should advance the model-fallback chain."""

    message: str
    #: the failover reason (format, rate_limit, billing, ...)
    reason: str
    code: str
    raw_error: str | None = None
    #: keep this run's result when every fallback fails, ranked by priority
    preserve_result_on_exhaustion: bool = False
    preserve_result_priority: int | None = None
