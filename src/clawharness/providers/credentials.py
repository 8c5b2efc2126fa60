"""Provider credentials: an `apiKey` literal or a `${ENV_VAR}` reference.

Resolved keys live only in memory. Error messages name the variable, never a value.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

from clawharness.errors import ProviderAuthError

__all__ = ["redact", "resolve_api_key"]

_ENV_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def resolve_api_key(raw: str | None, env: Mapping[str, str] | None = None) -> str | None:
    """Expand `${VAR}` references in a configured `apiKey`; None when none is configured.

    A reference to an unset (or empty) variable raises `ProviderAuthError` naming it.
    """
    if raw is None:
        return None
    source = os.environ if env is None else env
    missing: list[str] = []

    def expand(match: re.Match[str]) -> str:
        name = match.group(1)
        value = source.get(name)
        if not value:
            missing.append(name)
            return ""
        return value

    resolved = _ENV_REF.sub(expand, raw).strip()
    if missing:
        names = ", ".join(f"${{{n}}}" for n in missing)
        raise ProviderAuthError(
            f"apiKey refers to {names}, which is not set in the environment"
        )
    return resolved or None


def redact(text: str, *secrets: str | None) -> str:
    """`text` with every occurrence of each secret replaced, for logs and error messages."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "***")
    return text
