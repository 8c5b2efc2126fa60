"""Helpers and the `make_rig` fixture: the real `codex app-server` against the scripted model server.

Each test gets its own scripted model server on 127.0.0.1, its own CODEX_HOME root and
binding store under tmp_path, and a CodexHarness pointed at the installed binary with
the offline config from docs (mock provider, no retries, no start-up network features).
On teardown the harness is disposed and no process may be left running with one of the
test's CODEX_HOMEs in its environment.
"""

from __future__ import annotations

import asyncio
import os
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from clawharness.attempt.outcomes import ToolTerminalObserver
from clawharness.harness.capabilities import ApprovalDecision, ApprovalRequest, HostCapabilities
from clawharness.harness.types import AttemptParams, ResolvedModel, ToolSpec
from clawharness.harnesses.codex.bindings import CodexBindings
from clawharness.harnesses.codex.config import AppServerConfig
from clawharness.harnesses.codex.harness import CodexHarness
from clawharness.store.sqlite import SqliteStore
from clawharness.testing import ScriptedModelServer

CODEX_BIN = (Path(__file__).resolve().parents[3] / ".cache/codex/node_modules/@openai/"
             "codex-linux-x64/vendor/x86_64-unknown-linux-musl/bin/codex")
MODEL = "gpt-5.5"  # a bundled model name: Codex then offers apply_patch


def offline_config(base_url: str) -> dict[str, Any]:
    """config.toml for an offline run against the scripted model server."""
    return {
        "model_provider": "mock",
        "model_providers": {"mock": {
            "name": "scripted", "base_url": base_url, "wire_api": "responses",
            "env_key": "MOCK_OPENAI_API_KEY", "request_max_retries": 0,
            "stream_max_retries": 0, "stream_idle_timeout_ms": 20000,
            "supports_websockets": False}},
        "features": {"image_generation": False, "goals": False, "multi_agent": False},
    }


class AllowAll:
    """Tool policy: everything allowed, nothing asked."""

    def check(self, tool_name: str) -> str | None:
        return None

    def needs_approval(self, tool_name: str, arguments: Mapping[str, Any]) -> str | None:
        return None


class AskFor:
    """Tool policy: the named tools want approval."""

    def __init__(self, *names: str) -> None:
        self.names = names

    def check(self, tool_name: str) -> str | None:
        return None

    def needs_approval(self, tool_name: str, arguments: Mapping[str, Any]) -> str | None:
        return f"{tool_name} needs approval" if tool_name in self.names else None


class Operator:
    """An approval gate that answers every question the same way, and records them."""

    def __init__(self, answer: ApprovalDecision | None) -> None:
        self.answer = answer
        self.requests: list[ApprovalRequest] = []

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision | None:
        self.requests.append(request)
        return self.answer


@dataclass
class Attempt:
    """Hand-built attempt params plus everything the harness reported through them."""

    params: AttemptParams
    mirrored: dict[str, dict[str, Any]] = field(default_factory=dict)
    mirror_calls: int = 0
    partials: list[str] = field(default_factory=list)
    events: list[Any] = field(default_factory=list)
    observer: ToolTerminalObserver | None = None
    observations: list[dict[str, Any]] = field(default_factory=list)

    def roles(self) -> list[str]:
        return [m["role"] for m in self.mirrored.values()]

    def tool_calls(self) -> list[dict[str, Any]]:
        return [b for m in self.mirrored.values() if m["role"] == "assistant"
                for b in m["content"] if b["type"] == "toolCall"]

    def tool_results(self) -> list[dict[str, Any]]:
        return [m for m in self.mirrored.values() if m["role"] == "toolResult"]


@dataclass
class Rig:
    harness: CodexHarness
    server: ScriptedModelServer
    tmp: Path
    workspace: Path

    def attempt(self, prompt: str, *, session_key: str = "agent:main:s1",
                session_id: str | None = None, policy: Any = None,
                approvals: Operator | None = None, tools: Sequence[ToolSpec] = (),
                timeout: float | None = 60.0, abort: asyncio.Event | None = None,
                history: Sequence[Mapping[str, Any]] = ()) -> Attempt:
        run_id = str(uuid.uuid4())
        caps = HostCapabilities(run_id=run_id, session_key=session_key,
                                workspace_dir=str(self.workspace), policy=policy or AllowAll(),
                                approvals=approvals)
        holder: list[Attempt] = []

        async def mirror(messages: Sequence[dict[str, Any]]) -> None:
            attempt = holder[0]
            attempt.mirror_calls += 1
            for message in messages:
                key = message["__meta"]["idempotencyKey"]
                attempt.mirrored.setdefault(key, message)

        def partial(text: str) -> None:
            holder[0].partials.append(text)

        observer = ToolTerminalObserver(run_id)

        def observe(observation: Mapping[str, Any]) -> dict[str, Any]:
            holder[0].observations.append(dict(observation))
            return observer(observation)

        loop = asyncio.get_running_loop()
        params = AttemptParams(
            run_id=run_id, session_key=session_key,
            session_id=session_id or f"sid-{session_key}", agent_id="main", prompt=prompt,
            provider="openai", model_id=MODEL,
            model=ResolvedModel(provider="openai", model_id=MODEL),
            workspace_dir=str(self.workspace), host_capabilities=caps, runtime_plan=None,
            tools=tools, history=[dict(m) for m in history], abort=abort or asyncio.Event(),
            deadline=loop.time() + timeout if timeout else None,
            on_partial_reply=partial, on_agent_event=lambda e: holder[0].events.append(e),
            observe_tool_terminal=observe, mirror=mirror)
        attempt = Attempt(params, observer=observer)
        holder.append(attempt)
        return attempt

    def model_requests(self) -> list[dict[str, Any]]:
        return [r.body for r in self.server.requests if isinstance(r.body, dict)]


def processes_with_home(root: Path) -> list[int]:
    """Pids of live processes whose environment holds a CODEX_HOME under `root`."""
    needle = f"CODEX_HOME={root}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                environ = fh.read()
            with open(f"/proc/{entry}/stat") as fh:
                if fh.read().rsplit(")", 1)[1].split()[0] == "Z":
                    continue
        except OSError:
            continue
        if needle in environ:
            found.append(int(entry))
    return found


def app_servers_of(parent: int) -> list[int]:
    """Live `codex app-server` processes whose parent is `parent` (the pool's own; a
    forked child that has not exec'ed yet shares the cmdline but not the parent)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{entry}/cmdline", "rb") as fh:
                cmdline = fh.read()
        except OSError:
            continue
        if fields[0] not in ("Z", "X") and int(fields[1]) == parent \
                and b"app-server" in cmdline:
            found.append(int(entry))
    return found


MakeRig = Callable[..., Awaitable[Rig]]


@pytest.fixture
async def make_rig(tmp_path: Path) -> AsyncIterator[MakeRig]:
    if not CODEX_BIN.exists():
        pytest.skip("the Codex app-server is not installed (run scripts/native-runtimes.sh)")
    opened: list[tuple[Rig, SqliteStore]] = []
    homes = tmp_path / "homes"

    async def make(script: Mapping[str, Any], *, approval_policy: str = "on-request",
                   sandbox: str = "workspace-write", **overrides: Any) -> Rig:
        server = ScriptedModelServer(dict(script))
        await server.__aenter__()
        store = SqliteStore(str(tmp_path / f"bindings-{len(opened)}.db"))
        await store.open()
        config = AppServerConfig(
            command=str(CODEX_BIN), env={"MOCK_OPENAI_API_KEY": "sk-scripted"},
            config=offline_config(server.base_url_openai), approval_policy=approval_policy,
            sandbox=sandbox, request_timeout_seconds=30, **overrides)
        harness = CodexHarness(config, bindings=CodexBindings(store), home_root=homes)
        workspace = tmp_path / "workspace"
        workspace.mkdir(exist_ok=True)
        rig = Rig(harness, server, tmp_path, workspace)
        opened.append((rig, store))
        return rig

    yield make
    for rig, store in opened:
        await rig.harness.dispose()
        await rig.server.__aexit__(None, None, None)
        await store.close()
    assert processes_with_home(homes) == [], "an app-server (or a child) outlived dispose()"


async def eventually(predicate: Callable[[], bool], *, timeout: float = 20.0,
                     what: str = "the condition") -> None:
    """Wait until `predicate()` holds (polling), or fail after `timeout` seconds."""
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        if loop.time() > end:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        await asyncio.sleep(0.01)


def conversation(body: Mapping[str, Any]) -> list[tuple[str, str]]:
    """(role, text) of the user/assistant messages of a model request, minus the
    system prompt and Codex's `<environment_context>` preamble."""
    out = []
    for item in body.get("input", []):
        if item.get("type") != "message" or item.get("role") not in ("user", "assistant"):
            continue
        text = "".join(part.get("text", "") for part in item.get("content", []))
        if text.startswith("<") or not text:
            continue
        out.append((item["role"], text))
    return out
