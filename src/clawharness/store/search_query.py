"""Full-text search queries: free user text as safe AND-ed terms (both stores' search)."""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["SearchTerm", "parse_search_query"]

_WORD = re.compile(r"[^\W_]+")
_MAX_TERMS = 16


@dataclass(frozen=True, slots=True)
class SearchTerm:
    """One AND-ed search term: a phrase of words; `prefix` makes the last one a prefix."""

    words: tuple[str, ...]
    prefix: bool = False


def parse_search_query(query: str) -> list[SearchTerm]:
    """Turn free user text into safe search terms.

    Whitespace separates terms; inside a term only letters and digits count (`foo-bar`
    is the phrase "foo bar"), so no query syntax from the user reaches the database. A
    trailing `*` asks for a prefix match; prefixes under 2 characters match whole words
    only, because a one-letter prefix would scan the whole index. At most 16 terms.
    """
    terms: list[SearchTerm] = []
    for raw in query.split():
        words = tuple(w.lower() for w in _WORD.findall(raw))
        if not words:
            continue
        prefix = raw.endswith("*") and len(words[-1]) >= 2
        term = SearchTerm(words, prefix)
        if term not in terms:
            terms.append(term)
        if len(terms) >= _MAX_TERMS:
            break
    return terms
