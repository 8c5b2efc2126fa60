"""Reading a native runtime's JSON-lines output within limits.

A native runtime (the Codex app-server, an ACP agent, a CLI backend) talks JSON-RPC, one
frame per line, on its stdout. A frame longer than `MAX_NATIVE_FRAME_BYTES` or nested
deeper than `MAX_JSON_DEPTH` is not read: the reader stops with an `InputLimitError`
saying which runtime sent what, and memory stays bounded by the line limit (the stream
is created with it, see `child_process.spawn`).

`BoundedLineReader` stands between a child's stdout and a protocol library that reads
lines itself (the ACP SDK accumulates an over-long line without bound): it hands on only
lines within the limits, a few at a time, and records why it stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from clawharness.errors import InputLimitError
from clawharness.limits import MAX_JSON_DEPTH, MAX_NATIVE_FRAME_BYTES, json_nesting_exceeds
from clawharness.limits import loads_bounded as _loads_bounded

__all__ = ["BoundedLineReader", "decode_json_frame", "read_frame_line"]

#: lines handed on ahead of the reader; a slow reader holds the child back, not memory
_QUEUE_LINES = 32


def decode_json_frame(line: bytes | str, *, what: str,
                      max_bytes: int = MAX_NATIVE_FRAME_BYTES) -> Any:
    """Parse one frame; `InputLimitError` past the limits, ValueError when not JSON."""
    return _loads_bounded(line, what=what, max_size=max_bytes)


async def read_frame_line(stream: asyncio.StreamReader, *, what: str,
                          max_bytes: int = MAX_NATIVE_FRAME_BYTES) -> bytes:
    """The next line of `stream` (b"" at its end), or `InputLimitError` for a line over
    the limit (the stream's own limit, set when it was created, bounds the buffer)."""
    try:
        line = await stream.readline()
    except (ValueError, asyncio.LimitOverrunError):
        raise InputLimitError(
            f"{what}: a line over the limit of {max_bytes:,} bytes; the output was not "
            "read further") from None
    if len(line) > max_bytes:
        raise InputLimitError(f"{what}: a line of {len(line):,} bytes, over the limit of "
                              f"{max_bytes:,} bytes")
    return line


class BoundedLineReader(asyncio.StreamReader):
    """A StreamReader (libraries check for one) whose `readuntil`/`readline` hand on only
    frames within limits; the inherited buffer is never used.

    `problem` is the reason it stopped early (None at a normal end of output).
    """

    def __init__(self, source: asyncio.StreamReader, *, what: str,
                 max_bytes: int = MAX_NATIVE_FRAME_BYTES,
                 max_depth: int = MAX_JSON_DEPTH) -> None:
        super().__init__(limit=max_bytes)
        self._source = source
        self._what = what
        self._max_bytes = max_bytes
        self._max_depth = max_depth
        self._lines: asyncio.Queue[bytes] = asyncio.Queue(_QUEUE_LINES)
        self._ended = False
        self.problem: str | None = None
        self._pump = asyncio.get_running_loop().create_task(self._run(), name=f"{what}-lines")

    async def _run(self) -> None:
        try:
            while True:
                try:
                    line = await read_frame_line(self._source, what=self._what,
                                                 max_bytes=self._max_bytes)
                except InputLimitError as exc:
                    self.problem = str(exc)
                    return
                if not line:
                    return
                if json_nesting_exceeds(line, self._max_depth):
                    self.problem = (f"{self._what}: a frame nested deeper than "
                                    f"{self._max_depth} levels; the output was not read "
                                    "further")
                    return
                await self._lines.put(line)
        finally:
            self._ended = True
            with contextlib.suppress(asyncio.QueueFull):
                self._lines.put_nowait(b"")  # the end; if full, the reader adds it later

    async def readuntil(self, separator: Any = b"\n") -> bytes:
        """The next line; IncompleteReadError (with nothing partial) at the end."""
        line = await self._lines.get()
        if self._ended and self._lines.empty():
            self._lines.put_nowait(b"")  # every later read sees the end too
        if not line:
            raise asyncio.IncompleteReadError(b"", None)
        return line

    async def readline(self) -> bytes:
        """The next line, b"" at the end."""
        with contextlib.suppress(asyncio.IncompleteReadError):
            return await self.readuntil()
        return b""

    async def readexactly(self, n: int) -> bytes:
        """Never needed: no line handed on is over the limit."""
        raise asyncio.IncompleteReadError(b"", n)

    async def read(self, n: int = -1) -> bytes:
        """Whole lines only; b"" at the end."""
        return await self.readline()

    def at_eof(self) -> bool:
        return self._pump.done() and self._lines.qsize() <= 1

    async def aclose(self) -> None:
        """Stop reading the source."""
        self._pump.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._pump
