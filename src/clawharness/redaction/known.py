"""Secrets known by value: what a running host holds (provider API keys, the gateway
token, MCP server credentials, credential-named environment variables).

A provider that echoes its key in an error (`Incorrect API key provided: <key>`), a
command that prints a variable, a server that returns its own header: a known secret
need not have any recognisable shape, so the redactor also masks these values wherever
they appear, exactly. A host registers the values it holds when it starts and removes
them when it closes (`register_known_secrets` / `unregister_known_secrets`); the
registry is process-wide because logs and traces are. Values shorter than
`MIN_KNOWN_SECRET_CHARS` are not registered (an `apiKey: "x"` of a local server would
otherwise mask every `x`); a short secret is still masked by its shape or field name.
"""

from __future__ import annotations

import itertools
import re
import threading
from collections.abc import Iterable
from typing import Final

from clawharness.redaction.mask import mask_token

__all__ = ["MIN_KNOWN_SECRET_CHARS", "known_generation", "known_secret_count",
           "mask_known_secrets", "register_known_secrets", "unregister_known_secrets"]

#: shorter values are left to the shape patterns (see the module docstring)
MIN_KNOWN_SECRET_CHARS: Final = 12

_lock = threading.Lock()
_tokens = itertools.count(1)
_registered: dict[int, frozenset[str]] = {}
#: one alternation over every registered value, longest first; None when there are none
_pattern: re.Pattern[str] | None = None
#: bumped after every change of `_pattern` (so a reader that sees the new generation
#: masks with the new pattern): what a cache of masked texts is keyed by
_generation = 0


def _rebuild() -> None:
    global _pattern, _generation
    values = sorted({v for group in _registered.values() for v in group}, key=len, reverse=True)
    _pattern = re.compile("|".join(map(re.escape, values))) if values else None
    _generation += 1


def known_generation() -> int:
    """Which set of known values masks now: it changes whenever the set does."""
    return _generation


def register_known_secrets(values: Iterable[str | None]) -> int:
    """Mask these values from now on; returns the token that removes them again."""
    kept = frozenset(v.strip() for v in values
                     if isinstance(v, str) and len(v.strip()) >= MIN_KNOWN_SECRET_CHARS)
    with _lock:
        token = next(_tokens)
        _registered[token] = kept
        _rebuild()
    return token


def unregister_known_secrets(token: int) -> None:
    """Stop masking what `token`'s registration added (values others hold stay)."""
    with _lock:
        if _registered.pop(token, None) is not None:
            _rebuild()


def known_secret_count() -> int:
    """How many distinct values are masked now."""
    with _lock:
        return len({v for group in _registered.values() for v in group})


def mask_known_secrets(text: str) -> str:
    """`text` with every registered value masked (`first6…last4`, or `***`)."""
    pattern = _pattern
    if pattern is None or not text:
        return text
    return pattern.sub(lambda m: mask_token(m.group(0)), text)
