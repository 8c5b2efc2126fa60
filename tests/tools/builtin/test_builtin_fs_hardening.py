"""File tools against what a command in the workspace can plant: FIFOs, sockets and
devices (refused at once, never waited on), hard links to files elsewhere (never written
through), symlinks swapped while a path is walked (never followed out), and files too
big to load (read streams, within a byte budget)."""

from __future__ import annotations

import asyncio
import os
import socket
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

from clawharness.errors import ToolError, WorkspacePathEscapeError
from clawharness.harness.types import ToolCallContext
from clawharness.tools.builtin import core_tool_specs
from clawharness.tools.builtin.fs import READ_MAX_CHARS, READ_SCAN_BYTES


async def call(tool: str, args: Mapping[str, Any], workspace: Path) -> dict[str, Any]:
    ctx = ToolCallContext(call_id="c1", workspace_dir=str(workspace), abort=asyncio.Event(),
                          session_key="agent:main:main", run_id="r1")
    spec = {t.name: t for t in core_tool_specs()}[tool]
    # a tool that waits on a FIFO would hang here: every call must answer at once
    return await asyncio.wait_for(spec.execute(args, ctx), timeout=10)


def text(result: dict[str, Any]) -> str:
    return "".join(b["text"] for b in result["content"])


def patch(*lines: str) -> dict[str, str]:
    return {"input": "\n".join(["*** Begin Patch", *lines, "*** End Patch"])}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def unix_socket(workspace: Path) -> Iterator[Path]:
    path = workspace / "sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)
    yield path
    server.close()


WRITERS = {
    "write": lambda name: {"path": name, "content": "x"},
    "edit": lambda name: {"path": name, "oldText": "a", "newText": "b"},
    "apply_patch update": lambda name: patch(f"*** Update File: {name}", "@@", "-a", "+b"),
    "apply_patch add": lambda name: patch(f"*** Add File: {name}", "+x"),
    "apply_patch delete": lambda name: patch(f"*** Delete File: {name}"),
    "read": lambda name: {"path": name},
}


@pytest.mark.parametrize("tool", sorted(WRITERS))
async def test_a_fifo_is_refused_at_once_by_every_file_tool(workspace: Path, tool: str) -> None:
    os.mkfifo(workspace / "pipe")
    with pytest.raises(ToolError, match=r"pipe is a FIFO \(named pipe\), not a regular file"):
        await call(tool.split()[0], WRITERS[tool]("pipe"), workspace)
    assert (workspace / "pipe").exists()


@pytest.mark.parametrize("tool", sorted(WRITERS))
async def test_a_socket_is_refused(workspace: Path, unix_socket: Path, tool: str) -> None:
    with pytest.raises(ToolError, match="sock is a socket, not a regular file"):
        await call(tool.split()[0], WRITERS[tool]("sock"), workspace)


@pytest.mark.skipif(os.geteuid() != 0, reason="only root can make a device node")
@pytest.mark.parametrize("tool", ["read", "write", "edit"])
async def test_a_device_is_refused(workspace: Path, tool: str) -> None:
    import stat

    os.mknod(workspace / "null", stat.S_IFCHR | 0o600, os.makedev(1, 3))
    with pytest.raises(ToolError, match="null is a character device"):
        await call(tool, WRITERS[tool]("null"), workspace)


async def test_ls_refuses_a_fifo_and_marks_special_entries(
        workspace: Path, unix_socket: Path) -> None:
    os.mkfifo(workspace / "pipe")
    (workspace / "plain.txt").write_text("x")
    with pytest.raises(ToolError, match="pipe is not a directory"):
        await call("ls", {"path": "pipe"}, workspace)
    lines = text(await call("ls", {}, workspace)).splitlines()
    assert lines == ["pipe  [FIFO (named pipe)]", "plain.txt", "sock  [socket]"]


HARD_LINK_WRITERS = ["write", "edit", "apply_patch update", "apply_patch add"]


@pytest.mark.parametrize("tool", HARD_LINK_WRITERS)
async def test_a_hard_link_to_a_file_outside_is_never_written(
        workspace: Path, tmp_path: Path, tool: str) -> None:
    outside = tmp_path / "outside.conf"
    outside.write_text("a = original\n")
    os.link(outside, workspace / "linked.conf")
    with pytest.raises(ToolError, match=r"linked\.conf has 2 names \(hard links\)"):
        await call(tool.split()[0], WRITERS[tool]("linked.conf"), workspace)
    assert outside.read_text() == "a = original\n"
    # reading it is harmless
    assert text(await call("read", {"path": "linked.conf"}, workspace)) == "a = original"


async def test_a_patch_with_a_hard_linked_file_writes_nothing(
        workspace: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("a\n")
    os.link(tmp_path / "outside.txt", workspace / "late.txt")
    with pytest.raises(ToolError, match="hard links"):
        await call("apply_patch", patch("*** Add File: first.txt", "+made",
                                        "*** Update File: late.txt", "@@", "-a", "+b"),
                   workspace)
    assert not (workspace / "first.txt").exists()  # the whole patch, or nothing


async def test_links_inside_are_followed_and_links_out_refused(
        workspace: Path, tmp_path: Path) -> None:
    (workspace / "real").mkdir()
    (workspace / "real" / "f.txt").write_text("inside\n")
    (workspace / "alias").symlink_to("real")
    (workspace / "real" / "up").symlink_to("../real/f.txt")
    (workspace / "absolute").symlink_to(workspace / "real" / "f.txt")
    (workspace / "out").symlink_to("../../")
    assert text(await call("read", {"path": "alias/up"}, workspace)) == "inside"
    assert text(await call("read", {"path": "absolute"}, workspace)) == "inside"
    await call("write", {"path": "alias/new.txt", "content": "via alias"}, workspace)
    assert (workspace / "real" / "new.txt").read_text() == "via alias"
    await call("edit", {"path": "real/up", "oldText": "inside", "newText": "edited"},
               workspace)
    assert (workspace / "real" / "f.txt").read_text() == "edited\n"
    for tool in ("read", "write", "ls"):
        args = {"path": "out/x"} if tool != "write" else {"path": "out/x", "content": "x"}
        with pytest.raises(WorkspacePathEscapeError, match="symlink"):
            await call(tool, args, workspace)
    assert not (tmp_path / "x").exists()


async def test_apply_patch_deletes_a_link_not_what_it_points_to(workspace: Path) -> None:
    (workspace / "target.txt").write_text("keep\n")
    (workspace / "link.txt").symlink_to("target.txt")
    await call("apply_patch", patch("*** Delete File: link.txt"), workspace)
    assert not (workspace / "link.txt").is_symlink()
    assert (workspace / "target.txt").read_text() == "keep\n"


#: swaps `d` (a directory) and `dl` (a link to a directory outside) atomically, as fast
#: as it can (renameat2 RENAME_EXCHANGE): `d` is always one or the other, never absent
FLIPPER = """
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
os.chdir(sys.argv[1])
os.mkdir("d")
os.symlink(sys.argv[2], "dl")
print("ready", flush=True)
while True:
    libc.renameat2(-100, b"d", -100, b"dl", 2)
"""


def test_a_directory_swapped_for_a_link_out_never_leads_out(
        workspace: Path, tmp_path: Path) -> None:
    """A race: another process swaps `d` between a real directory and a link to a
    directory outside while writes go to `d/x.txt`. Resolving by name and then writing
    by name lands outside dozens of times a second; walking by descriptor never does."""
    from clawharness.tools.builtin.fs import _write

    outside = tmp_path / "outside-dir"
    outside.mkdir()
    flipper = subprocess.Popen([sys.executable, "-c", FLIPPER, str(workspace), str(outside)],
                               stdout=subprocess.PIPE, text=True)
    outcomes = {"written": 0, "refused": 0}
    try:
        assert flipper.stdout is not None and flipper.stdout.readline() == "ready\n"
        deadline = time.monotonic() + 2
        while time.monotonic() < deadline:
            try:
                _write(str(workspace), {"path": "d/x.txt", "content": "raced"})
                outcomes["written"] += 1
            except (ToolError, OSError):
                outcomes["refused"] += 1
            assert not (outside / "x.txt").exists(), outcomes
    finally:
        flipper.kill()
        flipper.wait()
    assert outcomes["written"] > 0 and outcomes["refused"] > 0, outcomes


async def test_read_of_a_huge_file_streams_within_a_byte_budget(workspace: Path) -> None:
    big = workspace / "huge.log"
    with big.open("wb") as f:
        f.write(b"first line\nsecond line\n")
        f.write(b"x" * (300 * 1024) + b"\n")   # a line longer than read ever shows
        f.truncate(3 * 1024 * 1024 * 1024)    # 3 GiB, sparse: one endless last line
    tracemalloc.start()
    try:
        started = time.monotonic()
        result = await call("read", {"path": "huge.log", "limit": 3}, workspace)
        elapsed = time.monotonic() - started
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    lines = text(result).splitlines()
    assert lines[:2] == ["first line", "second line"]
    assert len(lines[2]) <= READ_MAX_CHARS
    assert result["details"]["totalLinesKnown"] is False
    assert "the file is 3221225472 bytes" in text(result)
    assert peak < 16 * 1024 * 1024, peak  # nothing near the file's size was held
    assert elapsed < 60
    with pytest.raises(ToolError, match=f"beyond the first {READ_SCAN_BYTES} bytes"):
        await call("read", {"path": "huge.log", "offset": 10_000}, workspace)
