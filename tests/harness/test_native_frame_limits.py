"""Reading a native runtime's JSON lines within limits: a line or a frame past a limit
stops the reading with an error that says so, and memory stays bounded."""

from __future__ import annotations

import asyncio

import pytest

from clawharness.limits import MAX_JSON_DEPTH
from clawharness.plugin_sdk._frames import BoundedLineReader, decode_json_frame, read_frame_line
from clawharness.plugin_sdk.agent_harness_process import InputLimitError


def fed(*chunks: bytes, limit: int = 64) -> asyncio.StreamReader:
    stream = asyncio.StreamReader(limit=limit)
    for chunk in chunks:
        stream.feed_data(chunk)
    stream.feed_eof()
    return stream


async def test_a_line_over_the_limit_is_an_input_limit_error_naming_the_runtime() -> None:
    stream = fed(b'{"ok": 1}\n', b"x" * 200 + b"\n", limit=64)
    assert await read_frame_line(stream, what="the fake's output", max_bytes=64) == b'{"ok": 1}\n'
    with pytest.raises(InputLimitError, match="the fake's output: a line over the limit of 64"):
        await read_frame_line(stream, what="the fake's output", max_bytes=64)


async def test_a_frame_nested_too_deep_is_an_input_limit_error() -> None:
    deep = "[" * (MAX_JSON_DEPTH + 1) + "]" * (MAX_JSON_DEPTH + 1)
    with pytest.raises(InputLimitError, match="nested deeper than 128 levels"):
        decode_json_frame(deep, what="the fake's output")
    with pytest.raises(ValueError, match="Expecting value"):
        decode_json_frame("not json", what="the fake's output")


async def test_the_bounded_reader_hands_on_good_lines_then_stops_at_a_long_one() -> None:
    source = fed(b'{"a": 1}\n', b'{"b": 2}\n', b"y" * 500 + b"\n", b'{"never": 3}\n',
                 limit=128)
    reader = BoundedLineReader(source, what="agent 'fake'", max_bytes=128)
    assert isinstance(reader, asyncio.StreamReader)  # what protocol libraries check for
    assert await reader.readuntil(b"\n") == b'{"a": 1}\n'
    assert await reader.readline() == b'{"b": 2}\n'
    with pytest.raises(asyncio.IncompleteReadError):
        await reader.readuntil(b"\n")
    assert await reader.readline() == b""  # the end stays the end
    assert reader.problem is not None and "a line over the limit of 128 bytes" in reader.problem
    await reader.aclose()


async def test_the_bounded_reader_stops_at_a_frame_nested_too_deep() -> None:
    deep = b"[" * 200 + b"]" * 200 + b"\n"
    reader = BoundedLineReader(fed(b'{"a": 1}\n', deep, limit=4096), what="agent 'fake'")
    assert await reader.readline() == b'{"a": 1}\n'
    assert await reader.readline() == b""
    assert reader.problem is not None and "nested deeper than 128 levels" in reader.problem
    await reader.aclose()


async def test_a_slow_reader_holds_the_source_back_instead_of_buffering_it() -> None:
    lines = [f'{{"n": {i}}}\n'.encode() for i in range(500)]
    source = asyncio.StreamReader(limit=1 << 16)
    reader = BoundedLineReader(source, what="agent 'fake'")
    for line in lines:
        source.feed_data(line)
    source.feed_eof()
    for _ in range(20):
        await asyncio.sleep(0)
    assert reader._lines.qsize() <= 32  # the rest waits in the source, read line by line
    got = [await reader.readline() for _ in range(500)]
    assert got == lines and await reader.readline() == b""
    assert reader.problem is None
    await reader.aclose()
