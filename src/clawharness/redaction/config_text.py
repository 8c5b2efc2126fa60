"""Keeping secrets out of config messages (`clawharness.problems.ConfigProblem`).

Two rules, applied where every config problem is made (`ConfigProblem`):

- a value under a secret-bearing key (`apiKey`, `token`, `password`, `secret`, `headers`,
  any `env`, `auth.profiles`, ...) is never shown: a message names the key and the kind
  of value found (`a list`), not the value;
- every message text passes the project's secret redactor for free text
  (`clawharness.redaction`), which also masks URL userinfo (`user:***@host`), so a
  secret that reaches a message some other way is masked too.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any, Final

from clawharness.redaction.fields import is_sensitive_field_key, redact_tool_payload_text

__all__ = ["describe_value", "is_secret_key_path", "redact_config_text"]

KeyPart = str | int

#: keys whose whole subtree holds credentials or credential-like request material
_SECRET_SUBTREES: Final = frozenset({
    "headers", "env", "environment", "auth", "profiles", "credentials", "cookies",
    "params", "request",
})
_MAX_SHOWN: Final = 60
_USERINFO: Final = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/\s@]*@")


def is_secret_key_path(path: Sequence[KeyPart]) -> bool:
    """Whether a value at this key path may hold a secret (and so is never shown)."""
    for part in path:
        if isinstance(part, int):
            continue
        if part in _SECRET_SUBTREES or is_sensitive_field_key(part):
            return True
    return False


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def describe_value(value: Any, path: Sequence[KeyPart]) -> str:
    """What was found, for a message: the value itself when safe, else only its kind."""
    if is_secret_key_path(path):
        return f"{_kind(value)} (not shown: this key may hold a secret)"
    if isinstance(value, dict | list | tuple):
        return _kind(value)
    if isinstance(value, str):
        shown = _USERINFO.sub(r"\1***@", value)
        if len(shown) > _MAX_SHOWN:
            shown = shown[:_MAX_SHOWN] + "..."
        return repr(shown)
    return repr(value)


def redact_config_text(text: str) -> str:
    """Mask anything secret-shaped in free text (keys, bearer tokens, URL userinfo)."""
    return redact_tool_payload_text(_USERINFO.sub(r"\1***@", text))
