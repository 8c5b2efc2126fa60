"""read, write, edit, ls and apply_patch: behaviour and workspace confinement."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from clawharness.config.schema import ToolsConfig
from clawharness.errors import ToolError, WorkspacePathEscapeError
from clawharness.harness.types import ToolCallContext, ToolSpec
from clawharness.tools.builtin import core_tool_specs


def tools(config: ToolsConfig | None = None) -> dict[str, ToolSpec]:
    return {t.name: t for t in core_tool_specs(config)}


async def call(tool: str, args: Mapping[str, Any], workspace: Path) -> dict[str, Any]:
    ctx = ToolCallContext(call_id="c1", workspace_dir=str(workspace), abort=asyncio.Event(),
                          session_key="agent:main:main", run_id="r1")
    return await tools()[tool].execute(args, ctx)


def text(result: dict[str, Any]) -> str:
    return "".join(b["text"] for b in result["content"])


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    (tmp_path / "outside.txt").write_text("SECRET\n")
    (root / "escape").symlink_to(tmp_path / "outside.txt")
    return root


def test_core_tools_offer_web_fetch_only_when_enabled() -> None:
    assert "web_fetch" not in tools()
    assert set(tools()) == {"read", "write", "edit", "apply_patch", "exec", "ls"}
    enabled = ToolsConfig.model_validate({"web": {"fetch": {"enabled": True}}})
    assert "web_fetch" in tools(enabled)


async def test_write_then_read(workspace: Path) -> None:
    result = await call("write", {"path": "d/e/f.txt", "content": "one\ntwo\nthree\n"}, workspace)
    assert result["details"]["created"] is True
    assert (workspace / "d/e/f.txt").read_text() == "one\ntwo\nthree\n"
    assert text(await call("read", {"path": "d/e/f.txt"}, workspace)) == "one\ntwo\nthree"
    paged = await call("read", {"path": "d/e/f.txt", "offset": 2, "limit": 1}, workspace)
    assert text(paged).startswith("two\n\n[Showing lines 2-2 of 3. Use offset=3 to continue.]")


async def test_read_missing_and_binary(workspace: Path) -> None:
    with pytest.raises(ToolError, match="file not found"):
        await call("read", {"path": "nope.txt"}, workspace)
    (workspace / "b.bin").write_bytes(b"\x00\x01\x02")
    with pytest.raises(ToolError, match="binary"):
        await call("read", {"path": "b.bin"}, workspace)


async def test_edit_replaces_exactly_once(workspace: Path) -> None:
    target = workspace / "code.py"
    target.write_text("a = 1\nb = 2\nb = 2\n")
    result = await call("edit", {"path": "code.py", "oldText": "a = 1", "newText": "a = 10"},
                        workspace)
    assert result["details"]["firstChangedLine"] == 1
    assert target.read_text() == "a = 10\nb = 2\nb = 2\n"
    with pytest.raises(ToolError, match="occurs 2 times"):
        await call("edit", {"path": "code.py", "oldText": "b = 2", "newText": "x"}, workspace)
    with pytest.raises(ToolError, match="not found"):
        await call("edit", {"path": "code.py", "oldText": "zzz", "newText": "x"}, workspace)
    assert target.read_text() == "a = 10\nb = 2\nb = 2\n"


async def test_ls_lists_sorted_with_dir_markers(workspace: Path) -> None:
    (workspace / "Zeta").mkdir()
    (workspace / "alpha.txt").write_text("")
    listing = text(await call("ls", {}, workspace)).splitlines()
    assert listing == ["alpha.txt", "escape", "Zeta/"]


async def test_missing_argument_is_a_clear_error(workspace: Path) -> None:
    with pytest.raises(ToolError, match="'path' is missing"):
        await call("read", {}, workspace)


ESCAPES = ["../outside.txt", "/etc/hostname", "escape"]

TOOL_ARGS = {
    "read": lambda p: {"path": p},
    "write": lambda p: {"path": p, "content": "pwned"},
    "edit": lambda p: {"path": p, "oldText": "SECRET", "newText": "pwned"},
    "ls": lambda p: {"path": p},
    "apply_patch": lambda p: {"input": f"*** Begin Patch\n*** Add File: {p}\n+pwned\n"
                                       "*** End Patch"},
}


@pytest.mark.parametrize("tool", sorted(TOOL_ARGS))
@pytest.mark.parametrize("path", ESCAPES)
async def test_every_file_tool_refuses_escapes(
    workspace: Path, tmp_path: Path, tool: str, path: str
) -> None:
    with pytest.raises(WorkspacePathEscapeError):
        await call(tool, TOOL_ARGS[tool](path), workspace)
    assert (tmp_path / "outside.txt").read_text() == "SECRET\n"


async def test_exec_workdir_escape_is_refused(workspace: Path) -> None:
    with pytest.raises(WorkspacePathEscapeError):
        await call("exec", {"command": "pwd", "workdir": "../"}, workspace)


async def test_read_of_a_large_file_goes_through_a_thread_and_pages(workspace: Path) -> None:
    from clawharness.tools.builtin.fs import READ_INLINE_BYTES

    line = "x" * 99 + "\n"
    (workspace / "big.txt").write_text(line * (READ_INLINE_BYTES // 100 + 500))
    result = await call("read", {"path": "big.txt", "offset": 2001, "limit": 2}, workspace)
    assert text(result).startswith(line + line[:-1] + "\n\n[Showing lines 2001-2002 of ")
    assert result["details"]["startLine"] == 2001


async def test_read_refuses_a_directory_a_pipe_and_a_dangling_link_out(
    workspace: Path, tmp_path: Path
) -> None:
    import os

    (workspace / "dir").mkdir()
    with pytest.raises(ToolError, match="is a directory"):
        await call("read", {"path": "dir"}, workspace)
    os.mkfifo(workspace / "pipe")  # opening it must neither block nor read it
    with pytest.raises(ToolError, match="not a regular file"):
        await asyncio.wait_for(call("read", {"path": "pipe"}, workspace), timeout=5)
    (workspace / "gone").symlink_to(tmp_path / "missing-outside.txt")
    with pytest.raises(WorkspacePathEscapeError, match="symlink"):
        await call("read", {"path": "gone"}, workspace)
    with pytest.raises(ToolError, match="file not found"):
        await call("read", {"path": "dir/nope/deeper.txt"}, workspace)


async def test_read_checks_the_file_it_opened_through_a_link_inside(workspace: Path) -> None:
    (workspace / "real.txt").write_text("inside\n")
    (workspace / "alias.txt").symlink_to(workspace / "real.txt")
    result = await call("read", {"path": "alias.txt"}, workspace)
    assert text(result) == "inside"
    assert result["details"]["path"] == "real.txt"


# --- one bad entry does not hide a directory (issue 14, item 5) -------------------------


@pytest.fixture
def tangled(workspace: Path) -> Path:
    """A workspace with a symlink loop, a self-loop, a dangling link and good entries."""
    (workspace / "loop_a").symlink_to(workspace / "loop_b")
    (workspace / "loop_b").symlink_to(workspace / "loop_a")
    (workspace / "self").symlink_to(workspace / "self")
    (workspace / "dangling").symlink_to(workspace / "nothing-here")
    (workspace / "src").mkdir()
    (workspace / "notes.md").write_text("x")
    return workspace


async def test_ls_lists_what_it_can_and_marks_unreadable_entries(tangled: Path) -> None:
    result = await call("ls", {}, tangled)
    lines = text(result).splitlines()
    assert "src/" in lines and "notes.md" in lines and "escape" in lines
    loops = [line for line in lines if line.startswith(("loop_a", "loop_b", "self"))]
    assert len(loops) == 3
    assert all("[unreadable: a symbolic link loop" in line for line in loops)
    assert "dangling  [broken symbolic link]" in lines
    assert result["details"]["entries"] == 7
    assert result["details"]["unreadable"] == 4
    assert not result.get("isError")


async def test_ls_of_a_loop_says_so(tangled: Path) -> None:
    with pytest.raises(ToolError, match="cannot list loop_a: a symbolic link loop"):
        await call("ls", {"path": "loop_a"}, tangled)


async def test_write_and_edit_through_a_loop_name_the_loop(tangled: Path) -> None:
    with pytest.raises(ToolError, match="cannot write self: a symbolic link loop"):
        await call("write", {"path": "self", "content": "x"}, tangled)
    with pytest.raises(ToolError, match="cannot read self: a symbolic link loop"):
        await call("edit", {"path": "self", "oldText": "a", "newText": "b"}, tangled)
    with pytest.raises(ToolError, match="cannot read loop_a: a symbolic link loop"):
        await call("read", {"path": "loop_a"}, tangled)


async def test_apply_patch_on_a_loop_or_a_binary_file_is_a_patch_error(tangled: Path) -> None:
    (tangled / "blob.bin").write_bytes(b"\xff\xfe\x00\x01")
    update = "*** Begin Patch\n*** Update File: {}\n@@\n-a\n+b\n*** End Patch"
    with pytest.raises(ToolError, match="cannot read self"):
        await call("apply_patch", {"input": update.format("self")}, tangled)
    with pytest.raises(ToolError, match=r"blob\.bin is not UTF-8 text"):
        await call("apply_patch", {"input": update.format("blob.bin")}, tangled)


LONG = "x" * 300  # past NAME_MAX: every stat of it fails with ENAMETOOLONG

TOO_LONG = {
    "read": {"path": LONG}, "write": {"path": LONG, "content": "x"},
    "edit": {"path": LONG, "oldText": "a", "newText": "b"}, "ls": {"path": LONG},
    "exec": {"command": "true", "workdir": LONG},
    **{f"apply_patch {kind}": {"input": f"*** Begin Patch\n*** {kind} File: {LONG}\n{body}"
                                        "*** End Patch"}
       for kind, body in (("Add", "+x\n"), ("Update", "@@\n-a\n+b\n"), ("Delete", ""))},
}


@pytest.mark.parametrize("case", sorted(TOO_LONG))
async def test_a_name_too_long_for_the_file_system_is_a_tool_error(
        workspace: Path, case: str) -> None:
    before = sorted(p.name for p in workspace.iterdir())
    with pytest.raises(ToolError, match=r"x{300}'?: .*too long"):
        await call(case.split()[0], TOO_LONG[case], workspace)
    assert sorted(p.name for p in workspace.iterdir()) == before


# --- read opens what the walk saw, and reads a small file whole --------------------------


@pytest.mark.parametrize("swap", ["file", "fifo"])
def test_read_refuses_a_name_swapped_between_the_walk_and_the_open(
        workspace: Path, swap: str) -> None:
    """The walk's lstat is the look before opening: a name swapped after it (another
    file, a FIFO) fails the identity check after opening, without blocking."""
    import os

    from clawharness.tools.builtin.confined import (
        SpecialFileError,
        open_for_reading,
        resolve_open,
    )

    (workspace / "f.txt").write_text("first\n")
    found = resolve_open(str(workspace), "f.txt")
    try:
        assert found.seen is not None
        if swap == "file":
            (workspace / "other.txt").write_text("second\n")
            os.replace(workspace / "other.txt", workspace / "f.txt")
        else:
            os.mkfifo(workspace / "pipe")
            os.replace(workspace / "pipe", workspace / "f.txt")
        with pytest.raises(SpecialFileError, match="changed while it was being opened"):
            open_for_reading(found)
    finally:
        found.close()


def test_read_of_a_small_file_that_grew_since_it_was_opened_shows_all_of_it(
        workspace: Path) -> None:
    import os

    from clawharness.tools.builtin._fs_read import _read_small

    (workspace / "log.txt").write_text("one\ntwo\nthree\n")
    fd = os.open(workspace / "log.txt", os.O_RDONLY)
    # as opened it was 4 bytes ("one\n"): the rest came after, and is read as well
    result = _read_small(fd, "log.txt", 4, 1, 10)
    assert text(result) == "one\ntwo\nthree"
    assert result["details"]["totalLines"] == 3
    with pytest.raises(OSError):
        os.fstat(fd)  # closed


async def test_read_looks_for_a_nul_in_the_first_sniff_bytes_of_a_small_file(
        workspace: Path) -> None:
    from clawharness.tools.builtin._fs_common import SNIFF_BYTES

    (workspace / "late.bin").write_bytes(b"a" * (SNIFF_BYTES - 10) + b"\x00" + b"b\n" * 50)
    with pytest.raises(ToolError, match="binary"):
        await call("read", {"path": "late.bin"}, workspace)
    (workspace / "later.txt").write_bytes(b"a" * SNIFF_BYTES + b"\x00\n")
    assert text(await call("read", {"path": "later.txt"}, workspace)).startswith("aaa")
