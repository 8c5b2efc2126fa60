"""Provider-aware transcript policy: how history is sanitised before a model sees it.

Different model APIs reject different transcript shapes: Google validates turn order,
Anthropic validates tool-use/result pairing, Mistral wants 9-character tool call ids.
The policy names the repairs a runtime applies to the transcript it replays. It is a
pure function of provider, model id and model API.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "ThoughtSignaturePolicy",
    "TranscriptPolicy",
    "normalize_provider_id",
    "resolve_transcript_policy",
]

_MISTRAL_HINTS = (
    "mistral",
    "mixtral",
    "codestral",
    "pixtral",
    "devstral",
    "ministral",
    "mistralai",
)
_OPENAI_APIS = frozenset(
    {"openai", "openai-completions", "openai-responses", "openai-codex-responses"}
)
_OPENAI_PROVIDERS = frozenset({"openai", "openai-codex"})
_TURN_MERGE_EXCLUDED = frozenset({"openrouter", "opencode"})
_GOOGLE_APIS = frozenset(
    {"google-generative-ai", "google-gemini-cli", "google-vertex", "google-antigravity"}
)


def normalize_provider_id(provider: str | None) -> str:
    """A provider id compared case-insensitively and without surrounding space."""
    return provider.strip().lower() if provider is not None else ""


@dataclass(frozen=True, slots=True)
class ThoughtSignaturePolicy:
    """How Gemini thought signatures in replayed history are sanitised."""

    allow_base64_only: bool
    include_camel_case: bool


@dataclass(frozen=True, slots=True)
class TranscriptPolicy:
    """The transcript repairs a runtime applies before replaying history."""

    sanitize_mode: str
    sanitize_tool_call_ids: bool
    tool_call_id_mode: str | None
    preserve_native_anthropic_tool_use_ids: bool
    repair_tool_use_result_pairing: bool
    preserve_signatures: bool
    sanitize_thought_signatures: ThoughtSignaturePolicy | None
    sanitize_thinking_signatures: bool
    drop_thinking_blocks: bool
    apply_google_turn_ordering: bool
    validate_gemini_turns: bool
    validate_anthropic_turns: bool
    allow_synthetic_tool_results: bool


def resolve_transcript_policy(
    *, provider: str | None, model_id: str | None = None, model_api: str | None = None
) -> TranscriptPolicy:
    """The transcript policy for one provider/model/API combination."""
    provider_id = normalize_provider_id(provider)
    model = model_id.lower() if model_id is not None else ""
    api = model_api
    is_google = api in _GOOGLE_APIS
    is_anthropic = api in ("anthropic-messages", "bedrock-converse-stream") or provider_id in (
        "anthropic",
        "amazon-bedrock",
    )
    is_openai = provider_id in _OPENAI_PROVIDERS or (not provider_id and api in _OPENAI_APIS)
    strict_openai_compatible = (
        api == "openai-completions" and not is_openai and provider_id not in _TURN_MERGE_EXCLUDED
    )
    is_mistral = provider_id == "mistral" or any(hint in model for hint in _MISTRAL_HINTS)
    is_minimax = provider_id in ("minimax", "minimax-cn") or "minimax" in model
    routed_gemini = provider_id in ("openrouter", "opencode", "kilocode") and "gemini" in model
    copilot_claude = provider_id == "github-copilot" and "claude" in model
    needs_full_sanitize = is_google or is_anthropic or is_mistral or routed_gemini
    sanitize_ids = is_google or is_mistral or is_anthropic or is_minimax
    thought_signatures = (
        ThoughtSignaturePolicy(allow_base64_only=True, include_camel_case=True)
        if routed_gemini or is_google else None
    )
    return TranscriptPolicy(
        sanitize_mode="images-only" if is_openai or not needs_full_sanitize else "full",
        sanitize_tool_call_ids=not is_openai and sanitize_ids,
        tool_call_id_mode="strict9" if is_mistral else "strict" if sanitize_ids else None,
        # Native Anthropic ids are already valid there; rewriting them breaks prompt caching.
        preserve_native_anthropic_tool_use_ids=api == "anthropic-messages" and not is_openai,
        # Orphaned tool results are rejected by every provider after history truncation.
        repair_tool_use_result_pairing=True,
        preserve_signatures=False,
        sanitize_thought_signatures=None if is_openai else thought_signatures,
        sanitize_thinking_signatures=False,
        # Copilot's Claude endpoints reject persisted thinking blocks with foreign signatures.
        drop_thinking_blocks=copilot_claude,
        apply_google_turn_ordering=not is_openai and is_google,
        validate_gemini_turns=not is_openai and is_google,
        validate_anthropic_turns=not is_openai and (is_anthropic or strict_openai_compatible),
        allow_synthetic_tool_results=not is_openai and (is_google or is_anthropic),
    )
