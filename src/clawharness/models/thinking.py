"""Thinking levels: which level a turn asks for, and what the provider request carries.

Levels, as OpenClaw names them: `off | minimal | low | medium | high | xhigh`
(`config.schema.ThinkingLevel`). Pure: no I/O, no host state.

Resolution (`resolve_thinking`), first set wins: the message (`TurnOptions.thinking`, a
gateway `thinking` param), the session (`/think <level>` in chat, stored in the session
row's meta as `thinkingLevel`), the agent (`agents.entries.<id>.thinkingDefault`), the
default (`agents.defaults.thinkingDefault`). With none set, no level is sent and the
provider's own default applies.

Mapping (`plan_thinking`), per API and model family; a level the model cannot take is
clamped to the nearest one it can, with a note saying so:

- OpenAI Responses `reasoning.effort`, Chat Completions `reasoning_effort`: `off` is
  `none` where the model has it (GPT-5.1 and later), `xhigh` only on GPT-5.2+ and Codex
  models, `minimal` only on GPT-5 (5.0); the o-series takes `low`..`high`; GPT-4 and
  older do not reason (only `off`). Other models (a local server) get the level as the
  effort, `xhigh` clamped to `high`, and `off` sends nothing.
- Anthropic Messages `thinking`: `off` is `{"type": "disabled"}`, the others a budget
  (`minimal` 1,024, `low` 4,096, `medium` 10,240, `high` 31,999 tokens; `xhigh` clamped
  to `high`), and `max_tokens` raised to leave room for the answer; Claude 3.5 and older
  do not think.
- Ollama (a provider whose id or URL says `ollama`) `think`: `false` for `off`; GPT-OSS
  takes `low`/`medium`/`high`, other models only on/off (any level is `true`, noted).
- Codex (`codex_effort`): `model_reasoning_effort` values `minimal`..`xhigh`, `off`
  clamped to `minimal`.

A model row that says `reasoning: false` takes only `off`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Final, Literal, get_args

from clawharness.config import ClawConfig, ThinkingLevel
from clawharness.errors import ClawHarnessError
from clawharness.harness.types import ResolvedModel
from clawharness.models.routes import Route
from clawharness.providers.registry import resolve_api

__all__ = [
    "THINKING_LEVELS",
    "ResolvedThinking",
    "ThinkingLevel",
    "ThinkingLevelError",
    "ThinkingPlan",
    "ThinkingPlans",
    "apply_thinking",
    "codex_effort",
    "parse_thinking_level",
    "plan_thinking",
    "plan_turn_thinking",
    "resolve_agent_thinking",
    "resolve_thinking",
]

THINKING_LEVELS: Final[tuple[ThinkingLevel, ...]] = get_args(ThinkingLevel)
ThinkingSource = Literal["message", "session", "agent", "default"]

_ALIASES: Final[dict[str, ThinkingLevel]] = {
    "none": "off", "disabled": "off", "disable": "off", "false": "off", "no": "off",
    "on": "low", "true": "low", "yes": "low", "think": "minimal",
    "x-high": "xhigh", "x_high": "xhigh", "extra-high": "xhigh", "extra high": "xhigh",
    "extra_high": "xhigh", "highest": "high", "max": "high", "ultrathink": "high",
}
#: Anthropic budgets (tokens) per level; the API's minimum is 1,024
_ANTHROPIC_BUDGET: Final[dict[ThinkingLevel, int]] = {
    "minimal": 1024, "low": 4096, "medium": 10240, "high": 31999}
#: room for the answer beside the budget, at most
_ANSWER_ROOM: Final = 8192


class ThinkingLevelError(ClawHarnessError):
    """A thinking level that is not one of the levels (or their aliases)."""

    code = "thinking_level_invalid"


def parse_thinking_level(raw: str) -> ThinkingLevel:
    """The level `raw` names (`medium`, `x-high`, `max`, `on`, ...), or ThinkingLevelError."""
    text = " ".join(raw.strip().lower().split())
    for level in THINKING_LEVELS:
        if text == level:
            return level
    alias = _ALIASES.get(text)
    if alias is None:
        raise ThinkingLevelError(f"unknown thinking level {raw!r}; use one of "
                                 + ", ".join(THINKING_LEVELS))
    return alias


@dataclass(frozen=True, slots=True)
class ResolvedThinking:
    """The level a turn asks for and where it came from (None: nothing set anywhere)."""

    level: ThinkingLevel | None = None
    source: ThinkingSource | None = None


def resolve_thinking(*, message: ThinkingLevel | None = None,
                     session: ThinkingLevel | None = None,
                     agent: ThinkingLevel | None = None,
                     default: ThinkingLevel | None = None) -> ResolvedThinking:
    """Message > session > agent > default; the first that is set."""
    chain: tuple[tuple[ThinkingLevel | None, ThinkingSource], ...] = (
        (message, "message"), (session, "session"), (agent, "agent"), (default, "default"))
    for level, source in chain:
        if level is not None:
            return ResolvedThinking(level, source)
    return ResolvedThinking()


@dataclass(frozen=True, slots=True)
class ThinkingPlan:
    """What a turn sends: the level asked for, the level applied (after clamping), the
    request params that carry it, and why they differ when they do."""

    requested: ThinkingLevel | None = None
    level: ThinkingLevel | None = None
    source: ThinkingSource | None = None
    #: merged over the model's params (`ModelRequest.params`); empty: nothing is sent
    params: Mapping[str, Any] = field(default_factory=dict)
    #: the request's `max_tokens`, when thinking needs more room than the model's
    max_tokens: int | None = None
    note: str | None = None


@dataclass(frozen=True, slots=True)
class _Profile:
    """The levels a model takes and how each is spelled on the wire."""

    levels: tuple[ThinkingLevel, ...]
    family: str
    #: `off` is the absence of the parameter (a model with no `none` effort)
    off_omits: bool = False


def _nearest(level: ThinkingLevel, levels: tuple[ThinkingLevel, ...]) -> ThinkingLevel:
    """The supported level closest to `level` (ties go to the lower one)."""
    if level in levels:
        return level
    rank = THINKING_LEVELS.index(level)
    return min(levels, key=lambda lv: (abs(THINKING_LEVELS.index(lv) - rank),
                                       THINKING_LEVELS.index(lv)))


_GPT_VERSION: Final = re.compile(r"gpt-(\d+)(?:\.(\d+))?")


def _openai_profile(model_id: str) -> _Profile:
    name = model_id.lower().rsplit("/", 1)[-1]
    version = _GPT_VERSION.search(name)
    if "codex" in name:
        return _Profile(("minimal", "low", "medium", "high", "xhigh"), "a Codex model")
    if version is not None and int(version.group(1)) >= 5:
        minor = int(version.group(2) or 0)
        if int(version.group(1)) == 5 and minor == 0:
            return _Profile(("minimal", "low", "medium", "high"), "GPT-5")
        top: tuple[ThinkingLevel, ...] = ("xhigh",) if minor >= 2 or int(version.group(1)) > 5 \
            else ()
        return _Profile(("off", "low", "medium", "high", *top), f"GPT-{version.group(0)[4:]}")
    if re.match(r"o\d", name):
        return _Profile(("low", "medium", "high"), "the o-series")
    if version is not None or name.startswith(("chatgpt-", "gpt-3")):
        return _Profile(("off",), "a model that does not reason", off_omits=True)
    return _Profile(("off", "minimal", "low", "medium", "high"), "this model", off_omits=True)


def _anthropic_profile(model_id: str) -> _Profile:
    name = model_id.lower()
    if re.search(r"claude-(?:instant|2|3-(?:opus|sonnet|haiku)|3-5)", name):
        return _Profile(("off",), "a Claude model without extended thinking")
    return _Profile(("off", "minimal", "low", "medium", "high"), "Claude")


def _ollama_profile(model_id: str) -> _Profile:
    if "gpt-oss" in model_id.lower():
        return _Profile(("off", "low", "medium", "high"), "GPT-OSS on Ollama")
    return _Profile(("off", "low"), "Ollama (thinking on or off)")


def _is_ollama(provider: str, base_url: str | None) -> bool:
    return "ollama" in provider.lower() or (base_url is not None and (
        "ollama" in base_url.lower() or ":11434" in base_url))


def _wire(api: str, ollama: bool, level: ThinkingLevel, model_id: str,
          max_tokens: int | None) -> tuple[dict[str, Any], int | None]:
    """The params (and any larger max_tokens) that carry `level` for this API."""
    if ollama:
        think: bool | str = level != "off"
        if "gpt-oss" in model_id.lower() and level != "off":
            think = level
        return {"extraBody": {"think": think}}, None
    if api == "anthropic-messages":
        if level == "off":
            return {"thinking": {"type": "disabled"}}, None
        budget = _ANTHROPIC_BUDGET[level]
        needed = budget + min(_ANSWER_ROOM, budget)
        room = needed if max_tokens is None or max_tokens <= budget else None
        return {"thinking": {"type": "enabled", "budget_tokens": budget}}, room
    effort = "none" if level == "off" else level
    if api in ("openai-responses", "openai-chatgpt-responses"):
        return {"reasoning": {"effort": effort}}, None
    return {"reasoning_effort": effort}, None


def plan_thinking(resolved: ResolvedThinking, *, api: str, provider: str, model_id: str,
                  base_url: str | None = None, reasoning: bool | None = None,
                  max_tokens: int | None = None) -> ThinkingPlan:
    """The request params for `resolved` on this model (`api`: the transport's API)."""
    requested = resolved.level
    if requested is None:
        return ThinkingPlan()
    ollama = _is_ollama(provider, base_url)
    if ollama:
        profile = _ollama_profile(model_id)
    elif api == "anthropic-messages":
        profile = _anthropic_profile(model_id)
    elif api == "scripted":
        return ThinkingPlan(requested, requested, resolved.source)  # no wire to carry it
    else:
        profile = _openai_profile(model_id)
    if reasoning is False:
        profile = _Profile(("off",), "a model configured with reasoning: false",
                           off_omits=True)
    level = _nearest(requested, profile.levels)
    note = None
    if level != requested:
        note = (f"thinking level {requested} is not available on {provider}/{model_id} "
                f"({profile.family} takes {', '.join(profile.levels)}): using {level}")
    if level == "off" and profile.off_omits:
        return ThinkingPlan(requested, level, resolved.source, note=note)
    params, room = _wire(api, ollama, level, model_id, max_tokens)
    return ThinkingPlan(requested, level, resolved.source, params, room, note)


def apply_thinking(model: ResolvedModel, plan: ThinkingPlan) -> ResolvedModel:
    """`model` with the plan's params over its own (the level replaces any configured
    reasoning effort or thinking setting) and the plan's `max_tokens`, if any."""
    if not plan.params and plan.max_tokens is None:
        return model
    params = {k: v for k, v in model.params.items()
              if k not in ("reasoning", "reasoningEffort", "reasoning_effort", "thinking")}
    for key, value in plan.params.items():
        if key == "extraBody":
            extra = model.params.get("extraBody", model.params.get("extra_body"))
            params.pop("extra_body", None)
            params["extraBody"] = {**(dict(extra) if isinstance(extra, Mapping) else {}),
                                   **value}
        else:
            params[key] = value
    return replace(model, params=params,
                   max_tokens=plan.max_tokens if plan.max_tokens is not None
                   else model.max_tokens)


def codex_effort(level: ThinkingLevel | None) -> str | None:
    """Codex's `effort` for a level: its values run `minimal`..`xhigh`, so `off` is the
    least it takes (`minimal`)."""
    if level is None:
        return None
    return "minimal" if level == "off" else level


def _level(value: str | None) -> ThinkingLevel | None:
    return value if value in THINKING_LEVELS else None  # type: ignore[return-value]


def resolve_agent_thinking(config: ClawConfig, agent_id: str, *,
                           message: str | None = None,
                           session: str | None = None) -> ResolvedThinking:
    """The level for a turn of `agent_id` with this message and session level."""
    entry = config.agents.entries.get(agent_id)
    return resolve_thinking(message=_level(message), session=_level(session),
                            agent=entry.thinking_default if entry is not None else None,
                            default=config.agents.defaults.thinking_default)


def plan_turn_thinking(config: ClawConfig, agent_id: str, route: Route, *,
                       message: str | None = None,
                       session: str | None = None) -> ThinkingPlan:
    """The plan for one attempt on `route` (the turn runner's single call)."""
    model = route.model
    resolved = resolve_agent_thinking(config, agent_id, message=message, session=session)
    return plan_thinking(resolved, api=resolve_api(model), provider=model.provider,
                         model_id=model.model_id, base_url=model.base_url,
                         reasoning=route.model_row.reasoning if route.model_row else None,
                         max_tokens=model.max_tokens)


#: plans a `ThinkingPlans` keeps before it starts afresh
_PLANS_KEPT = 256


class ThinkingPlans:
    """`plan_turn_thinking` remembered: a pure function of the config (kept per config
    object: a new config starts afresh), the agent, the route (by identity: the turn
    runner keeps its routes too) and the message's and the session's levels."""

    def __init__(self) -> None:
        self._config: ClawConfig | None = None
        self._plans: dict[tuple[str, int, str | None, str | None],
                          tuple[Route, ThinkingPlan]] = {}

    def plan(self, config: ClawConfig, agent_id: str, route: Route, *,
             message: str | None = None, session: str | None = None) -> ThinkingPlan:
        if config is not self._config:
            self._config = config
            self._plans.clear()
        key = (agent_id, id(route), message, session)
        kept = self._plans.get(key)
        if kept is not None and kept[0] is route:
            return kept[1]
        plan = plan_turn_thinking(config, agent_id, route, message=message, session=session)
        if len(self._plans) >= _PLANS_KEPT:
            self._plans.clear()
        self._plans[key] = (route, plan)
        return plan
