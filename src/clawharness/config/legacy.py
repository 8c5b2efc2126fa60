"""Legacy runtime config, found in the raw file: warnings that `doctor --fix` repairs.

- `legacy-model-ref`: a `codex/*`, `openai-codex/*` or `codex-cli/*` model ref anywhere a
  model ref appears -> `openai/<model>`. A `codex/*` ref meant "run on the Codex
  harness", so its repair also gets a model-scoped `agentRuntime: {id: "codex"}` (unless
  that model already has a policy) and turns on the bundled codex plugin, which ships
  disabled (`plugins.entries.codex.enabled: true`), unless the config turned it off.
- `legacy-agent-runtime`: whole-agent `agentRuntime` (ignored by selection) -> removed.

These run on the raw decoded file, so they work on a file that does not validate too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from clawharness.config.keypaths import MISSING, get_at
from clawharness.names.model_refs import LEGACY_CODEX_PROVIDERS
from clawharness.problems import ConfigProblem, KeyPath, format_key_path

__all__ = ["CODEX_PLUGIN_ID", "codex_plugin_blocker", "legacy_problems"]

CODEX_PLUGIN_ID: Final = "codex"
_CODEX_ENABLED: Final[KeyPath] = ("plugins", "entries", CODEX_PLUGIN_ID, "enabled")


def codex_plugin_blocker(raw: Mapping[str, Any]) -> str | None:
    """The key that keeps the bundled codex plugin off on purpose, if one does."""
    plugins = raw.get("plugins")
    if not isinstance(plugins, Mapping):
        return None
    deny = plugins.get("deny")
    if isinstance(deny, list) and CODEX_PLUGIN_ID in deny:
        return 'plugins.deny lists "codex"'
    allow = plugins.get("allow")
    if isinstance(allow, list) and CODEX_PLUGIN_ID not in allow:
        return 'plugins.allow does not list "codex"'
    if get_at(raw, _CODEX_ENABLED) is False:
        return f"{format_key_path(_CODEX_ENABLED)} is false"
    return None


def _legacy(ref: object) -> tuple[str, str] | None:
    """(legacy provider, repaired ref) for a legacy Codex ref, else None."""
    if not isinstance(ref, str):
        return None
    provider, sep, model = ref.strip().partition("/")
    if sep and model.strip() and provider.strip().lower() in LEGACY_CODEX_PROVIDERS:
        return provider.strip().lower(), f"openai/{model.strip()}"
    return None


class _Scan:
    def __init__(self, raw: Mapping[str, Any]) -> None:
        self.raw = raw
        self.problems: list[ConfigProblem] = []
        blocker = codex_plugin_blocker(raw)
        self.enable_codex = blocker is None and get_at(raw, _CODEX_ENABLED) is MISSING
        self.codex_blocker = blocker

    def codex_ops(self, models_path: KeyPath, repaired: str) -> tuple[list[dict[str, Any]], str]:
        ops: list[dict[str, Any]] = [{"op": "set_if_absent",
                                      "path": [*models_path, repaired, "agentRuntime"],
                                      "value": {"id": "codex"}}]
        said = " with a model-scoped agentRuntime codex"
        if self.enable_codex:
            ops.append({"op": "set_if_absent", "path": list(_CODEX_ENABLED), "value": True})
            said += f" and the bundled codex plugin enabled ({format_key_path(_CODEX_ENABLED)}: true)"
        elif self.codex_blocker is not None:
            said += f" (the codex plugin stays off: {self.codex_blocker})"
        return ops, said

    def scope(self, scope: Mapping[str, Any], prefix: KeyPath) -> None:
        models_path: KeyPath = (*prefix, "models")
        ref_slots: list[tuple[KeyPath, Any]] = []
        model = scope.get("model")
        if isinstance(model, str):
            ref_slots.append(((*prefix, "model"), model))
        elif isinstance(model, Mapping):
            ref_slots.append(((*prefix, "model", "primary"), model.get("primary")))
            fallbacks = model.get("fallbacks")
            if isinstance(fallbacks, list):
                ref_slots.extend(((*prefix, "model", "fallbacks", i), v)
                                 for i, v in enumerate(fallbacks))
        # renames first, so a slot's runtime default sees the renamed entry
        models = scope.get("models")
        if isinstance(models, Mapping):
            for key in list(models):
                self.rename(models, models_path, key)
        for path, value in ref_slots:
            self.slot(models_path, path, value)
        if scope.get("agentRuntime") is not None:
            path = (*prefix, "agentRuntime")
            self.problems.append(ConfigProblem(
                "whole-agent agentRuntime is legacy and ignored by runtime selection", path,
                "put the runtime on a provider or model entry instead "
                "(clawharness doctor --fix removes this one)", "warning",
                "legacy-agent-runtime", fix=({"op": "delete", "path": list(path)},)))

    def rename(self, models: Mapping[str, Any], models_path: KeyPath, key: str) -> None:
        legacy = _legacy(key)
        if legacy is None:
            return
        provider, repaired = legacy
        path = (*models_path, key)
        if repaired in models:
            self.problems.append(ConfigProblem(
                f"legacy model ref {key!r} duplicates {repaired!r}", path,
                "merge the two entries by hand", "warning", "legacy-model-ref"))
            return
        ops: list[dict[str, Any]] = [
            {"op": "rename_key", "path": list(models_path), "from": key, "to": repaired}]
        said = ""
        if provider == "codex":
            more, said = self.codex_ops(models_path, repaired)
            ops.extend(more)
        self.problems.append(ConfigProblem(
            f"legacy model ref {key!r}: write it as {repaired!r}{said}", path,
            "clawharness doctor --fix rewrites it", "warning", "legacy-model-ref",
            fix=tuple(ops)))

    def slot(self, models_path: KeyPath, path: KeyPath, value: Any) -> None:
        legacy = _legacy(value)
        if legacy is None:
            return
        provider, repaired = legacy
        ops: list[dict[str, Any]] = [{"op": "replace", "path": list(path), "value": repaired}]
        said = ""
        if provider == "codex":
            more, said = self.codex_ops(models_path, repaired)
            ops.extend(more)
        self.problems.append(ConfigProblem(
            f"legacy model ref {value!r}: write it as {repaired!r}{said}", path,
            "clawharness doctor --fix rewrites it", "warning", "legacy-model-ref",
            fix=tuple(ops)))


def legacy_problems(raw: Mapping[str, Any]) -> list[ConfigProblem]:
    """Every legacy model ref and whole-agent runtime in a raw config."""
    scan = _Scan(raw)
    defaults = get_at(raw, ("agents", "defaults"))
    if isinstance(defaults, Mapping):
        scan.scope(defaults, ("agents", "defaults"))
    entries = get_at(raw, ("agents", "entries"))
    if isinstance(entries, Mapping):
        for agent_id, entry in entries.items():
            if isinstance(entry, Mapping):
                scan.scope(entry, ("agents", "entries", agent_id))
    return scan.problems
