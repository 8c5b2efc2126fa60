"""The literal index (`redaction._requirements`): a pattern runs only where a literal it
cannot match without occurs, and that never changes what is found."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from clawharness.redaction import _pattern_needs
from clawharness.redaction._requirements import needs_table_source, pattern_requirement
from clawharness.redaction.patterns import FIELD_PATTERNS, VENDOR_PATTERNS
from clawharness.redaction.text import default_patterns, redact_text

SPECS = [(s.name, s.pattern, s.ignore_case) for s in (*FIELD_PATTERNS, *VENDOR_PATTERNS)
         if s.pattern is not None]


def need(pattern: str, flags: int = re.ASCII) -> tuple[set[str], bool] | None:
    found = pattern_requirement(pattern, flags)
    return None if found is None else (set(found[0]), found[1])


def test_requirements_are_read_only_where_they_are_certain() -> None:
    assert need(r"(^|[^A-Za-z0-9])(AKIA[A-Z0-9]{16})") == ({"AKIA"}, False)
    assert need(r"(^|[^A-Za-z0-9])(AKIA[A-Z0-9]{16})", re.ASCII | re.IGNORECASE) == (
        {"akia"}, True)
    assert need(r"\b(?:KEY|TOKEN)\b=") == ({"KEY", "TOKEN"}, False)
    assert need(r"x(?i:abc)") == ({"abc"}, True)  # an inline flag folds the comparison
    assert need(r"(?:ab|c)d") is None  # a branch without a literal of 2+ characters
    assert need(r"(?:abc)?x") is None  # optional
    assert need(r"(?:abc)+x") == ({"abc"}, False)  # at least once
    assert need(r"(?!abc)x") is None  # a negative lookahead requires nothing
    assert need(r"[a-z]+\d") is None


def test_the_generated_table_matches_the_patterns() -> None:
    fresh = needs_table_source(SPECS)
    current = Path(_pattern_needs.__file__).read_text()
    assert current == fresh, "regenerate src/clawharness/redaction/_pattern_needs.py:\n" + fresh
    gated = [p for p in default_patterns() if p.needs is not None]
    assert len(gated) > 100  # nearly every shape has literals it cannot match without


_FRAGMENTS = sorted({n for p in default_patterns() for n in (p.needs or ())}
                    | {"=", ":", " ", "\n", '"', "'", "&", "?", "-----BEGIN ", "PRIVATE KEY-----",
                       "Bearer ", "@", "//", "://u:", "%2B", "\u200b"})


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_FRAGMENTS),
                          st.text(alphabet="AbcXyz0189_-./+=", min_size=1, max_size=50)),
                max_size=30),
       st.sampled_from(["as is", "upper", "lower"]))
def test_redaction_with_the_index_equals_redaction_without(parts: list[str], case: str) -> None:
    text = "".join(parts)
    text = text.upper() if case == "upper" else text.lower() if case == "lower" else text
    with_index = default_patterns()
    without = tuple(dataclasses.replace(p, literal=None, needs=None) for p in with_index)
    assert redact_text(text, with_index) == redact_text(text, without)


def _one_alternation() -> re.Pattern[str]:
    """The prefilter as it was: every part in one case-insensitive alternation."""
    from clawharness.redaction.text import _PREFILTER_PARTS

    return re.compile("(?:" + "|".join(_PREFILTER_PARTS) + ")", re.ASCII | re.IGNORECASE)


_PREFILTER_FRAGMENTS = sorted({n for _, needs in __import__(
    "clawharness.redaction.text", fromlist=["_prefilter"])._prefilter() for n in (needs or ())}
    | {"=", ":", " ", "\t", "%2B", "%41", "\u200b", "123456:", "1234567", "bot", "\u212a"})


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_PREFILTER_FRAGMENTS),
                          st.text(alphabet="AbcXyz0189_-./+=:%", min_size=1, max_size=30)),
                max_size=20),
       st.booleans())
def test_the_gated_prefilter_answers_as_the_one_alternation(parts: list[str],
                                                            upper: bool) -> None:
    from clawharness.redaction.text import _prefilter_matches

    text = "".join(parts)
    text = text.upper() if upper else text
    assert _prefilter_matches(text) == (_one_alternation().search(text) is not None)


def _prefilter_literals() -> list[str]:
    from clawharness.redaction.text import _prefilter_index

    by_start, _starts, single, _unconditional = _prefilter_index()
    return sorted({n for pairs in by_start.values() for _, n in pairs} | {n for _, n in single})


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_prefilter_literals()),
                          st.sampled_from(_prefilter_literals()).map(lambda s: s[:-1]),
                          st.text(alphabet="abcxyz0189_-./+=:%", min_size=1, max_size=20)),
                max_size=12))
def test_the_literal_trie_finds_a_text_with_any_prefilter_literal(parts: list[str]) -> None:
    # (the trie keeps only the literals that hold no other one; any text with any
    # literal in it has one of those)
    from clawharness.redaction.text import _any_literal

    text = "".join(parts)
    found = _any_literal().search(text) is not None
    assert found == any(literal in text for literal in _prefilter_literals())
