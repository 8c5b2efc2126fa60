"""Text lengths and caps measured in UTF-16 code units.

Tool output caps (8,000 units for a result block, 400 for an error line, the progress
limit a caller passes) are counted the way model providers and the original runtime
count text: in UTF-16 code units, where a character outside the Basic Multilingual
Plane (an emoji, say) takes two. A cut never lands inside such a character: a slice
that would split one leaves the whole character out.
"""

from __future__ import annotations

import math

__all__ = ["utf16_len", "utf16_slice", "utf16_truncate"]


def _width(char: str) -> int:
    return 2 if ord(char) > 0xFFFF else 1


def utf16_len(text: str) -> int:
    """How many UTF-16 code units `text` takes."""
    if text.isascii():
        return len(text)
    # the codec counts in C: 2 bytes a unit ("surrogatepass": a lone surrogate is one)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _clamp(offset: int, length: int) -> int:
    return max(length + offset, 0) if offset < 0 else min(offset, length)


def utf16_slice(text: str, start: int, end: int | None = None) -> str:
    """The text between UTF-16 offsets `start` and `end` (negative: from the end).

    A character whose two units straddle `start` is left out, as is one that straddles
    `end`, so the slice never holds half a character.
    """
    length = utf16_len(text)
    begin = _clamp(start, length)
    stop = length if end is None else _clamp(end, length)
    if stop <= begin:
        return ""
    units = 0
    first: int | None = None
    last: int | None = None
    for position, char in enumerate(text):
        width = _width(char)
        if first is None and units + width > begin:
            first = position if units == begin else position + 1
        if last is None and units + width > stop:
            last = position
        units += width
    first = len(text) if first is None else first
    last = len(text) if last is None else last
    return text[first:last] if last > first else ""


def utf16_truncate(text: str, limit: float) -> str:
    """`text` cut to at most `limit` UTF-16 units (a fractional limit rounds down)."""
    units = max(0, math.floor(limit))
    if utf16_len(text) <= units:
        return text
    return utf16_slice(text, 0, units)
