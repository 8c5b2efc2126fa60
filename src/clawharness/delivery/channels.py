"""Channel messaging hooks that delivery classification consults.

In the original, channel plugins (Telegram, Slack, ...) can normalize targets, recognize
their own tool sends and match the current conversation. This host keeps that seam as a
small registry of `ChannelMessagingHooks`. With nothing registered, every lookup falls
back to the generic behaviour: targets compare trimmed, and only the core messaging tools
count as messaging tools.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from clawharness.delivery._coerce import (
    js_trim,
    normalize_optional_lowercase,
    normalize_optional_string,
)

__all__ = [
    "DEFAULT_ACCOUNT_ID",
    "ChannelMessagingHooks",
    "clear_channel_hooks",
    "get_channel_hooks",
    "normalize_account_id",
    "normalize_channel_id",
    "normalize_target_for_provider",
    "register_channel_hooks",
    "unregister_channel_hooks",
]

DEFAULT_ACCOUNT_ID = "default"

_VALID_ACCOUNT_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,63}", re.IGNORECASE | re.ASCII)
_INVALID_ACCOUNT_CHARS = re.compile(r"[^a-z0-9_-]+")
_BLOCKED_OBJECT_KEYS = frozenset({"__proto__", "prototype", "constructor"})


@dataclass(frozen=True, slots=True)
class ChannelMessagingHooks:
    """What one channel contributes to messaging-delivery decisions.

    Every hook is optional; an absent hook means the generic behaviour applies.
    """

    id: str
    aliases: tuple[str, ...] = ()
    #: the channel exposes message actions, so a tool named after it is a messaging tool
    has_actions: bool = False
    #: `messaging.normalizeTarget(raw)`
    normalize_target: Callable[[str], str | None] | None = None
    #: `threading.matchesToolContextTarget({target, toolContext})`
    matches_tool_context_target: Callable[[str, Mapping[str, Any]], bool] | None = None
    #: `threading.resolveCurrentChannelId({to, threadId})`
    resolve_current_channel_id: Callable[[str, str], str | None] | None = None
    #: `actions.extractToolSend({args})?.to`
    extract_tool_send_target: Callable[[Mapping[str, Any]], Any] | None = None
    #: `actions.isToolDeliveryAction({args})`
    is_tool_delivery_action: Callable[[Mapping[str, Any]], bool] | None = None


_REGISTRY: dict[str, ChannelMessagingHooks] = {}


def register_channel_hooks(hooks: ChannelMessagingHooks) -> None:
    """Register (or replace) the hooks for one channel id."""
    _REGISTRY[hooks.id] = hooks


def unregister_channel_hooks(channel_id: str) -> None:
    """Forget the hooks for one channel id, if any."""
    _REGISTRY.pop(channel_id, None)


def clear_channel_hooks() -> None:
    """Forget every registered channel (tests use this to isolate themselves)."""
    _REGISTRY.clear()


def normalize_channel_id(raw: Any) -> str | None:
    """The registered channel id that `raw` names by id or alias, case-insensitively."""
    key = normalize_optional_lowercase(raw)
    if key is None:
        return None
    for hooks in _REGISTRY.values():
        channel_id = normalize_optional_lowercase(hooks.id)
        if channel_id and channel_id == key:
            return hooks.id
        if any(normalize_optional_lowercase(alias) == key for alias in hooks.aliases):
            return hooks.id
    return None


def get_channel_hooks(channel_id: Any) -> ChannelMessagingHooks | None:
    """The hooks registered under exactly this (trimmed) id."""
    if not isinstance(channel_id, str):
        return None
    resolved = js_trim(channel_id)
    return _REGISTRY.get(resolved) if resolved else None


def normalize_target_for_provider(
    provider: Any, raw: Any, hooks: ChannelMessagingHooks | None = None
) -> str | None:
    """A comparable form of a delivery target: the channel's normalizer, else trimmed."""
    fallback = normalize_optional_string(raw)
    if fallback is None:
        return None
    provider_id = normalize_optional_lowercase(provider)
    normalizer = None
    if provider_id is not None:
        owner = hooks if hooks is not None else get_channel_hooks(provider_id)
        normalizer = owner.normalize_target if owner is not None else None
    normalized = normalizer(raw) if normalizer is not None else None
    return normalize_optional_string(normalized if normalized is not None else fallback)


def normalize_account_id(value: Any) -> str:
    """Canonical account id: lowercase, path-safe, `default` when blank or unusable."""
    trimmed = js_trim(value) if isinstance(value, str) else ""
    if not trimmed:
        return DEFAULT_ACCOUNT_ID
    lowered = trimmed.lower()
    if not _VALID_ACCOUNT_ID.fullmatch(trimmed):
        lowered = _INVALID_ACCOUNT_CHARS.sub("-", lowered).lstrip("-").rstrip("-")[:64]
    if not lowered or lowered in _BLOCKED_OBJECT_KEYS:
        return DEFAULT_ACCOUNT_ID
    return lowered
