"""Text lengths in UTF-16 units and how numbers are written (`_utf16`, `_numbers`)."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from clawharness._numbers import format_number
from clawharness._utf16 import utf16_len, utf16_slice, utf16_truncate


def test_an_emoji_takes_two_units() -> None:
    assert utf16_len("a😀b") == 4
    assert utf16_len("é") == 1


def test_a_slice_never_holds_half_an_emoji() -> None:
    assert utf16_slice("a😀b", 0, 2) == "a"
    assert utf16_slice("a😀b", 2) == "b"
    assert utf16_slice("a😀b", 0, 3) == "a😀"


def test_negative_offsets_count_from_the_end() -> None:
    assert utf16_slice("a😀b", -2) == "b"
    assert utf16_slice("abcdef", -3, -1) == "de"
    assert utf16_slice("abc", 2, 1) == ""


def test_truncation_rounds_a_fractional_limit_down() -> None:
    assert utf16_truncate("abcdef", 3.9) == "abc"
    assert utf16_truncate("abc", 10) == "abc"
    assert utf16_truncate("abc", -1) == ""


@pytest.mark.parametrize(
    ("value", "written"),
    [
        (5.0, "5"),
        (3, "3"),
        (1.5, "1.5"),
        (-0.0, "0"),
        (0.000001, "0.000001"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (1e16, "10000000000000000"),
        (1e21, "1e+21"),
        (10**22, "1e+22"),
        (123456789012, "123456789012"),
        (float("inf"), "Infinity"),
    ],
)
def test_numbers_are_written_in_the_shortest_plain_or_exponent_form(
    value: float, written: str
) -> None:
    assert format_number(value) == written


def test_terminal_safe_removes_sequences_controls_and_bidi_overrides() -> None:
    from clawharness._text import terminal_safe

    assert terminal_safe("\x1b[1;31mred\x1b[0m plain") == "red plain"
    assert terminal_safe("a\x1b]0;title\x07b\x1b]52;c;eA==\x1b\\c") == "abc"
    assert terminal_safe("\x1bPq#0;2;0;0;0\x1b\\after") == "after"
    assert terminal_safe("x\x1b(By\x1b=z") == "xyz"
    assert terminal_safe("\x9b2Jok\x9d0;t\x9c!") == "ok!"
    assert terminal_safe("tab\tand\nnewline stay, \r\x08\x00\x7f go") == (
        "tab\tand\nnewline stay,  go")
    assert terminal_safe("\u202eevil\u2066\u200f") == "evil"
    assert terminal_safe("emoji \U0001f468\u200d\U0001f469 and ümlaut") == (
        "emoji \U0001f468\u200d\U0001f469 and ümlaut")
    assert terminal_safe("a lone \x1b") == "a lone "
    assert terminal_safe("") == ""


_PIECES = ["\x1b", "[", "]", "2", "J", "0;t", "\x07", "\\", "P", "m", "31", ";", "a", "b ",
           "\n", "\x9b", "\x9c", "\x9d", "(", "B", "\u202e", "é"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=40))
def test_streamed_text_shows_in_pieces_what_the_whole_shows(pieces: list[str]) -> None:
    from clawharness._text import terminal_safe, terminal_safe_prefix

    text = "".join(pieces)
    shown = [terminal_safe_prefix(text[:end]) for end in range(len(text) + 1)]
    assert all(later.startswith(earlier) for earlier, later in itertools.pairwise(shown))
    assert terminal_safe(text).startswith(shown[-1])
    assert not any(ch in terminal_safe(text) for ch in "\x1b\x9b\x9c\x9d\x07\u202e")
