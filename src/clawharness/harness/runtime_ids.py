"""Runtime ids: the names `agentRuntime.id`, session pins and harness registrations use.

The built-in runtime was renamed from `pi` to `openclaw`, and the Codex harness was once
addressed as `codex-app-server`; both old spellings still arrive from configs and stored
sessions, so every comparison goes through `normalize_runtime_id` first.
"""

from __future__ import annotations

__all__ = [
    "AUTO_RUNTIME_ID",
    "BUILTIN_RUNTIME_ID",
    "RESERVED_RUNTIME_IDS",
    "is_default_runtime_id",
    "normalize_optional_runtime_id",
    "normalize_runtime_id",
]

#: "ask every registered harness, else the built-in"
AUTO_RUNTIME_ID = "auto"
#: the built-in embedded runtime
BUILTIN_RUNTIME_ID = "openclaw"

_ALIASES = {
    "": BUILTIN_RUNTIME_ID,
    "pi": BUILTIN_RUNTIME_ID,
    "openclaw": BUILTIN_RUNTIME_ID,
    "codex-app-server": "codex",
    "auto": AUTO_RUNTIME_ID,
    "default": AUTO_RUNTIME_ID,
}

#: ids a plugin harness may never register under
RESERVED_RUNTIME_IDS = frozenset({BUILTIN_RUNTIME_ID, AUTO_RUNTIME_ID, "default", "pi"})


def normalize_runtime_id(raw: str | None) -> str:
    """Trim and lowercase a runtime id and fold the legacy spellings.

    `""`, `"pi"`, `"openclaw"` -> `"openclaw"`; `"codex-app-server"` -> `"codex"`;
    `"auto"`, `"default"` and `None` -> `"auto"`. Anything else is returned lowercased.
    """
    if raw is None:
        return AUTO_RUNTIME_ID
    text = raw.strip().lower()
    return _ALIASES.get(text, text)


def normalize_optional_runtime_id(raw: str | None) -> str | None:
    """Like `normalize_runtime_id`, but `None` or a blank string means "not set" (None).

    Session pins and overrides use this: an empty stored value is absence, not a request
    for the built-in runtime.
    """
    if raw is None or not raw.strip():
        return None
    return normalize_runtime_id(raw)


def is_default_runtime_id(runtime_id: str | None) -> bool:
    """True for ids that mean "no explicit runtime" (`auto`, `default`, unset)."""
    return runtime_id is None or normalize_runtime_id(runtime_id) == AUTO_RUNTIME_ID
