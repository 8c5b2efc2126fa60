"""Which characters count as blank around harness and provider text.

Texts from harness payloads, user replies and provider errors are compared after
trimming. The set trimmed here is fixed as data: Unicode's space separators and line
terminators plus the byte-order mark (U+FEFF), as the original runtime trims. It is
*not* `str.strip()`'s set, which also removes the ASCII information separators
(U+001C..U+001F) and NEL (U+0085): text the original kept must stay non-blank here.

`terminal_safe` is the other end: text from elsewhere made safe to print on a terminal.
"""

from __future__ import annotations

import re
from typing import Final

__all__ = ["BLANK", "BLANK_CLASS", "is_blank", "terminal_safe", "terminal_safe_prefix", "trim",
           "trim_start"]

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


# --- text from elsewhere, for a terminal ---------------------------------------------
# Text from tools, MCP servers, models and transcripts made safe to print on a terminal.
#
# A command's output can carry escape sequences (`ESC[2J` clears the screen, `ESC]0;...`
# retitles the window, `ESC]52;...` writes the clipboard, `ESC]8;;...` hides a link
# behind other text), and a model can repeat them. `terminal_safe` removes every escape
# sequence whole (so colour codes leave their text readable), then any control character
# left (C0 and C1 but newline and tab, so a lone ESC split across streamed chunks cannot
# start a sequence either), and the bidirectional overrides that make text read otherwise
# than it runs. Rich markup in such text is escaped separately (`rich.markup.escape`).

_SEQUENCES: Final = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"                    # CSI: colours, cursor, erase
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"        # OSC: titles, clipboard, hyperlinks
    r"|\x1b[P^_X][^\x1b]*(?:\x1b\\)?"             # DCS, PM, APC, SOS strings
    r"|\x1b[ -/]*(?![\[\]P^_X])[0-~]"             # two-character escapes (charsets, ...)
    r"|\x9b[0-?]*[ -/]*[@-~]"                     # 8-bit CSI
    r"|[\x90\x98\x9d\x9e\x9f][^\x9c\x07]*[\x9c\x07]?"  # 8-bit strings
)
_CONTROLS: Final = re.compile(
    r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


#: the same sequences, complete (an OSC or DCS with its terminator)
_COMPLETE: Final = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[P^_X][^\x1b]*\x1b\\"
    r"|\x1b[ -/]*(?![\[\]P^_X])[0-~]|\x9b[0-?]*[ -/]*[@-~]"
    r"|[\x90\x98\x9d\x9e\x9f][^\x9c\x07]*[\x9c\x07]")
_INTRODUCERS: Final = "\x1b\x9b\x90\x98\x9d\x9e\x9f"
#: a trailing sequence longer than this is not waited for
_HOLD_MAX: Final = 4096


def terminal_safe_prefix(text: str) -> str:
    """`terminal_safe` of `text` short of a trailing escape sequence that is not complete
    yet, for streamed text: printing it in pieces then shows what the whole would."""
    start = max(text.rfind(ch) for ch in _INTRODUCERS)
    if start >= 0 and len(text) - start <= _HOLD_MAX:
        found = _COMPLETE.match(text, start)
        if found is None:
            return terminal_safe(text[:start])
    return terminal_safe(text)


def terminal_safe(text: str) -> str:
    """`text` without escape sequences, control characters (but `\\n`, `\\t`) or bidi
    overrides."""
    if not text:
        return text
    return _CONTROLS.sub("", _SEQUENCES.sub("", text))
