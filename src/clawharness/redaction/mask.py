"""How a matched secret is masked: `first6…last4` for long values, else `***`.

A value of 18 or more UTF-16 units keeps its first six and last four units (enough to
recognize which key it was, too little to use it); a shorter one becomes `***`.
Quotes around a value and punctuation after it stay outside the mask.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from clawharness._utf16 import utf16_len, utf16_slice

__all__ = ["Maskable", "mask_secret_value", "mask_token", "split_for_mask", "split_form_aware"]

_MIN_KEPT_LENGTH: Final = 18
_KEEP_START: Final = 6
_KEEP_END: Final = 4
_TRAILING_DELIMITER_RE: Final = re.compile(r"([\"'`,;)}\]]+)\Z")
_SUFFIX_RE: Final = re.compile(r"[\"'`,;)}\]]*\Z")
_FORM_PAIR_BOUNDARY_RE: Final = re.compile(r"&[A-Za-z_][A-Za-z0-9_.-]*=")


def mask_token(token: str) -> str:
    """`first6…last4` of a long secret, else `***` (an existing `***` stays)."""
    if token == "***":
        return token
    if utf16_len(token) < _MIN_KEPT_LENGTH:
        return "***"
    return f"{utf16_slice(token, 0, _KEEP_START)}…{utf16_slice(token, -_KEEP_END)}"


@dataclass(frozen=True, slots=True)
class Maskable:
    """A secret without its quotes or trailing punctuation, and where it sits."""

    maskable: str
    suffix: str
    mask_start: int
    mask_end: int


def split_for_mask(token: str) -> Maskable:
    """Separate a secret from the quotes around it and the punctuation after it."""
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
    """Mask a matched value, keeping its trailing punctuation (`hinted`: keep first6…last4)."""
    split = split_for_mask(token)
    return f"{mask_token(split.maskable) if hinted else '***'}{split.suffix}"


def split_form_aware(token: str) -> tuple[str, str]:
    """Split a value that ran on into a following `&key=` pair: (value, rest)."""
    found = _FORM_PAIR_BOUNDARY_RE.search(token)
    if found is None:
        return token, ""
    return token[: found.start()], token[found.start() :]
