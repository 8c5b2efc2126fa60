"""`exec` in the sandbox: what a command sees (environment, /proc, the workspace as
configured), what kills it (timeout, abort, the end of its shell), and what happens
where no backend works (refused when required, run on the host and said once when not)."""

from __future__ import annotations

import asyncio
import os
import shutil
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sandbox_rig import exec_calls, processes_with, sandbox_host, tool_results, wait_until

from clawharness.config.schema import ClawConfig
from clawharness.harness.tool_spec import ToolCallContext
from clawharness.tools.builtin.exec import exec_tool
from clawharness.tools.sandbox.backends import backend_statuses, clear_backend_cache
from clawharness.tools.sandbox.runner import AgentSandbox, SandboxService

KEY = "agent:main:main"


@pytest.fixture(autouse=True)
def fresh_probes() -> Iterator[None]:
    clear_backend_cache()
    yield
    clear_backend_cache()


@pytest.fixture
def bwrap_works() -> None:
    status = backend_statuses(("bwrap",))["bwrap"]
    if not status.available:
        pytest.skip(f"bubblewrap does not work here: {status.detail}")


def agent_sandbox(state: Path, sandbox: dict[str, Any] | None = None) -> AgentSandbox:
    config = ClawConfig.model_validate(
        {"agents": {"defaults": {"sandbox": sandbox or {"backend": "bwrap"}}}})
    return SandboxService(config, state_dir=state).for_agent("main")


def context(workspace: Path, key: str = KEY) -> ToolCallContext:
    return ToolCallContext(call_id="c", workspace_dir=str(workspace), abort=asyncio.Event(),
                           session_key=key, run_id="r")


def text(result: dict[str, Any]) -> str:
    return "".join(block["text"] for block in result["content"])


@pytest.mark.usefixtures("bwrap_works")
async def test_the_environment_is_built_not_inherited(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEPLOY_TOKEN", "token-canary")
    monkeypatch.setenv("PLAIN_SETTING", "plain-canary")
    monkeypatch.setenv("LC_TIME", "C")
    sandbox = agent_sandbox(tmp_path, {"backend": "bwrap", "env": {"FROM_CONFIG": "yes"}})
    result = await exec_tool(sandbox=sandbox).execute({"command": "env"}, context(tmp_path))
    shown = dict(line.split("=", 1) for line in text(result).splitlines() if "=" in line)
    assert "token-canary" not in text(result) and "plain-canary" not in text(result)
    assert shown["HOME"] == "/tmp" and shown["TMPDIR"] == "/tmp"
    assert shown["FROM_CONFIG"] == "yes" and shown["LC_TIME"] == "C"
    assert result["details"]["sandbox"] == {"sandboxed": True, "backend": "bwrap",
                                            "network": False, "workspaceAccess": "rw"}


@pytest.mark.usefixtures("bwrap_works")
async def test_proc_shows_the_sandboxs_own_processes_only(tmp_path: Path) -> None:
    marker = f"outside-{uuid.uuid4().hex[:10]}"
    outside = await asyncio.create_subprocess_exec("bash", "-c", f"exec -a {marker} sleep 60")
    try:
        result = await exec_tool(sandbox=agent_sandbox(tmp_path)).execute(
            {"command": "cat /proc/[0-9]*/cmdline | tr '\\0' ' '; echo; "
                        "ls /proc | grep -cE '^[0-9]+$'"}, context(tmp_path))
    finally:
        outside.kill()
        await outside.wait()
    body = text(result)
    assert marker not in body
    assert int(body.split()[-1]) < 10  # bwrap's init, the shell and its children


@pytest.mark.usefixtures("bwrap_works")
async def test_background_processes_end_with_the_command(tmp_path: Path) -> None:
    marker = f"bg-{uuid.uuid4().hex[:10]}"
    result = await exec_tool(sandbox=agent_sandbox(tmp_path), timeout_sec=30).execute(
        {"command": f"(exec -a {marker} sleep 300) & disown; setsid bash -c "
                    f"'exec -a {marker} sleep 300' & echo started"}, context(tmp_path))
    assert text(result) == "started"
    assert await wait_until(lambda: not processes_with(marker))


@pytest.mark.usefixtures("bwrap_works")
async def test_a_timeout_kills_everything_the_command_started(tmp_path: Path) -> None:
    marker = f"slow-{uuid.uuid4().hex[:10]}"
    result = await exec_tool(sandbox=agent_sandbox(tmp_path), timeout_sec=1).execute(
        {"command": f"(exec -a {marker} sleep 300) & exec -a {marker} sleep 300"},
        context(tmp_path))
    assert result["details"]["timedOut"] is True
    assert await wait_until(lambda: not processes_with(marker))


@pytest.mark.usefixtures("bwrap_works")
async def test_an_abort_kills_the_sandboxed_command(tmp_path: Path) -> None:
    marker = f"abort-{uuid.uuid4().hex[:10]}"
    call = asyncio.ensure_future(exec_tool(sandbox=agent_sandbox(tmp_path)).execute(
        {"command": f"setsid bash -c 'exec -a {marker} sleep 300' & wait"}, context(tmp_path)))
    assert await wait_until(lambda: bool(processes_with(marker)))
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call
    assert await wait_until(lambda: not processes_with(marker))


@pytest.mark.usefixtures("bwrap_works")
async def test_a_read_only_workspace_is_read_not_written(tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "data.txt").write_text("keep\n")
    script = {"responses": [
        exec_calls("cat data.txt", "echo gone > data.txt; touch new.txt"),
        {"tool_calls": [{"name": "write", "arguments": {"path": "data.txt",
                                                         "content": "overwritten"}}]},
        {"text": "read only"}]}
    sandbox = {"mode": "all", "backend": "bwrap", "workspaceAccess": "ro"}
    async with sandbox_host(tmp_path, script, sandbox=sandbox) as host:
        result = await host.run_turn(KEY, "try to write")
        texts = await tool_results(host, KEY)
    assert result.text == "read only"
    assert texts[0] == "keep"
    assert "Read-only file system" in texts[1]
    assert 'agents.defaults.sandbox.workspaceAccess is "ro"' in texts[2]
    assert (workspace / "data.txt").read_text() == "keep\n"
    assert not (workspace / "new.txt").exists()


@pytest.mark.usefixtures("bwrap_works")
async def test_workspace_access_none_gives_the_sandbox_a_workspace_of_its_own(
        tmp_path: Path) -> None:
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "agent-file.txt").write_text("the agent's\n")
    script = {"responses": [
        exec_calls("ls; echo made > made.txt; pwd"),
        {"tool_calls": [{"name": "read", "arguments": {"path": "made.txt"}}]},
        {"text": "own workspace"}]}
    async with sandbox_host(tmp_path, script, sandbox={"mode": "all"}) as host:
        result = await host.run_turn(KEY, "where am I")
        texts = await tool_results(host, KEY)
    own = tmp_path / "state" / "sandboxes" / "agent-main"
    assert result.text == "own workspace"
    assert "agent-file.txt" not in texts[0]
    assert texts[0].splitlines()[-1] == os.path.realpath(own)
    assert texts[1].startswith("made")
    assert (own / "made.txt").read_text() == "made\n"
    assert sorted(p.name for p in workspace.iterdir()) == ["agent-file.txt"]


@pytest.mark.usefixtures("bwrap_works")
async def test_non_main_leaves_the_main_session_on_the_host(tmp_path: Path) -> None:
    probe = exec_calls("cat /proc/sys/kernel/hostname")
    script = {"responses": [probe, {"text": "main"}, probe, {"text": "other"}]}
    sandbox = {"mode": "non-main", "workspaceAccess": "rw"}
    async with sandbox_host(tmp_path, script, sandbox=sandbox) as host:
        await host.run_turn(KEY, "main session")
        await host.run_turn("agent:main:group-42", "another session")
        main_texts = await tool_results(host, KEY)
        other_texts = await tool_results(host, "agent:main:group-42")
    assert main_texts == [Path("/proc/sys/kernel/hostname").read_text().strip()]
    assert other_texts == ["clawharness-sandbox"]


def _path_without_bwrap(tmp_path: Path) -> str:
    """A PATH where bash and coreutils resolve but bwrap does not."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "touch", "cat", "echo", "prlimit", "docker"):
        found = shutil.which(tool)
        if found and tool not in ("docker",):
            (bin_dir / tool).symlink_to(found)
    return str(bin_dir)


async def test_a_required_sandbox_with_no_backend_refuses_the_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", _path_without_bwrap(tmp_path))
    marker = tmp_path / "workspace" / "ran"
    script = {"responses": [exec_calls(f"touch {marker}"), {"text": "refused"}]}
    async with sandbox_host(tmp_path, script,
                            sandbox={"mode": "all", "workspaceAccess": "rw"}) as host:
        result = await host.run_turn(KEY, "run it")
        [refusal] = await tool_results(host, KEY)
    assert result.text == "refused"
    assert result.tool_calls[0].is_error is True
    assert "agents.defaults.sandbox.mode asks for a sandbox and none works here" in refusal
    assert "bwrap is not on PATH" in refusal
    assert not marker.exists()


async def test_no_backend_runs_on_the_host_and_says_so_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", _path_without_bwrap(tmp_path))
    outside = tmp_path / "outside-marker"
    script = {"responses": [exec_calls(f"touch {outside}", "echo second"),
                            {"text": "ran on the host"}]}
    async with sandbox_host(tmp_path, script) as host:
        result = await host.run_turn(KEY, "run it")
        texts = await tool_results(host, KEY)
    assert result.text == "ran on the host"
    assert outside.exists()  # no sandbox: the host's file system
    assert "[note: no OS sandbox: exec runs on the host" in texts[0]
    assert "apt-get install bubblewrap" in texts[0]
    assert texts[1] == "second"


async def test_mode_off_runs_on_the_host_without_a_word(tmp_path: Path) -> None:
    outside = tmp_path / "outside-marker"
    script = {"responses": [exec_calls(f"touch {outside} && echo ok"), {"text": "done"}]}
    async with sandbox_host(tmp_path, script, sandbox={"mode": "off"}) as host:
        await host.run_turn(KEY, "run it")
        texts = await tool_results(host, KEY)
    assert texts == ["ok"] and outside.exists()
