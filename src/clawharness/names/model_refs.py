"""Model refs: `provider/model`, providerless ids, and the legacy Codex forms.

Parsing is pure. Legacy refs (`codex/gpt-x`, `openai-codex/gpt-x`, `codex-cli/gpt-x`)
parse with `legacy=True`; `repaired()` gives the `openai/<model>` form that doctor writes.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

from clawharness.errors import ModelRefError

__all__ = ["LEGACY_CODEX_PROVIDERS", "ModelRef", "parse_model_ref", "resolve_providerless"]

#: provider prefixes of the legacy Codex refs, all repaired to `openai/<model>`
LEGACY_CODEX_PROVIDERS = ("codex", "openai-codex", "codex-cli")


@dataclass(frozen=True, slots=True)
class ModelRef:
    """A resolved `provider/model` pair."""

    provider: str
    model: str
    legacy: bool = False

    def __str__(self) -> str:
        return f"{self.provider}/{self.model}"

    def repaired(self) -> ModelRef:
        """The current form of a legacy ref (itself when not legacy)."""
        if not self.legacy:
            return self
        return ModelRef("openai", self.model)


def resolve_providerless(model_id: str, models_by_provider: Mapping[str, Sequence[str]]) -> str | None:
    """The one provider configuring `model_id`, or None when none or several do."""
    owners = [p for p, ids in models_by_provider.items() if model_id in ids]
    return owners[0] if len(owners) == 1 else None


def parse_model_ref(
    text: str,
    *,
    known_providers: Collection[str] | None = None,
    models_by_provider: Mapping[str, Sequence[str]] | None = None,
) -> ModelRef:
    """Parse a model ref.

    `provider/model` splits on the first slash (model ids may contain slashes). A ref
    with no slash is looked up among the configured providers' model rows; no match or
    an ambiguous match is an error. When `known_providers` is given, a provider outside
    it (and not a legacy Codex prefix) is an error.
    """
    if not isinstance(text, str) or not text.strip():
        raise ModelRefError(f"model ref must be a non-empty string, got {text!r}")
    ref = text.strip()
    provider, sep, model = ref.partition("/")
    if not sep:
        owners = [p for p, ids in (models_by_provider or {}).items() if ref in ids]
        if len(owners) == 1:
            return ModelRef(owners[0], ref)
        if not owners:
            raise ModelRefError(
                f"model ref {ref!r} has no provider and no configured provider lists it; "
                "write it as provider/model"
            )
        raise ModelRefError(
            f"model ref {ref!r} is ambiguous: providers {', '.join(sorted(owners))} all list it; "
            "write it as provider/model"
        )
    provider = provider.strip().lower()
    model = model.strip()
    if not provider or not model:
        raise ModelRefError(f"model ref {ref!r} must look like provider/model")
    if provider in LEGACY_CODEX_PROVIDERS:
        return ModelRef(provider, model, legacy=True)
    if known_providers is not None and provider not in known_providers:
        listed = ", ".join(sorted(known_providers)) or "none"
        raise ModelRefError(
            f"model ref {ref!r} names unknown provider {provider!r} (configured: {listed})"
        )
    return ModelRef(provider, model)
