"""Model refs whose provider is not configured, found before a turn fails on them.

A default or agent model (`agents.defaults.model`, `agents.entries.<id>.model`: primary
and fallbacks) names a provider. When that provider is not in `models.providers`, is not
built in (`openai`, `anthropic`) and no loaded plugin provides it, every turn on the ref
fails with `model_ref_invalid`. `unknown_provider_problems` says so as config warnings
(code `unknown-model-provider`; a warning, as the config loads and other agents' turns
run: every check that accepts a config accepts it alike), saying what is lost: every
turn of the agent for a primary model, the fallback for a fallback. `config validate`,
`doctor`, `status` and `config set` report them; chat's `/model` refuses such a ref.

Pure: reads the config and the provider ids it is given.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from difflib import get_close_matches
from typing import Final

from clawharness.config.schema import ClawConfig, ModelRefSetting
from clawharness.errors import ModelRefError
from clawharness.models.builtin_providers import BUILTIN_PROVIDERS
from clawharness.names.model_refs import parse_model_ref
from clawharness.problems import ConfigProblem, KeyPath

__all__ = ["UNKNOWN_PROVIDER_CODE", "configured_refs", "unknown_provider_problems"]

UNKNOWN_PROVIDER_CODE: Final = "unknown-model-provider"
#: refs a hint offers at most
_SUGGESTED: Final = 4


def _setting_refs(setting: ModelRefSetting | None,
                  where: KeyPath) -> Iterator[tuple[KeyPath, str, bool]]:
    if setting is None:
        return
    if setting.primary:
        yield where, setting.primary, True
    for index, ref in enumerate(setting.fallbacks):
        yield (*where, "fallbacks", index), ref, False


def configured_refs(config: ClawConfig) -> Iterator[tuple[KeyPath, str, bool]]:
    """(key path, ref, is primary) for every default and agent model."""
    yield from _setting_refs(config.agents.defaults.model, ("agents", "defaults", "model"))
    for agent_id, entry in config.agents.entries.items():
        yield from _setting_refs(entry.model, ("agents", "entries", agent_id, "model"))


def _suggestions(config: ClawConfig) -> list[str]:
    return [f"{pid}/{row.id}" for pid, provider in config.models.providers.items()
            for row in provider.models][:_SUGGESTED]


def unknown_provider_problems(config: ClawConfig,
                              plugin_providers: Collection[str] = ()) -> list[ConfigProblem]:
    """A problem for each default or agent model whose provider is not configured."""
    known = set(BUILTIN_PROVIDERS) | set(config.models.providers) | set(plugin_providers)
    models = {pid: [m.id for m in p.models] for pid, p in config.models.providers.items()}
    problems: list[ConfigProblem] = []
    for path, text, primary in configured_refs(config):
        try:
            ref = parse_model_ref(text, models_by_provider=models)
        except ModelRefError:
            continue  # a malformed ref is the config check's to report
        if ref.legacy or ref.provider in known:
            continue
        what = ("every turn of this agent fails" if primary
                else "this fallback is never tried")
        message = (f'model ref "{text}" names provider "{ref.provider}", which is not '
                   f"configured: no models.providers.{ref.provider}, not a built-in "
                   f"provider ({', '.join(sorted(BUILTIN_PROVIDERS))}) and no plugin "
                   f"provides it, so {what} (model_ref_invalid)")
        close = get_close_matches(ref.provider, sorted(known), n=1, cutoff=0.75)
        guess = close[0] if close else None
        offers = _suggestions(config)
        if guess is not None:
            hint = f'did you mean "{guess}/{ref.model}"?'
        else:
            hint = f"add models.providers.{ref.provider} (baseUrl, api, models)"
            if offers:
                hint += f", or use a configured model: {', '.join(offers)}"
        problems.append(ConfigProblem(message, path, hint, "warning", UNKNOWN_PROVIDER_CODE))
    return problems
