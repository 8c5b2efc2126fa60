"""Character classes the redaction patterns are written with.

The patterns are Python `re` patterns compiled with `re.ASCII`, so `\\d`, `\\w` and `\\b`
are ASCII-only, as secrets are. Whitespace is the exception: a secret ends at any of
`clawharness._text.BLANK` (which includes no-break and ideographic spaces and U+FEFF),
not only at ASCII whitespace, so the patterns say `{BLANK}` where they mean a space, and
`{LINE_CHAR}` where they mean any character but a line terminator.
"""

from __future__ import annotations

import unicodedata
from functools import cache
from typing import Final

from clawharness._text import BLANK_CLASS
from clawharness.redaction._unicode_categories import RANGES, UNIDATA_VERSION

__all__ = [
    "BLANK",
    "BLANK_MEMBERS",
    "LINE_CHAR",
    "NOT_BLANK",
    "category_members",
    "invisible_members",
    "scan_category",
]

#: one blank character
BLANK: Final = BLANK_CLASS
#: the blank characters, for use inside a `[...]` class
BLANK_MEMBERS: Final = BLANK_CLASS[1:-1]
#: one character that is not blank
NOT_BLANK: Final = f"[^{BLANK_MEMBERS}]"
#: one character that is not a line terminator
LINE_CHAR: Final = "[^\\n\\r\\u2028\\u2029]"


def _escaped(code: int) -> str:
    return f"\\U{code:08x}"


@cache
def category_members(category: str) -> str:
    """Every code point whose Unicode general category starts with `category`
    ("C": controls, format characters, surrogates, private use and unassigned;
    "Z": separators), as ranges for use inside a `[...]` class. From the generated
    table when it was made from this Python's Unicode database, else by walking every
    code point (`scan_category`)."""
    if unicodedata.unidata_version == UNIDATA_VERSION and category in RANGES:
        return RANGES[category]
    return scan_category(category)


def scan_category(category: str) -> str:
    """`category_members` the slow way: every code point's category, one by one."""
    ranges: list[str] = []
    start: int | None = None
    lookup = unicodedata.category
    for code in range(0x110000):
        member = lookup(chr(code)).startswith(category)
        if member and start is None:
            start = code
        elif not member and start is not None:
            ranges.append(_span(start, code - 1))
            start = None
    if start is not None:
        ranges.append(_span(start, 0x10FFFF))
    return "".join(ranges)


def _span(first: int, last: int) -> str:
    return _escaped(first) if first == last else f"{_escaped(first)}-{_escaped(last)}"


def invisible_members() -> str:
    """Characters that render as nothing or as plain space (category C, the Unicode
    spaces and the Hangul fillers), used to hide a key name such as `to\u200bken`."""
    return (
        category_members("C")
        + "\\u00A0\\u1680\\u2000-\\u200A\\u202F\\u205F\\u3000\\u115F\\u1160\\u3164\\uFFA0"
    )
