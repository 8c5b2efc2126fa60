"""The literal pre-check (`redaction._literals`) skips a pattern's regex only where the
regex could not match: redaction with it equals redaction without it."""

from __future__ import annotations

import dataclasses

from hypothesis import given, settings
from hypothesis import strategies as st

from clawharness.redaction._literals import required_literal
from clawharness.redaction.text import default_patterns, redact_text


def test_the_literal_is_read_only_where_it_is_certain() -> None:
    assert required_literal(r"(hf_[A-Za-z0-9]{10,})") == "hf_"
    assert required_literal(r"(dp\.st\.[a-z]{40})") == "dp.st."
    assert required_literal(r"(pat-(?:eu|na)1-[a-f0-9-]{36})") == "pat-"
    assert required_literal(r"(abc?d)") == "ab"  # c is optional
    assert required_literal(r"(sk-a|xoxb-)") is None  # alternation
    assert required_literal(r"sk-a|xoxb-") is None
    assert required_literal(r"(?:^|\s)(key=)") is None
    assert required_literal(r"(a[bc]d)") is None  # one character is no literal
    assert required_literal(None) is None
    literals = [p.literal for p in default_patterns() if p.literal]
    assert len(literals) > 50  # most vendor shapes have one


_FRAGMENTS = [*sorted({p.literal for p in default_patterns() if p.literal}),
              "=", ":", " ", "\n", '"', "'", "&", "token", "KEY", "Bearer ", "-----BEGIN ",
              "@", "//"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.sampled_from(_FRAGMENTS),
                          st.text(alphabet="AbcXyz0189_-./+=", min_size=1, max_size=50)),
                max_size=30),
       st.booleans())
def test_redaction_with_the_precheck_equals_redaction_without(parts: list[str],
                                                              upper: bool) -> None:
    text = "".join(parts)
    if upper:
        text = text.upper()
    with_check = default_patterns()
    without = tuple(dataclasses.replace(p, literal=None) for p in with_check)
    assert redact_text(text, with_check) == redact_text(text, without)
