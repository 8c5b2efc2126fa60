"""The `acp` harness driving a small ACP agent written with the `acp` library."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "cli"))

from cli_support import (
    Recorder,
    make_params,
    pid_alive,
    processes_matching,
    wait_until,
)

from clawharness.config.schema import ToolsConfig
from clawharness.harness.registry import HarnessRegistry
from clawharness.harness.types import SupportContext
from clawharness.harnesses.acp.harness import AcpHarness, canonical_tool_name
from clawharness.harnesses.acp.plugin import entry
from clawharness.observability import Telemetry, TelemetrySettings
from clawharness.observability.spans import turn_span
from clawharness.observability.telemetry import reset_telemetry, use_telemetry
from clawharness.plugin_sdk.testing import HarnessContractSuite, declared_route
from clawharness.plugins.entry import PluginApi, PluginRegistrations
from clawharness.records import normalize_usage
from clawharness.sessions.bindings import forget_state_dir_decisions
from clawharness.sessions.lifecycle import SessionHookParams

FAKE = Path(__file__).resolve().parent / "fake_acp_agent.py"
TIMEOUT = 20.0


class Rig:
    def __init__(self, tmp: Path) -> None:
        self.workspace = tmp / "ws"
        self.workspace.mkdir()
        self.state = tmp / "state"
        self.log = tmp / "acp.log"
        self.harnesses: list[AcpHarness] = []

    def harness(self, **config: Any) -> AcpHarness:
        agents = {"fake": {"command": [sys.executable, str(FAKE)],
                           "env": {"FAKE_ACP_LOG": str(self.log)}}}
        harness = AcpHarness(state_dir=self.state / "plugin",
                             config={"agents": agents, "cancelGraceSeconds": 1,
                                     "shutdownGraceSeconds": 0.5, **config})
        self.harnesses.append(harness)
        return harness

    def params(self, prompt: str, rec: Recorder | None = None, **kw: Any) -> Any:
        kw.setdefault("model_id", "fake")
        return make_params(self.workspace, self.state, prompt=prompt, recorder=rec or Recorder(),
                           provider="acp", **kw)

    async def run(self, harness: AcpHarness, params: Any) -> Any:
        return await asyncio.wait_for(harness.run_attempt(params), TIMEOUT)

    def calls(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def methods(self) -> list[str]:
        return [c["method"] for c in self.calls()]


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    made = Rig(tmp_path)
    yield made
    for harness in made.harnesses:
        await harness.dispose()


async def test_text_turn_streams_partials_and_binds_the_session(rig: Rig) -> None:
    harness = rig.harness()
    rec = Recorder()
    result = await rig.run(harness, rig.params("text good morning", rec))
    assert result.terminal.kind == "ok"
    assert rec.partials == ["good ", "good morning "]
    assert rec.roles() == ["user", "assistant"]
    assert result.assistant_texts == ["good morning "]
    assert rig.methods()[:3] == ["initialize", "session/new", "session/prompt"]
    assert rig.calls()[0]["fs"] is True
    binding = await harness.binding("main", "agent:main:main")
    assert binding is not None and binding["nativeSessionId"] == result.extra["nativeSessionId"]


async def test_the_usage_an_agent_reports_is_the_turns_usage(rig: Rig) -> None:
    harness = rig.harness()
    result = await rig.run(harness, rig.params("counted 200 100 800"))
    assert result.terminal.kind == "ok" and result.assistant_texts == ["counted"]
    usage = normalize_usage(result.attempt_usage)
    assert usage is not None
    assert (usage.input, usage.output, usage.cache_read, usage.total) == (200, 100, 800, 1100)
    # an agent that reports none leaves the turn's usage unknown, not zero
    silent = await rig.run(harness, rig.params("text quiet"))
    assert silent.attempt_usage is None


async def test_a_prompt_carries_the_attempts_trace_in_its_meta(rig: Rig) -> None:
    """ACP's place for W3C trace context is a request's `_meta`: the agent's own spans
    can join the host's trace; untraced, the prompt carries none."""
    harness = rig.harness()
    exporter = InMemorySpanExporter()
    telemetry = Telemetry(TelemetrySettings(tracing=True, metrics=False),
                          span_processors=[SimpleSpanProcessor(exporter)])
    token = use_telemetry(telemetry)
    try:
        with turn_span("main", "agent:main:main", "run-1") as span:
            traced = await rig.run(harness, rig.params("text traced"))
    finally:
        reset_telemetry(token)
        telemetry.shutdown()
    untraced = await rig.run(harness, rig.params("text plain"))
    assert traced.terminal.kind == untraced.terminal.kind == "ok"
    first, second = (c["meta"] for c in rig.calls() if c["method"] == "session/prompt")
    _, trace_id, _parent, _ = first["traceparent"].split("-")
    assert trace_id == format(span.get_span_context().trace_id, "032x")
    assert "traceparent" not in second


async def test_permission_allowed_picks_the_allow_once_option_and_fs_writes(rig: Rig) -> None:
    rec = Recorder()
    result = await rig.run(rig.harness(), rig.params("write out.txt", rec))
    assert result.terminal.kind == "ok"
    assert (rig.workspace / "out.txt").read_text() == "fake content"
    assert [c["chosen"] for c in rig.calls() if c["method"] == "permission"] == ["aa-second"]
    [seen] = rec.observations
    assert seen["toolName"] == "edit" and seen["executionStarted"] is True
    assert seen["arguments"]["path"].endswith("out.txt")  # merged from the second tool_call
    assert rec.roles() == ["user", "assistant", "toolResult", "assistant"]
    assert rec.mirrored[1]["content"] == [{"type": "toolCall", "id": "call-1", "name": "edit",
                                           "arguments": seen["arguments"]}]


async def test_permission_denied_picks_the_reject_option(rig: Rig) -> None:
    rec = Recorder()
    result = await rig.run(rig.harness(), rig.params("write out.txt", rec,
                                                     tools=ToolsConfig(deny=["edit"])))
    assert result.terminal.kind == "ok"
    assert not (rig.workspace / "out.txt").exists()
    assert [c["chosen"] for c in rig.calls() if c["method"] == "permission"] == ["zz-first"]
    [seen] = rec.observations
    assert seen["executionStarted"] is False and seen["outcome"] == "failure"


async def test_fs_reads_follow_the_workspace_path_rules(rig: Rig, tmp_path: Path) -> None:
    (rig.workspace / "notes.txt").write_text("one\ntwo\nthree\n")
    (tmp_path / "secret.txt").write_text("top secret")
    ok = await rig.run(rig.harness(), rig.params(f"read {rig.workspace / 'notes.txt'}"))
    assert ok.assistant_texts == ["two\n"]  # line 2, limit 1
    rec = Recorder()
    refused = await rig.run(rig.harness(), rig.params("read ../secret.txt", rec))
    assert "top secret" not in json.dumps(rec.mirrored)
    assert refused.tool_metas[0].is_error is True


async def test_session_load_in_a_new_process_does_not_mirror_history_twice(rig: Rig) -> None:
    first = await rig.run(rig.harness(), rig.params("text remember me"))
    await rig.harnesses[0].dispose()
    rec = Recorder()
    second = await rig.run(rig.harness(), rig.params("text again", rec))
    assert second.extra["nativeSessionId"] == first.extra["nativeSessionId"]
    assert "session/load" in rig.methods()
    assert rec.roles() == ["user", "assistant"]
    assert second.assistant_texts == ["again "]


async def test_abort_sends_cancel_and_kills_the_tools_stray_processes(rig: Rig) -> None:
    harness = rig.harness()
    abort = asyncio.Event()
    task = asyncio.create_task(rig.run(harness, rig.params("hang 71.13", abort=abort)))
    assert await wait_until(lambda: bool(processes_matching("sleep 71.13")))
    abort.set()
    result = await task
    assert result.terminal.kind == "aborted"
    assert "session/cancel" in rig.methods()
    assert await wait_until(lambda: not processes_matching("sleep 71.13"), 5)
    assert len(harness.live_pids()) == 1
    [seen] = result.tool_metas
    assert seen.is_error is True


async def test_abort_kills_an_agent_that_ignores_cancel(rig: Rig) -> None:
    harness = rig.harness()
    abort = asyncio.Event()
    task = asyncio.create_task(rig.run(harness, rig.params("stubborn 72.19", abort=abort)))
    assert await wait_until(lambda: bool(processes_matching("sleep 72.19")))
    [pid] = harness.live_pids()
    abort.set()
    result = await task
    assert result.terminal.kind == "aborted"
    assert not pid_alive(pid)
    assert await wait_until(lambda: not processes_matching("sleep 72.19"), 5)
    assert harness.live_pids() == []


async def test_an_unknown_agent_fails_before_starting_anything(rig: Rig) -> None:
    rec = Recorder()
    result = await rig.run(rig.harness(), rig.params("text hi", rec, model_id="nobody"))
    assert result.terminal.kind == "failed" and result.terminal.source == "precheck"
    assert "nobody" in (result.terminal.error or "")
    assert rec.roles() == ["user"]


async def test_reset_forgets_the_binding_and_stops_the_agent(rig: Rig) -> None:
    harness = rig.harness()
    await rig.run(harness, rig.params("text one"))
    [pid] = harness.live_pids()
    await harness.bindings.reset(SessionHookParams(agent_id="main", session_key="agent:main:main",
                                          session_id="host-session-1", reason="reset",
                                          store_url="unused"))
    assert await harness.binding("main", "agent:main:main") is None
    assert not pid_alive(pid)


async def test_state_dir_migrates_from_the_workspace_default(rig: Rig) -> None:
    forget_state_dir_decisions()
    old = rig.workspace / "state" / "agents"
    old.mkdir(parents=True)
    (old / "marker").write_text("old state")
    await rig.run(rig.harness(), rig.params("text hi"))
    assert (rig.state / "acp" / "agents" / "marker").read_text() == "old state"
    assert not (rig.workspace / "state").exists()


def test_supports_claims_provider_acp_only_on_its_declared_route() -> None:
    harness = AcpHarness()
    assert harness.supports(declared_route("acp", "acp", "fake")).supported
    assert not harness.supports(SupportContext("acp", "fake")).supported  # undeclared
    assert not harness.supports(declared_route("acp", "anthropic", "claude")).supported


class TestAcpHarnessContract(HarnessContractSuite):
    """The bundled harness passes the kit's route and registration clauses."""

    def make_harness(self) -> AcpHarness:
        return AcpHarness(state_dir=self.workdir)

    def declared_route_ctx(self) -> SupportContext:
        return declared_route("acp", "acp", "fake")


def test_canonical_names_come_from_the_tool_kind() -> None:
    assert canonical_tool_name("execute", "`ls`") == "exec"
    assert canonical_tool_name("read", None) == "read"
    assert canonical_tool_name(None, "Terminal run") == "terminal"


def test_the_plugin_registers_the_harness_and_provider_acp(tmp_path: Path) -> None:
    registry = HarnessRegistry()
    registrations = PluginRegistrations()
    api = PluginApi(plugin_id=entry.id, registry=registry, registrations=registrations,
                    state_dir=tmp_path, config={"agents": {"a": {"command": ["x"]}}})
    entry.register(api)
    assert api.harness_ids == ("acp",)
    [(owner, bindings)] = registrations.session_bindings
    assert owner == "acp" and bindings.namespace == "acp.bindings"
    [provider] = registrations.providers["acp"]
    assert provider.models == ("a",)
    [route] = provider.routes
    assert route.runtime_policy is not None and route.runtime_policy.compatible_ids == ("acp",)
