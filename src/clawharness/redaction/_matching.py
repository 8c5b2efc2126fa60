"""Walking the matches of a pattern, with a veto for matches in the wrong context.

Some secret shapes must not match right after inline base64 data (`;base64,...`), a
context Python's `re` cannot express (it has no variable-width lookbehind). Those
patterns are searched with an `accept` check instead: a match it rejects is dropped and
the search resumes one character after that match's start, which finds the same later
matches the lookbehind would have allowed. An empty match moves the search on by one
character, so every position is tried once.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

__all__ = ["find_matches", "replace_matches"]

Accept = Callable[[re.Match[str]], bool]


def find_matches(
    pattern: re.Pattern[str], text: str, accept: Accept | None = None
) -> Iterator[re.Match[str]]:
    """Successive non-overlapping matches of `pattern` in `text`, left to right."""
    position = 0
    length = len(text)
    while position <= length:
        match = pattern.search(text, position)
        if match is None:
            return
        if accept is not None and not accept(match):
            position = match.start() + 1
            continue
        yield match
        position = match.end() if match.end() > match.start() else match.end() + 1


def replace_matches(
    pattern: re.Pattern[str],
    text: str,
    replace: Callable[[re.Match[str]], str],
    accept: Accept | None = None,
) -> str:
    """`text` with every match `find_matches` yields replaced by `replace(match)`."""
    parts: list[str] = []
    cursor = 0
    for match in find_matches(pattern, text, accept):
        parts.append(text[cursor : match.start()])
        parts.append(replace(match))
        cursor = match.end()
    if not parts:
        return text
    parts.append(text[cursor:])
    return "".join(parts)
