"""Masking of matched secrets: keep `first6…last4` of long values, else `***`."""

from __future__ import annotations

import re
from dataclasses import dataclass

from clawharness.tools._js import js_len, slice_utf16_safe

__all__ = ["Maskable", "mask_secret_value", "mask_token", "split_for_mask", "split_form_aware"]

_MIN_LENGTH = 18
_KEEP_START = 6


def mask_token(token: str) -> str:
    """Keep `first6…last4` of a long secret, else `***`."""
    if token == "***":
        return token
    if js_len(token) < _MIN_LENGTH:
        return "***"
    return f"{slice_utf16_safe(token, 0, _KEEP_START)}…{slice_utf16_safe(token, -4)}"


_TRAILING_DELIMITER_RE = re.compile(r"([\"'`,;)}\]]+)\Z")
_SUFFIX_RE = re.compile(r"[\"'`,;)}\]]*\Z")


@dataclass(frozen=True, slots=True)
class Maskable:
    """A secret without its quotes/trailing punctuation, and where it sits."""

    maskable: str
    suffix: str
    mask_start: int
    mask_end: int


def split_for_mask(token: str) -> Maskable:
    """Separate a secret from surrounding quotes and trailing punctuation."""
    opening = token[:1]
    if opening in ('"', "'", "`") and opening:
        closing = token.rfind(opening)
        if closing > 0:
            suffix = token[closing + 1 :]
            if _SUFFIX_RE.match(suffix):
                return Maskable(token[1:closing], suffix, 0, closing + 1)
        rest = token[1:]
        found = _TRAILING_DELIMITER_RE.search(rest)
        trailing = found.group(1) if found else ""
        cut = bool(trailing) and len(trailing) < len(rest)
        maskable = rest[: -len(trailing)] if cut else rest
        return Maskable(maskable, trailing if cut else "", 0, 1 + len(maskable))
    found = _TRAILING_DELIMITER_RE.search(token)
    trailing = found.group(1) if found else ""
    maskable = token[: -len(trailing)] if trailing and len(trailing) < len(token) else token
    return Maskable(maskable, "" if maskable == token else trailing, 0, len(maskable))


def mask_secret_value(token: str, hinted: bool) -> str:
    split = split_for_mask(token)
    return f"{mask_token(split.maskable) if hinted else '***'}{split.suffix}"


_FORM_PAIR_BOUNDARY_RE = re.compile(r"&[A-Za-z_][A-Za-z0-9_.-]*=")


def split_form_aware(token: str) -> tuple[str, str]:
    found = _FORM_PAIR_BOUNDARY_RE.search(token)
    if found is None:
        return token, ""
    return token[: found.start()], token[found.start() :]
