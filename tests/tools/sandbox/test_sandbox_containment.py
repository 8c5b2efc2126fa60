"""The sandbox holds, end to end: a scripted model asks `Host.run_turn` to run commands
that read the home directory's keys, write outside the workspace, reach 127.0.0.1 or
fork without end, through the real exec tool and the real backend (bubblewrap; Docker
where a daemon answers). Held means nothing outside the workspace changed, and the turn
goes on to its end."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sandbox_rig import (
    exec_calls,
    processes_with,
    sandbox_host,
    snapshot,
    tool_results,
    wait_until,
)

from clawharness.config.schema import ClawConfig
from clawharness.tools.sandbox.backends import (
    BackendStatus,
    backend_statuses,
    clear_backend_cache,
)
from clawharness.tools.sandbox.runner import SandboxService

KEY = "agent:main:main"


@pytest.fixture(params=["bwrap", "docker"])
def backend(request: pytest.FixtureRequest) -> Iterator[str]:
    clear_backend_cache()
    status: BackendStatus = backend_statuses((request.param,))[request.param]
    if not status.available:
        pytest.skip(f"the {request.param} backend does not work here: {status.detail}")
    yield request.param
    clear_backend_cache()


def required(backend: str, **extra: Any) -> dict[str, Any]:
    """A sandbox block that must use `backend`, with the workspace read-write."""
    return {"mode": "all", "backend": backend, "workspaceAccess": "rw", **extra}


async def test_the_home_directorys_keys_stay_out_of_reach(
        tmp_path: Path, backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    key = home / ".ssh" / "id_ed25519"
    key.write_text("ssh-key-canary-7f3a\n")
    monkeypatch.setenv("HOME", str(home))
    script = {"responses": [
        exec_calls(f"cat {key}", "cat ~/.ssh/id_ed25519", f"ls -a {home}/.ssh",
                   "cat /root/.ssh/* 2>&1; echo home=$HOME"),
        {"text": "looked"}]}
    async with sandbox_host(tmp_path, script, sandbox=required(backend)) as host:
        result = await host.run_turn(KEY, "read the keys")
        texts = await tool_results(host, KEY)
    assert result.text == "looked"
    assert len(texts) == 4
    assert not any("ssh-key-canary-7f3a" in text for text in texts), texts
    assert "No such file or directory" in texts[0]
    assert "home=/tmp" in texts[3]


async def test_a_workspace_at_home_hides_the_homes_dot_files(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    clear_backend_cache()
    home = tmp_path / "workspace"  # the workspace is the home directory itself
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("ssh-key-canary-91c2\n")
    (home / ".netrc").write_text("machine x password netrc-canary\n")
    (home / "notes.txt").write_text("visible notes\n")
    monkeypatch.setenv("HOME", str(home))
    script = {"responses": [
        exec_calls("cat notes.txt", "cat .ssh/id_rsa; ls -a .ssh", "cat .netrc",
                   "echo x > .netrc; rm -rf .ssh"),
        {"text": "done"}]}
    before = snapshot(home, skip=[home / "notes.txt"])
    async with sandbox_host(tmp_path, script, sandbox={"backend": "bwrap"}) as host:
        result = await host.run_turn(KEY, "look around")
        texts = await tool_results(host, KEY)
    assert result.text == "done"
    assert texts[0] == "visible notes"
    assert not any("canary" in text for text in texts), texts
    assert snapshot(home, skip=[home / "notes.txt"]) == before


async def test_nothing_outside_the_workspace_changes(
        tmp_path: Path, backend: str) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("original\n")
    other = tmp_path / "other-workspace"
    other.mkdir()
    state = tmp_path / "state"
    escape = f"sandbox-escape-{uuid.uuid4().hex}"
    commands = [
        f"echo changed > {outside}/keep.txt", f"touch {outside}/new.txt",
        f"rm -rf {outside}", f"echo x >> {state}/config.json5",
        f"echo garbage > {state}/clawharness.db", f"rm -rf {state}",
        f"touch {other}/planted.txt", f"touch /tmp/{escape}", f"touch /etc/{escape}",
        f"touch /usr/{escape}", f"ln -s / {tmp_path}/{escape}",
        "touch inside.txt && echo made-inside",
    ]
    script = {"responses": [exec_calls(*commands), {"text": "tried everything"}]}
    agents = {"other": {"workspace": str(other)}}
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    host_files = [state / "clawharness.db", state / "clawharness.db-wal",
                  state / "clawharness.db-shm", state / "clawharness.db-search",
                  state / "clawharness.db-search-wal", state / "clawharness.db-search-shm"]
    async with sandbox_host(tmp_path, script, sandbox=required(backend),
                            agents=agents) as host:
        before = snapshot(tmp_path, skip=[workspace, *host_files])
        result = await host.run_turn(KEY, "break out")
        texts = await tool_results(host, KEY)
        # the store is the host's to write; the sandbox never saw it
        history = await host.history(KEY)
    assert result.text == "tried everything"
    assert len(history) >= 4
    assert snapshot(tmp_path, skip=[workspace, *host_files]) == before
    assert (state / "clawharness.db").read_bytes()[:16] == b"SQLite format 3\x00"
    for root in ("/tmp", "/etc", "/usr"):
        assert not Path(root, escape).exists()
    assert (workspace / "inside.txt").exists() and texts[-1] == "made-inside"


async def test_the_host_state_dir_inside_the_workspace_is_masked(tmp_path: Path) -> None:
    clear_backend_cache()
    # the workspace is the whole test root, so the state dir (and store) lie inside it
    state = tmp_path / "state"
    script = {"responses": [
        exec_calls("ls -a state", "cat state/config.json5",
                   "echo x > state/config.json5; rm -f state/clawharness.db"),
        {"text": "done"}]}
    async with sandbox_host(tmp_path, script, sandbox={"backend": "bwrap"},
                            workspace=tmp_path) as host:
        config_before = (state / "config.json5").read_text()
        result = await host.run_turn(KEY, "poke the state dir")
        texts = await tool_results(host, KEY)
    assert result.text == "done"
    assert texts[0].split() == [".", ".."]
    assert "scripted" not in texts[1]
    assert (state / "config.json5").read_text() == config_before
    assert (state / "clawharness.db").exists()


async def test_no_connection_reaches_127_0_0_1_unless_network_is_on(
        tmp_path: Path, backend: str) -> None:
    accepted = 0

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal accepted
        accepted += 1
        writer.close()

    server = await asyncio.start_server(on_connect, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    probe = (f"(exec 3<>/dev/tcp/127.0.0.1/{port} && echo CONNECTED) 2>&1; "
             f"(exec 3<>/dev/tcp/localhost/{port} && echo CONNECTED) 2>&1; true")
    try:
        script = {"responses": [exec_calls(probe), {"text": "no luck"}]}
        async with sandbox_host(tmp_path / "off", script, sandbox=required(backend)) as host:
            result = await host.run_turn(KEY, "call home")
            [text] = await tool_results(host, KEY)
        assert result.text == "no luck"
        assert "CONNECTED" not in text
        assert accepted == 0
        if backend == "docker":
            return  # a container's 127.0.0.1 is its own even with network on
        # the same command with network allowed does connect: the test can tell
        script = {"responses": [exec_calls(probe), {"text": "got through"}]}
        async with sandbox_host(tmp_path / "on", script,
                                sandbox=required(backend, network=True)) as host:
            await host.run_turn(KEY, "call home")
            [text] = await tool_results(host, KEY)
        assert "CONNECTED" in text
        assert accepted >= 1
    finally:
        server.close()
        await server.wait_closed()


async def test_a_fork_bomb_is_bounded_and_the_turn_goes_on(
        tmp_path: Path, backend: str) -> None:
    if backend == "bwrap":
        service = SandboxService(ClawConfig(), state_dir=tmp_path)
        if service.process_limit_by() == "none":
            pytest.skip("root with no writable pids cgroup: the process limit cannot hold "
                        f"here ({service.pids_cgroups().unavailable})")
    marker = f"forkbomb-{uuid.uuid4().hex[:12]}"
    # the first shell waits a while: `wait` alone returns as soon as its own two children
    # have forked theirs, and on a slow machine the group could be killed (held, but by
    # the end of the call) before the bomb reached the limit this test is about
    bomb = f"exec -a {marker} bash -c ':(){{ :|:& }};:; sleep 2; wait'"
    script = {"responses": [exec_calls(bomb), exec_calls("echo still-standing"),
                            {"text": "survived"}]}
    tools = {"exec": {"security": "full", "ask": "off", "timeoutSec": 6}}
    async with sandbox_host(tmp_path, script, tools=tools,
                            sandbox=required(backend, limits={"processes": 64})) as host:
        result = await host.run_turn(KEY, "fork away")
        texts = await tool_results(host, KEY)
    assert result.text == "survived"
    assert "Resource temporarily unavailable" in texts[0]  # the limit is what stopped it
    assert texts[1] == "still-standing"
    assert await wait_until(lambda: not processes_with(marker)), processes_with(marker)


async def test_limits_stop_memory_file_size_and_cpu_hogs(tmp_path: Path) -> None:
    clear_backend_cache()
    script = {"responses": [
        exec_calls("python3 -c 'b = bytearray(512 * 1024 * 1024); print(\"allocated\")'",
                   "head -c 5000000 /dev/zero > big.bin; stat -c %s big.bin",
                   "while :; do :; done"),
        {"text": "limited"}]}
    limits = {"memoryMb": 64, "fileSizeMb": 1, "cpuSeconds": 1}
    async with sandbox_host(tmp_path, script,
                            sandbox={"backend": "bwrap", "limits": limits}) as host:
        result = await host.run_turn(KEY, "hog")
        texts = await tool_results(host, KEY)
    assert result.text == "limited"
    assert "MemoryError" in texts[0] and "allocated" not in texts[0]
    assert "File size limit exceeded" in texts[1]
    assert (tmp_path / "workspace" / "big.bin").stat().st_size <= 1024 * 1024
    assert "timed out" not in texts[2] and "exited with code" in texts[2]
