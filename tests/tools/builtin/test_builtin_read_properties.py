"""`read` of a small file cuts its lines in memory (`_scan_bytes`): for any bytes, any
offset and limit, it answers as the streaming read of the same file (`_scan`) does."""

from __future__ import annotations

import io
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clawharness.errors import ToolError
from clawharness.tools.builtin import _fs_read
from clawharness.tools.builtin._fs_common import SNIFF_BYTES

#: lines long enough to be cut: `_LINE_BYTES` made small for the test
_SHORT_LINE = 6

pieces = st.sampled_from([b"\n", b"\r\n", b"a", b"xyz", b"\xe2\x82", b"\xe2\x82\xac", b"\xff",
                          b"\x00", b"\r", b"  ", b"\n\n", b"long line " * 2])
contents = st.lists(pieces, max_size=40).map(b"".join)


def _answer(scan: Any, *args: Any) -> Any:
    try:
        return scan(*args)
    except ToolError as exc:
        return ("error", str(exc))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.function_scoped_fixture])
@given(data=contents, offset=st.integers(1, 12), limit=st.integers(1, 12),
       short_lines=st.booleans(), small_window=st.booleans())
def test_a_small_file_read_in_memory_answers_as_streamed(
        monkeypatch: pytest.MonkeyPatch, data: bytes, offset: int, limit: int,
        short_lines: bool, small_window: bool) -> None:
    with monkeypatch.context() as patch:
        if short_lines:
            patch.setattr(_fs_read, "_LINE_BYTES", _SHORT_LINE)
        if small_window:  # the character cut and the line cap, within a few lines
            patch.setattr(_fs_read, "READ_MAX_CHARS", 9)
            patch.setattr(_fs_read, "READ_MAX_LINES", 3)
        streamed = _answer(_fs_read._scan, io.BytesIO(data), data[:SNIFF_BYTES], "f.txt",
                           len(data), offset, limit)
        in_memory = _answer(_fs_read._scan_bytes, data, "f.txt", len(data), offset, limit)
    assert in_memory == streamed
