"""Small phrasing helpers shared by the config checks and messages."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

__all__ = ["closest", "one_of"]


def one_of(choices: Iterable[str]) -> str:
    """`'a', 'b' or 'c'`."""
    quoted = [repr(c) for c in choices]
    if len(quoted) <= 1:
        return "".join(quoted)
    return ", ".join(quoted[:-1]) + " or " + quoted[-1]


def closest(value: object, choices: Sequence[str]) -> str | None:
    """The choice closest to a misspelled `value` (difflib), if one is close enough."""
    if not isinstance(value, str) or not value:
        return None
    lowered = {c.lower(): c for c in choices}
    if value.lower() in lowered:
        return lowered[value.lower()]
    found = difflib.get_close_matches(value.lower(), list(lowered), n=1, cutoff=0.6)
    return lowered[found[0]] if found else None
