"""apply_patch's parser and hunk matcher under arbitrary input: only PatchError, quickly.

The regression at the bottom is the input the search for hangs found: a hunk over a file
of repeated lines took 36 seconds to be refused (the matcher compared every offset against
the whole hunk); its work is linear now.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clawharness.tools.builtin.patch import (
    AddFile,
    PatchChunk,
    PatchError,
    UpdateFile,
    _seek,
    apply_chunks,
    parse_patch,
)

PROPERTY = settings(max_examples=100, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

# lines that look like patch syntax, so the search reaches the parser's branches
patch_lines = st.one_of(
    st.sampled_from(["*** Begin Patch", "*** End Patch", "*** Add File: a.txt",
                     "*** Delete File: a.txt", "*** Update File: a.txt", "*** Move to: b.txt",
                     "*** End of File", "@@", "@@ def f():", "", " ", "+", "-", "***"]),
    st.tuples(st.sampled_from([" ", "+", "-", "@@ ", "*** ", ""]), st.text(max_size=12))
    .map("".join),
)


@PROPERTY
@given(st.lists(patch_lines, max_size=30).map("\n".join))
def test_parsing_any_text_raises_only_patch_error(text: str) -> None:
    try:
        ops = parse_patch(text)
    except PatchError as exc:
        assert str(exc)  # says where it broke
        return
    for op in ops:
        assert op.path


@PROPERTY
@given(st.lists(st.text(alphabet="ab \t", max_size=4), max_size=40),
       st.lists(st.tuples(st.none() | st.text(alphabet="ab", max_size=3),
                          st.lists(st.text(alphabet="ab \t", max_size=4), max_size=6),
                          st.lists(st.text(alphabet="ab", max_size=4), max_size=6),
                          st.booleans()), max_size=4))
def test_applying_any_hunks_to_any_file_raises_only_patch_error(
        lines: list[str], hunks: list[tuple[str | None, list[str], list[str], bool]]) -> None:
    chunks = tuple(PatchChunk(ctx, tuple(old), tuple(new), eof) for ctx, old, new, eof in hunks)
    try:
        result = apply_chunks("\n".join(lines) + "\n", chunks, "f.txt")
    except PatchError:
        return
    assert isinstance(result, str)


@PROPERTY
@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=["Cs"],
                                               blacklist_characters="\r\n\x0b\x0c\x1c\x1d\x1e"
                                                                    "\x85\u2028\u2029"),
                        max_size=20), min_size=1, max_size=20))
def test_an_added_file_round_trips(content: list[str]) -> None:
    text = "\n".join(["*** Begin Patch", "*** Add File: x.txt", *(f"+{c}" for c in content),
                      "*** End Patch"])
    assert parse_patch(text) == [AddFile("x.txt", "".join(f"{c}\n" for c in content))]


@PROPERTY
@given(st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta"]), min_size=1, max_size=30),
       st.data())
def test_a_hunk_cut_from_the_file_applies_where_it_was_cut(lines: list[str],
                                                           data: st.DataObject) -> None:
    start = data.draw(st.integers(0, len(lines) - 1))
    end = data.draw(st.integers(start + 1, len(lines)))
    old = tuple(lines[start:end])
    updated = apply_chunks("\n".join(lines) + "\n", (PatchChunk(None, old, ("NEW",)),), "f")
    # the first occurrence is replaced (the matcher scans forward from the top)
    first = next(i for i in range(len(lines)) if tuple(lines[i:i + len(old)]) == old)
    assert updated == "\n".join([*lines[:first], "NEW", *lines[first + len(old):]]) + "\n"


def test_update_with_move_parses() -> None:
    ops = parse_patch("*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** End Patch")
    assert ops == [UpdateFile("a", "b", ())]


class CountedLine(str):
    """A line that counts how often it is compared."""

    compared = 0

    def __eq__(self, other: object) -> bool:
        CountedLine.compared += 1
        return str.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        CountedLine.compared += 1
        return str.__ne__(self, other)

    __hash__ = str.__hash__


@pytest.mark.parametrize("copies", [200, 2_000])
def test_a_hunk_over_repeated_lines_is_matched_in_linear_work(copies: int) -> None:
    # the exact pass compares these lines themselves; before, it compared every offset
    # against the whole hunk (a 40 KB file took 36 s to refuse a 4 KB hunk)
    file_lines = [CountedLine("a") for _ in range(copies * 10)]
    hunk = tuple([CountedLine("a")] * copies + [CountedLine("b")])
    CountedLine.compared = 0
    assert _seek(file_lines, hunk, 0, False) is None
    exact_pass = CountedLine.compared
    assert exact_pass <= 4 * (len(file_lines) + len(hunk))
    with pytest.raises(PatchError, match="could not find the expected lines"):
        apply_chunks("a\n" * (copies * 10), (PatchChunk(None, hunk, ("x",)),), "f.txt")
