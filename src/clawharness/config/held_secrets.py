"""The secret values a host holds: what its config and environment give it.

Every string in the config under a secret-bearing key (`apiKey`, `token`, `password`,
any `headers`, `env` or `credentials` entry, ...), with its `${VAR}` references
expanded, and every environment variable that holds a secret by its name or its value
(`clawharness.redaction.env`). The host registers them with the redactor
(`clawharness.redaction.known`), so they are masked wherever they would leave it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, Final

from clawharness.redaction import is_sensitive_field_key
from clawharness.redaction.env import is_secret_variable

__all__ = ["held_secret_values"]

_ENV_REF: Final = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
#: every value below these keys is a credential
_SECRET_SUBTREES: Final = frozenset({"headers", "env", "environment", "credentials",
                                     "cookies", "profiles"})
_MAX_DEPTH: Final = 64


def _strings(value: Any, secret: bool, depth: int = 0) -> Iterator[str]:
    if depth > _MAX_DEPTH:
        return
    if isinstance(value, str):
        if secret:
            yield value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            below = secret or (isinstance(key, str) and (
                key in _SECRET_SUBTREES or is_sensitive_field_key(key)))
            yield from _strings(item, below, depth + 1)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _strings(item, secret, depth + 1)


def held_secret_values(raw_config: Mapping[str, Any], env: Mapping[str, str]) -> frozenset[str]:
    """The secret values in `raw_config` (the decoded file) and `env`."""
    values: set[str] = set()
    for text in _strings(raw_config, False):
        values.add(text)
        expanded = _ENV_REF.sub(lambda m: env.get(m.group(1), ""), text)
        if expanded != text:
            values.add(expanded)
    values.update(value for name, value in env.items() if is_secret_variable(name, value))
    return frozenset(v for v in values if v.strip())
