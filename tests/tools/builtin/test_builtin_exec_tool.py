"""exec: bash -c in the workspace, own process group, timeout/abort kill the whole group."""

from __future__ import annotations

import asyncio
import os
import time
from pathlib import Path
from typing import Any

import pytest

from clawharness.harness.types import ToolCallContext
from clawharness.tools.builtin.exec import exec_tool, run_command


def alive(pid: int) -> bool:
    """True while `pid` runs (a zombie awaiting its reaper counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


async def wait_until(predicate: Any, timeout: float = 5.0) -> bool:
    """Poll `predicate` until true or `timeout` seconds pass."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if predicate():
            return True
        await asyncio.sleep(0.01)
    return bool(predicate())


def ctx(workspace: Path) -> ToolCallContext:
    return ToolCallContext(call_id="c", workspace_dir=str(workspace), abort=asyncio.Event(),
                           session_key="agent:main:main", run_id="r")


def text(result: dict[str, Any]) -> str:
    return "".join(b["text"] for b in result["content"])


async def test_output_and_exit_code(tmp_path: Path) -> None:
    result = await exec_tool().execute({"command": "echo out; echo err >&2; exit 4"},
                                       ctx(tmp_path))
    assert result["isError"] is True
    assert result["details"]["exitCode"] == 4
    assert "out" in text(result) and "err" in text(result)
    assert text(result).endswith("Command exited with code 4")
    ok = await exec_tool().execute({"command": "pwd"}, ctx(tmp_path))
    assert "isError" not in ok
    assert text(ok) == os.path.realpath(tmp_path)


async def test_workdir_inside_the_workspace(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    result = await exec_tool().execute({"command": "pwd", "workdir": "sub"}, ctx(tmp_path))
    assert text(result) == os.path.realpath(tmp_path / "sub")


async def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "child.pid"
    tool = exec_tool(timeout_sec=0.5)
    result = await tool.execute(
        {"command": f"sleep 60 & echo $! > {pid_file}; echo started; sleep 60"}, ctx(tmp_path))
    assert result["isError"] is True
    assert result["details"]["timedOut"] is True
    assert "started" in text(result)
    assert "timed out after 0.5 seconds" in text(result)
    child = int(pid_file.read_text())
    shell = result["details"]["pid"]
    assert await wait_until(lambda: not alive(child) and not alive(shell))


async def test_model_may_shorten_but_not_extend_the_timeout(tmp_path: Path) -> None:
    result = await exec_tool(timeout_sec=0.5).execute(
        {"command": "sleep 30", "timeout": 999}, ctx(tmp_path))
    assert result["details"]["timedOut"] is True
    assert result["details"]["durationMs"] < 10_000


async def test_cancellation_kills_the_process_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    task = asyncio.create_task(run_command(
        f"sleep 60 & echo $$ $! > {pid_file}; wait", cwd=str(tmp_path), timeout_sec=60,
        max_output_chars=1000))
    assert await wait_until(lambda: pid_file.exists() and pid_file.read_text().count(" ") == 1,
                            timeout=15.0)
    shell, child = (int(p) for p in pid_file.read_text().split())
    assert alive(shell) and alive(child)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # generous: on a loaded 2-core machine the kernel may take a while to reap both
    assert await wait_until(lambda: not alive(shell) and not alive(child), timeout=15.0)


async def test_background_leftovers_do_not_hold_the_call(tmp_path: Path) -> None:
    pid_file = tmp_path / "bg.pid"
    started = time.monotonic()
    result = await exec_tool(timeout_sec=30).execute(
        {"command": f"sleep 60 & echo $! > {pid_file}; echo done"}, ctx(tmp_path))
    assert time.monotonic() - started < 10
    assert text(result) == "done"
    assert await wait_until(lambda: not alive(int(pid_file.read_text())))


async def test_output_is_capped_to_its_tail(tmp_path: Path) -> None:
    result = await exec_tool(max_output_chars=1000).execute(
        {"command": "seq 1 50000"}, ctx(tmp_path))
    body = text(result)
    assert result["details"]["truncated"] is True
    assert body.startswith("[output truncated: showing the last 1000 characters]")
    assert body.rstrip().endswith("50000")
    assert len(body) < 1100


async def test_exec_never_hands_credentials_to_the_command(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from clawharness.tools.builtin.exec import run_command

    monkeypatch.setenv("OPENAI_API_KEY", "sk-should-not-leak")
    monkeypatch.setenv("CLAWHARNESS_GATEWAY_TOKEN", "tok-should-not-leak")
    monkeypatch.setenv("HARMLESS_SETTING", "visible")
    outcome = await run_command("env", cwd=str(tmp_path), timeout_sec=10, max_output_chars=100_000)
    text = str(outcome)
    assert "sk-should-not-leak" not in text and "tok-should-not-leak" not in text
    assert "HARMLESS_SETTING=visible" in text


async def test_exec_drops_secrets_by_the_shape_of_their_value_too(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # issue 31: only the name was judged, so these reached every command
    dropped = {
        "DATABASE_URL": "postgres://app:hunter2-pass@db.example.com/app",
        "REDIS_URL": "rediss://default:r3dis-pass@cache.example.com:6380",
        "GH_PAT": "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
        "MYSQL_PWD": "pw123",
        "SENTRY_DSN": "https://abc123def456@o1.ingest.sentry.io/1",
        "OTEL_EXPORTER_OTLP_HEADERS": "api-key=abcd1234efgh5678",
        "GIT_REMOTE": "https://x-access:ghp_abcdefghijklmnopqrstuvwxyz0123456789@github.com/o/r",
        "DEPLOY_HOOK": "https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXXXXXXXXXX",
        "UPSTREAM": "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEF",
        "HTTP_AUTHORIZATION": "Basic dXNlcjpwYXNz",
    }
    kept = {"PUBLIC_DATABASE_URL": "postgres://db.example.com/app", "LANG": "C.UTF-8",
            "GIT_AUTHOR_NAME": "Ada", "HOME_PAGE_URL": "https://example.com/docs"}
    for name, value in {**dropped, **kept}.items():
        monkeypatch.setenv(name, value)
    outcome = await run_command("env", cwd=str(tmp_path), timeout_sec=10,
                                max_output_chars=100_000)
    seen = dict(line.split("=", 1) for line in outcome.output.splitlines() if "=" in line)
    assert {name for name in dropped if name in seen} == set()
    assert {name: seen.get(name) for name in kept} == kept
    assert "PWD" in seen  # the shell's own working directory is no secret


async def test_unsandboxed_exec_ignores_the_hosts_shell_start_up_hooks(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    # issue 31: the host's environment went to `bash -c` as it was, so an exported
    # function replaced `echo`, BASH_ENV sourced a file and PS4/xtrace ran commands
    marker = tmp_path / "ran"
    hook = tmp_path / "hook.sh"
    hook.write_text(f"touch {marker}-bash-env\n")
    hostile = {
        "BASH_FUNC_echo%%": f"() {{ touch {marker}-function; }}",
        "BASH_ENV": str(hook), "ENV": str(hook),
        "SHELLOPTS": "xtrace", "BASHOPTS": "xpg_echo", "PS4": f"$(touch {marker}-ps4)",
        "PROMPT_COMMAND": f"touch {marker}-prompt",
        "IFS": "e", "CDPATH": "/", "GLOBIGNORE": "*",
        "LD_PRELOAD": "/nonexistent/evil.so", "LD_LIBRARY_PATH": "/nonexistent",
        "LD_AUDIT": "/nonexistent/audit.so", "PYTHONSTARTUP": str(hook),
    }
    for name, value in hostile.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("HARMLESS_SETTING", "visible")
    (tmp_path / "a.txt").write_text("x")
    outcome = await run_command("echo hello; ls *.txt; env", cwd=str(tmp_path),
                                timeout_sec=10, max_output_chars=100_000)
    assert outcome.exit_code == 0, outcome.output
    lines = outcome.output.splitlines()
    assert lines[:2] == ["hello", "a.txt"]  # the real echo, globbing as usual
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "hook.sh"]
    seen = {line.split("=", 1)[0] for line in lines if "=" in line}
    assert {name for name in hostile if name in seen} == set()
    assert "HARMLESS_SETTING" in seen and "PATH" in seen
