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

from clawharness._json import JsonValue
from clawharness.delivery._coerce import (
    normalize_optional_lowercase,
    normalize_optional_string,
    strip_whitespace,
)

__all__ = [
    "DEFAULT_ACCOUNT_ID",
    "ChannelMessagingHooks",
    "ToolContext",
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
class ToolContext:
    """Where the current turn came from, as a channel sees it."""

    current_channel_provider: str | None = None
    current_channel_id: str | None = None
    current_messaging_target: str | None = None
    current_thread_ts: str | None = None
    #: the message the turn answers (some channels give numeric ids)
    current_message_id: str | int | float | None = None


@dataclass(frozen=True, slots=True)
class ChannelMessagingHooks:
    """What one channel contributes to messaging-delivery decisions.

    Every hook is optional; an absent hook means the generic behaviour applies.
    """

    id: str
    aliases: tuple[str, ...] = ()
    #: the channel exposes message actions, so a tool named after it is a messaging tool
    has_actions: bool = False
    #: a comparable form of a raw target (`messaging.normalizeTarget`), None for unusable
    normalize_target: Callable[[str], str | None] | None = None
    #: does a requested target name the turn's own conversation
    #: (`threading.matchesToolContextTarget`)
    matches_tool_context_target: Callable[[str, ToolContext], bool] | None = None
    #: the channel id a `(target, thread id)` pair resolves to
    #: (`threading.resolveCurrentChannelId`)
    resolve_current_channel_id: Callable[[str, str], str | None] | None = None
    #: the target a tool call's arguments send to, None when they send nowhere
    #: (`actions.extractToolSend(...).to`)
    extract_tool_send_target: Callable[[Mapping[str, JsonValue]], str | None] | None = None
    #: does a tool call with these arguments deliver something visible
    #: (`actions.isToolDeliveryAction`)
    is_tool_delivery_action: Callable[[Mapping[str, JsonValue]], bool] | None = None


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


def normalize_channel_id(raw: str | None) -> str | None:
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


def get_channel_hooks(channel_id: str | None) -> ChannelMessagingHooks | None:
    """The hooks registered under exactly this (trimmed) id."""
    if channel_id is None:
        return None
    resolved = strip_whitespace(channel_id)
    return _REGISTRY.get(resolved) if resolved else None


def normalize_target_for_provider(
    provider: str | None, raw: str | None, hooks: ChannelMessagingHooks | None = None
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
    normalized = normalizer(raw) if normalizer is not None and raw is not None else None
    return normalize_optional_string(normalized if normalized is not None else fallback)


def normalize_account_id(value: str | None) -> str:
    """Canonical account id: lowercase, path-safe, `default` when blank or unusable."""
    trimmed = strip_whitespace(value) if value is not None else ""
    if not trimmed:
        return DEFAULT_ACCOUNT_ID
    lowered = trimmed.lower()
    if not _VALID_ACCOUNT_ID.fullmatch(trimmed):
        lowered = _INVALID_ACCOUNT_CHARS.sub("-", lowered).lstrip("-").rstrip("-")[:64]
    if not lowered or lowered in _BLOCKED_OBJECT_KEYS:
        return DEFAULT_ACCOUNT_ID
    return lowered
