"""Provider-aware transcript policy: how history is sanitised before a model sees it.

Different model APIs reject different transcript shapes: Google validates turn order,
Anthropic validates tool-use/result pairing, Mistral wants 9-character tool call ids.
The policy names the repairs a runtime applies to the transcript it replays. It is a
pure function of provider, model id and model API.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from clawharness._jsvalue import UNDEFINED

__all__ = ["TranscriptPolicy", "normalize_provider_id", "resolve_transcript_policy"]

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


def normalize_provider_id(provider: Any) -> str:
    """A provider id compared case-insensitively and without surrounding space."""
    return provider.strip().lower() if isinstance(provider, str) else ""


@dataclass(frozen=True, slots=True)
class TranscriptPolicy:
    """The transcript repairs a runtime applies before replaying history."""

    sanitize_mode: str
    sanitize_tool_call_ids: bool
    tool_call_id_mode: str | None
    preserve_native_anthropic_tool_use_ids: bool
    repair_tool_use_result_pairing: bool
    preserve_signatures: bool
    sanitize_thought_signatures: dict[str, bool] | None
    sanitize_thinking_signatures: bool
    drop_thinking_blocks: bool
    apply_google_turn_ordering: bool
    validate_gemini_turns: bool
    validate_anthropic_turns: bool
    allow_synthetic_tool_results: bool

    def to_js(self) -> dict[str, Any]:
        """The policy in the wire shape (camelCase, optional fields as `undefined`)."""
        return {
            "sanitizeMode": self.sanitize_mode,
            "sanitizeToolCallIds": self.sanitize_tool_call_ids,
            "toolCallIdMode": UNDEFINED
            if self.tool_call_id_mode is None
            else self.tool_call_id_mode,
            "preserveNativeAnthropicToolUseIds": self.preserve_native_anthropic_tool_use_ids,
            "repairToolUseResultPairing": self.repair_tool_use_result_pairing,
            "preserveSignatures": self.preserve_signatures,
            "sanitizeThoughtSignatures": UNDEFINED
            if self.sanitize_thought_signatures is None
            else dict(self.sanitize_thought_signatures),
            "sanitizeThinkingSignatures": self.sanitize_thinking_signatures,
            "dropThinkingBlocks": self.drop_thinking_blocks,
            "applyGoogleTurnOrdering": self.apply_google_turn_ordering,
            "validateGeminiTurns": self.validate_gemini_turns,
            "validateAnthropicTurns": self.validate_anthropic_turns,
            "allowSyntheticToolResults": self.allow_synthetic_tool_results,
        }


def resolve_transcript_policy(
    *, provider: Any, model_id: Any = None, model_api: Any = None
) -> TranscriptPolicy:
    """The transcript policy for one provider/model/API combination."""
    provider_id = normalize_provider_id(provider)
    model = model_id.lower() if isinstance(model_id, str) else ""
    api = model_api if isinstance(model_api, str) else None
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
        {"allowBase64Only": True, "includeCamelCase": True} if routed_gemini or is_google else None
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
