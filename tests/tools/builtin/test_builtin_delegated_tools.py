"""The host tools through a front's backends (`clawharness.tools.builtin.delegated`): the
same answers as the tools working here, paths checked before a backend is asked, and
the sandbox keeping its calls with the host."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from clawharness.config.schema import ClawConfig
from clawharness.errors import ToolError
from clawharness.harness.tool_spec import ToolCallContext, ToolSpec
from clawharness.tools.backends import CommandOutcome, ToolBackends
from clawharness.tools.builtin import core_tool_specs
from clawharness.tools.builtin.delegated import delegate_tools
from clawharness.tools.builtin.fs import READ_MAX_CHARS, READ_MAX_LINES
from clawharness.tools.sandbox.runner import SandboxService


class DiskFiles:
    """A `FileAccess` that reads and writes the disk, as a local editor does, and keeps
    what it was asked."""

    def __init__(self) -> None:
        self.asked: list[tuple[str, str]] = []

    async def read_text(self, path: str, context: ToolCallContext) -> str:
        self.asked.append(("read", path))
        try:
            return Path(path).read_bytes().decode()
        except FileNotFoundError:
            raise ToolError(f"the editor has no file {path}") from None

    async def write_text(self, path: str, content: str, context: ToolCallContext) -> None:
        self.asked.append(("write", path))
        Path(path).write_bytes(content.encode())


class Shell:
    """A `CommandRunner` that runs bash here (an editor's terminal on this machine)."""

    def __init__(self) -> None:
        self.ran: list[tuple[str, str]] = []

    async def run(self, command: str, *, cwd: str, timeout_sec: float, max_output_chars: int,
                  context: ToolCallContext) -> CommandOutcome:
        self.ran.append((command, cwd))
        process = await asyncio.create_subprocess_exec(
            "bash", "-c", command, cwd=cwd, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.STDOUT)
        out, _ = await process.communicate()
        return CommandOutcome(out.decode(), process.returncode)


def context(workspace: Path) -> ToolCallContext:
    return ToolCallContext(call_id="c1", workspace_dir=str(workspace), abort=asyncio.Event(),
                           session_key="agent:main:acp-x", run_id="r1")


def tools(backends: ToolBackends, sandbox: Any = None) -> dict[str, ToolSpec]:
    specs = core_tool_specs(sandbox=sandbox)
    return {t.name: t for t in delegate_tools(specs, backends, sandbox)}


def here() -> dict[str, ToolSpec]:
    return {t.name: t for t in core_tool_specs()}


LONG = "".join(f"line {i}\n" for i in range(1, READ_MAX_LINES + 40))
WIDE = "x" * (READ_MAX_CHARS + 10) + "\nafter\n"


@pytest.mark.parametrize(("content", "args"), [
    ("alpha\nbeta\ngamma\n", {}),
    ("alpha\nbeta\ngamma", {"offset": 2, "limit": 1}),
    ("", {}),
    ("no newline at the end", {}),
    ("crlf\r\nlines\r\n", {}),
    (LONG, {}),
    (LONG, {"offset": READ_MAX_LINES + 5}),
    (WIDE, {}),
])
async def test_a_delegated_read_answers_as_the_read_here(tmp_path: Path, content: str,
                                                         args: dict[str, Any]) -> None:
    (tmp_path / "f.txt").write_text(content)
    files = DiskFiles()
    there = await tools(ToolBackends(files=files))["read"].execute(
        {"path": "f.txt", **args}, context(tmp_path))
    local = await here()["read"].execute({"path": "f.txt", **args}, context(tmp_path))
    assert files.asked == [("read", str(tmp_path / "f.txt"))]
    assert there["content"] == local["content"]
    assert there["details"] == local["details"]


async def test_a_delegated_read_past_the_end_fails_as_here(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("a\nb\n")
    with pytest.raises(ToolError) as there:
        await tools(ToolBackends(files=DiskFiles()))["read"].execute(
            {"path": "f.txt", "offset": 9}, context(tmp_path))
    with pytest.raises(ToolError) as local:
        await here()["read"].execute({"path": "f.txt", "offset": 9}, context(tmp_path))
    assert str(there.value) == str(local.value)


async def test_a_delegated_edit_reads_and_writes_through_the_backend(tmp_path: Path) -> None:
    (tmp_path / "f.py").write_text("a = 1\nb = 2\n")
    files = DiskFiles()
    done = await tools(ToolBackends(files=files))["edit"].execute(
        {"path": "f.py", "oldText": "b = 2", "newText": "b = 3"}, context(tmp_path))
    assert files.asked == [("read", str(tmp_path / "f.py")), ("write", str(tmp_path / "f.py"))]
    assert (tmp_path / "f.py").read_text() == "a = 1\nb = 3\n"
    assert done["details"] == {"path": "f.py", "firstChangedLine": 2}
    (tmp_path / "g.py").write_text("x\nx\n")
    with pytest.raises(ToolError, match=r"occurs 2 times in g\.py"):
        await tools(ToolBackends(files=files))["edit"].execute(
            {"path": "g.py", "oldText": "x", "newText": "y"}, context(tmp_path))


async def test_a_path_outside_the_workspace_never_reaches_the_backend(tmp_path: Path) -> None:
    files = DiskFiles()
    delegated = tools(ToolBackends(files=files))
    with pytest.raises(ToolError, match="outside the workspace"):
        await delegated["write"].execute({"path": "../escape.txt", "content": "x"},
                                         context(tmp_path / "ws"))
    with pytest.raises(ToolError, match="outside the workspace"):
        await delegated["read"].execute({"path": "/etc/passwd"}, context(tmp_path))
    assert files.asked == []


async def test_delegated_exec_reports_as_exec_here(tmp_path: Path) -> None:
    shell = Shell()
    (tmp_path / "sub").mkdir()
    done = await tools(ToolBackends(commands=shell))["exec"].execute(
        {"command": "pwd; exit 4", "workdir": "sub"}, context(tmp_path))
    assert shell.ran == [("pwd; exit 4", str((tmp_path / "sub").resolve()))]
    assert done["isError"] is True
    assert done["content"][0]["text"] == (
        f"{(tmp_path / 'sub').resolve()}\n\nCommand exited with code 4")
    assert done["details"]["exitCode"] == 4 and done["details"]["cwd"] == "sub"


async def test_only_the_core_tools_named_are_delegated(tmp_path: Path) -> None:
    files, shell = DiskFiles(), Shell()
    delegated = tools(ToolBackends(files=files, commands=shell))
    (tmp_path / "d").mkdir()
    listed = await delegated["ls"].execute({}, context(tmp_path))  # ls stays with the host
    assert listed["content"][0]["text"] == "d/"
    assert files.asked == [] and shell.ran == []


async def test_a_read_only_sandbox_keeps_writes_with_the_host(tmp_path: Path) -> None:
    config = ClawConfig.model_validate({"agents": {"defaults": {"sandbox": {
        "mode": "all", "workspaceAccess": "ro"}}}})
    sandbox = SandboxService(config, state_dir=tmp_path / "state").for_agent("main")
    files = DiskFiles()
    delegated = tools(ToolBackends(files=files), sandbox)
    (tmp_path / "f.txt").write_text("keep")
    with pytest.raises(ToolError, match="read-only"):
        await delegated["write"].execute({"path": "f.txt", "content": "x"}, context(tmp_path))
    assert files.asked == [] and (tmp_path / "f.txt").read_text() == "keep"
    # reading is not a change: it still goes through the editor
    await delegated["read"].execute({"path": "f.txt"}, context(tmp_path))
    assert files.asked == [("read", str(tmp_path / "f.txt"))]
