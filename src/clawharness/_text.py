"""Which characters count as blank around harness and provider text.

Texts from harness payloads, user replies and provider errors are compared after
trimming. The set trimmed here is fixed as data: Unicode's space separators and line
terminators plus the byte-order mark (U+FEFF), as the original runtime trims. It is
*not* `str.strip()`'s set, which also removes the ASCII information separators
(U+001C..U+001F) and NEL (U+0085): text the original kept must stay non-blank here.
"""

from __future__ import annotations

from typing import Final

__all__ = ["BLANK", "BLANK_CLASS", "is_blank", "trim", "trim_start"]

#: the characters trimmed from either end of a text
BLANK: Final = (
    "\t\n\x0b\x0c\r \xa0\u1680"
    "\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
    "\u2028\u2029\u202f\u205f\u3000\ufeff"
)
#: `BLANK` as a regular-expression character class (patterns compiled with re.ASCII,
#: where `\s` would be the six ASCII spaces only)
BLANK_CLASS: Final = (
    "[\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff]"
)


def trim(text: str) -> str:
    """`text` without blank characters at either end."""
    return text.strip(BLANK)


def trim_start(text: str) -> str:
    """`text` without blank characters at its start."""
    return text.lstrip(BLANK)


def is_blank(text: str) -> bool:
    """True when `text` is empty or only blank characters."""
    return not text.strip(BLANK)
