"""The real acpx CLI (npm `acpx`, a headless ACP client no one here wrote; pinned in
scripts/native-runtimes.sh) drives `clawharness acp` on the scripted model server:
one session over five prompts and as many agent processes (acpx's queue owner exits a
second after each prompt, so every prompt reconnects with `session/load`), with a tool
call whose write arrives as `fs/write_text_file`, a permission refused and one granted
(`session/request_permission`, the command then run in acpx's terminal), a cancel, and
at the end the host's transcript holding the whole conversation under one session key."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from clawharness.host import Host
from clawharness.testing import ScriptedModelServer

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[3]
ACPX = ROOT / ".cache" / "acpx" / "node_modules" / "acpx" / "dist" / "cli.js"
#: acpx needs Node >= 22.13: the Node 24 scripts/native-runtimes.sh installs for OpenClaw
NODE = ROOT / ".cache" / "openclaw" / "node_modules" / "node" / "bin" / "node"
CLAWHARNESS = str(Path(sys.executable).with_name("clawharness"))
TIMEOUT = 120

needs_acpx = pytest.mark.skipif(not (ACPX.exists() and NODE.exists()),
                                reason="run scripts/native-runtimes.sh to install acpx")

SCRIPT = {"responses": [
    {"match": "^take a note", "tool_calls": [{"name": "write", "arguments": {
        "path": "notes/todo.md", "content": "- ship the ACP agent\n"}}]},
    {"match": "^Successfully wrote", "text": "Saved notes/todo.md."},
    {"match": "^clean up", "repeat": True, "tool_calls": [{"name": "exec", "arguments": {
        "command": "rm -f build.log"}}]},
    {"match": "was not run", "text": "You refused: build.log stays."},
    {"match": "^\\(no output\\)", "text": "Removed build.log."},
    {"match": "^build it", "tool_calls": [{"name": "exec", "arguments": {
        "command": "echo building; sleep 127"}}]},
    {"match": "^what did I ask", "text": "A note, a cleanup twice, and a build you cancelled."},
]}


class Acpx:
    """Runs acpx (JSON output: every ACP message both ways, one per line) against
    `clawharness acp` for one project directory, with a home of its own."""

    def __init__(self, tmp: Path, config: Path) -> None:
        self.project = tmp / "project"
        self.project.mkdir()
        home = tmp / "home"
        home.mkdir()
        self.env = {**os.environ, "HOME": str(home)}
        self.agent = shlex.join([CLAWHARNESS, "acp", "--config", str(config)])

    def argv(self, *args: str) -> list[str]:
        return [str(NODE), str(ACPX), "--agent", self.agent, "--format", "json",
                "--ttl", "1", *args]

    def run(self, *args: str) -> tuple[int, list[dict[str, Any]]]:
        done = subprocess.run(self.argv(*args), cwd=self.project, env=self.env,
                              capture_output=True, text=True, timeout=TIMEOUT, check=False)
        return done.returncode, _messages(done.stdout)

    def wait_idle(self) -> None:
        """Until the queue owner of the previous prompt has exited (its TTL is 1 s)."""
        deadline = time.monotonic() + 60
        while True:
            _, out = self.run("status")
            if out and out[-1].get("status") == "idle":
                return
            assert time.monotonic() < deadline, f"acpx's queue owner did not exit: {out}"
            time.sleep(0.2)  # polling another process's state: nothing to wait on here


def _messages(stdout: str) -> list[dict[str, Any]]:
    found = []
    for line in stdout.splitlines():
        line = line.strip()
        if line.startswith("{"):
            found.append(json.loads(line))
    return found


def requests(messages: list[dict[str, Any]], method: str) -> list[dict[str, Any]]:
    return [m for m in messages if m.get("method") == method and "id" in m]


def answer_to(messages: list[dict[str, Any]], request: dict[str, Any]) -> dict[str, Any]:
    """The response to `request` (ids are per direction: the first one after it)."""
    after = messages[messages.index(request) + 1:]
    return next(m for m in after if m.get("id") == request["id"] and "method" not in m)


def updates(messages: list[dict[str, Any]], kind: str) -> list[dict[str, Any]]:
    return [m["params"]["update"] for m in messages if m.get("method") == "session/update"
            and m["params"]["update"].get("sessionUpdate") == kind]


def stop_reason(messages: list[dict[str, Any]]) -> str:
    prompt = requests(messages, "session/prompt")[-1]
    return str(answer_to(messages, prompt)["result"]["stopReason"])


def agent_text(messages: list[dict[str, Any]]) -> str:
    return "".join(u["content"]["text"] for u in updates(messages, "agent_message_chunk"))


def processes_running(marker: str) -> list[int]:
    """Processes whose command line (arguments joined by spaces) holds `marker`."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                cmdline = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:
                continue
            if marker.encode() in cmdline:
                found.append(int(entry))
    return found


@contextmanager
def scripted_config(tmp: Path) -> Iterator[Path]:
    server = ScriptedModelServer(SCRIPT)
    with server.run_in_thread():
        config = tmp / "config.json"
        config.write_text(json.dumps({
            "models": {"providers": {"local": {
                "baseUrl": server.base_url_openai, "api": "openai-responses", "apiKey": "k",
                "models": [{"id": "m"}]}}},
            # exec in the editor's terminal needs the sandbox off (a sandboxed command
            # never leaves the sandbox); every command asks first
            "agents": {"defaults": {"model": "local/m", "sandbox": {"mode": "off"}}},
            "tools": {"exec": {"ask": "always"}},
            "store": {"url": str(tmp / "state.db")},
        }))
        yield config


@needs_acpx
def test_acpx_drives_a_session_through_tools_permissions_a_cancel_and_loads(
        tmp_path: Path) -> None:
    with scripted_config(tmp_path) as config:
        acpx = Acpx(tmp_path, config)
        code, out = acpx.run("sessions", "new")
        assert code == 0, out
        session = out[-1]["acpxSessionId"]
        assert re.fullmatch(r"agent:main:acp-[0-9a-f-]{36}", session)

        # 1. a tool call: the write reaches acpx as fs/write_text_file
        code, out = acpx.run("--approve-all", "take a note")
        assert code == 0, out
        assert requests(out, "session/load")[0]["params"]["sessionId"] == session
        (call,) = updates(out, "tool_call")
        assert call["kind"] == "edit"
        assert call["locations"] == [{"path": str(acpx.project / "notes" / "todo.md")}]
        (write,) = requests(out, "fs/write_text_file")
        assert write["params"]["path"] == str(acpx.project / "notes" / "todo.md")
        assert write["params"]["content"] == "- ship the ACP agent\n"
        assert "error" not in answer_to(out, write)
        assert (acpx.project / "notes" / "todo.md").read_text() == "- ship the ACP agent\n"
        assert agent_text(out) == "Saved notes/todo.md." and stop_reason(out) == "end_turn"

        # 2. a permission refused: the command is not run
        (acpx.project / "build.log").write_text("log")
        acpx.wait_idle()
        code, out = acpx.run("--deny-all", "clean up")
        assert requests(out, "session/load"), "a new agent process loads the session"
        (asked,) = requests(out, "session/request_permission")
        assert asked["params"]["toolCall"]["kind"] == "execute"
        assert asked["params"]["toolCall"]["rawInput"] == {"command": "rm -f build.log"}
        chosen = answer_to(out, asked)["result"]["outcome"]
        kinds = {o["optionId"]: o["kind"] for o in asked["params"]["options"]}
        assert kinds[chosen["optionId"]].startswith("reject")
        assert requests(out, "terminal/create") == []
        assert (acpx.project / "build.log").exists()
        assert agent_text(out) == "You refused: build.log stays."

        # 3. the same permission granted: the command runs in acpx's terminal
        acpx.wait_idle()
        code, out = acpx.run("--approve-all", "clean up")
        assert code == 0, out
        (asked,) = requests(out, "session/request_permission")
        chosen = answer_to(out, asked)["result"]["outcome"]
        kinds = {o["optionId"]: o["kind"] for o in asked["params"]["options"]}
        assert kinds[chosen["optionId"]] == "allow_once"
        (terminal,) = requests(out, "terminal/create")
        assert terminal["params"]["command"] == "bash"
        assert terminal["params"]["args"] == ["-c", "rm -f build.log"]
        assert not (acpx.project / "build.log").exists()
        assert agent_text(out) == "Removed build.log."

        # 4. a cancel while the command runs: the prompt ends cancelled, the command dies
        acpx.wait_idle()
        running = subprocess.Popen(acpx.argv("--approve-all", "build it"), cwd=acpx.project,
                                   env=acpx.env, stdout=subprocess.PIPE,
                                   stderr=subprocess.DEVNULL, text=True)
        try:
            assert running.stdout is not None
            seen: list[str] = []
            for line in running.stdout:  # until the command runs in acpx's terminal
                seen.append(line)
                if '"method":"terminal/wait_for_exit"' in line.replace(" ", ""):
                    break
            assert processes_running("sleep 127"), "the command did not start"
            started = time.monotonic()
            code, cancel_out = acpx.run("cancel")
            assert code == 0, cancel_out
            rest, _ = running.communicate(timeout=TIMEOUT)
        finally:
            if running.poll() is None:
                running.kill()
                running.wait()
        out = _messages("".join(seen) + rest)
        assert stop_reason(out) == "cancelled"
        assert time.monotonic() - started < 30  # not the command's 127 s
        assert processes_running("sleep 127") == []

        # 5. the conversation goes on after the cancel, in a new process again
        acpx.wait_idle()
        code, out = acpx.run("what did I ask")
        assert code == 0, out
        assert requests(out, "session/load")
        assert agent_text(out) == "A note, a cleanup twice, and a build you cancelled."

        async def transcript() -> list[str]:
            async with Host.from_config(config) as host:
                return [e.text or "" for e in await host.history(session) if e.role == "user"]

        assert asyncio.run(transcript()) == [
            "take a note", "clean up", "clean up", "build it", "what did I ask"]


@needs_acpx
def test_acpx_resumes_with_the_unstable_methods_and_lists_from_the_agent(tmp_path: Path) -> None:
    with scripted_config(tmp_path) as config:
        acpx = Acpx(tmp_path, config)
        acpx.agent = shlex.join([CLAWHARNESS, "acp", "--unstable", "--config", str(config)])
        code, out = acpx.run("sessions", "new")
        assert code == 0, out
        session = out[-1]["acpxSessionId"]
        code, out = acpx.run("what did I ask")
        assert code == 0, out
        # a client that can resume does, instead of loading (nothing is replayed)
        assert requests(out, "session/resume")[0]["params"]["sessionId"] == session
        assert requests(out, "session/load") == []
        # `sessions list` asks the agent (session/list) when it advertises the method
        code, out = acpx.run("sessions", "list")
        assert code == 0, out
        assert out[-1]["source"] == "agent"
        (listed,) = out[-1]["sessions"]
        assert (listed["sessionId"], listed["cwd"], listed["title"]) == (
            session, str(acpx.project), "what did I ask")
