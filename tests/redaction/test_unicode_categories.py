"""The generated table of Unicode category ranges (`redaction/_unicode_categories.py`)
is what walking every code point gives on this Python; when the Unicode database
changes, the test prints the module to write in its place."""

from __future__ import annotations

import unicodedata

import pytest

from clawharness.redaction._classes import category_members, scan_category
from clawharness.redaction._unicode_categories import RANGES, UNIDATA_VERSION


def _module_text() -> str:
    """The table module, generated afresh for this Python's Unicode database."""
    from pathlib import Path

    import clawharness.redaction._unicode_categories as table

    source = Path(table.__file__).read_text()
    head = source.split("UNIDATA_VERSION: Final", 1)[0]
    lines = [head + f'UNIDATA_VERSION: Final = "{unicodedata.unidata_version}"', "",
             "#: category prefix -> its members as `[...]` class ranges",
             "RANGES: Final[dict[str, str]] = {"]
    for category in RANGES:
        lines.append(f'    "{category}": (')
        pieces = ["\\U" + p for p in scan_category(category).split("\\U")[1:]]
        line = ""
        for piece in pieces:
            if len(line) + len(piece) > 88:
                lines.append(f'        r"{line}"')
                line = ""
            line += piece
        if line:
            lines.append(f'        r"{line}"')
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


def test_the_table_is_what_walking_the_code_points_gives() -> None:
    if unicodedata.unidata_version != UNIDATA_VERSION:
        pytest.skip(f"the table is for Unicode {UNIDATA_VERSION}, this Python has "
                    f"{unicodedata.unidata_version} (the walk is used); regenerate it:\n"
                    + _module_text())
    for category, ranges in RANGES.items():
        assert scan_category(category) == ranges, (
            "stale table: write this as src/clawharness/redaction/_unicode_categories.py\n"
            + _module_text())


def test_members_come_from_the_table_and_cover_what_they_name() -> None:
    assert category_members("C") == RANGES["C"] or unicodedata.unidata_version != UNIDATA_VERSION
    members = category_members("Z")
    assert "\\U00003000" in members and "\\U00000020" in members  # ideographic space, space
    # a category the table does not hold is walked
    assert "Zl" not in RANGES
    assert category_members("Zl") == scan_category("Zl") == "\\U00002028"


def test_the_generator_writes_the_table_as_it_is() -> None:
    from pathlib import Path

    import clawharness.redaction._unicode_categories as table

    if unicodedata.unidata_version != UNIDATA_VERSION:
        pytest.skip("the table is for another Unicode version")
    assert _module_text() == Path(table.__file__).read_text()
