"""Text lengths in UTF-16 units and how numbers are written (`_utf16`, `_numbers`)."""

from __future__ import annotations

import pytest

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
