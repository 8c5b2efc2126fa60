"""The generic CLI-backend harness (as `claude-cli`) driving a fake stream-json agent."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from cli_support import Recorder, make_params, pid_alive, processes_matching, wait_until

from clawharness.config.schema import ToolsConfig
from clawharness.harness.registry import HarnessRegistry
from clawharness.harness.types import SupportContext
from clawharness.harnesses.cli.claude import ClaudeEvents, claude_cli_harness
from clawharness.harnesses.cli.plugin import entry
from clawharness.plugin_sdk.agent_harness_cli import CliBackendHarness, TurnFinished
from clawharness.plugins.entry import PluginApi
from clawharness.records.tool_calls import ToolCallMeta
from clawharness.sessions.lifecycle import SessionHookParams

FAKE = Path(__file__).resolve().parent / "fake_claude.py"
TIMEOUT = 20.0


class Rig:
    def __init__(self, tmp: Path) -> None:
        self.workspace = tmp / "ws"
        self.workspace.mkdir()
        self.state = tmp / "state"
        self.log = tmp / "fake.log"
        self.harnesses: list[CliBackendHarness] = []

    def harness(self, **config: Any) -> CliBackendHarness:
        cfg: dict[str, Any] = {"command": [sys.executable, str(FAKE)],
                               "env": {"FAKE_CLAUDE_LOG": str(self.log)},
                               "interruptGraceSeconds": 2, **config}
        harness = claude_cli_harness(state_dir=self.state / "plugin", config=cfg)
        self.harnesses.append(harness)
        return harness

    def params(self, prompt: str, rec: Recorder | None = None, **kw: Any) -> Any:
        return make_params(self.workspace, self.state, prompt=prompt,
                           recorder=rec or Recorder(), **kw)

    async def run(self, harness: CliBackendHarness, params: Any) -> Any:
        return await asyncio.wait_for(harness.run_attempt(params), TIMEOUT)

    def starts(self) -> list[dict[str, Any]]:
        if not self.log.exists():
            return []
        return [json.loads(line) for line in self.log.read_text().splitlines()]


@pytest.fixture
async def rig(tmp_path: Path) -> AsyncIterator[Rig]:
    made = Rig(tmp_path)
    yield made
    for harness in made.harnesses:
        await harness.dispose()


def hook_params(session_id: str = "host-session-1") -> SessionHookParams:
    return SessionHookParams(agent_id="main", session_key="agent:main:main",
                             session_id=session_id, reason="reset", store_url="unused")


async def test_text_turn_streams_mirrors_with_keys_and_records_the_binding(rig: Rig) -> None:
    harness = rig.harness()
    rec = Recorder()
    result = await rig.run(harness, rig.params("text hello brave world", rec))
    assert result.terminal.kind == "ok"
    assert rec.partials == ["hello ", "hello brave ", "hello brave world "]
    assert rec.roles() == ["user", "assistant"]
    assert len(set(rec.keys())) == 2
    assert result.usage is not None and result.usage.input == 5
    binding = await harness.binding("main", "agent:main:main")
    assert binding is not None and binding["nativeSessionId"] == result.extra["nativeSessionId"]
    assert binding["hostSessionId"] == "host-session-1"


async def test_the_child_environment_is_built_from_nothing_plus_configured_env(
        rig: Rig, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CLAWHARNESS_HOST_SECRET", "must-not-leak")
    harness = rig.harness(env={"FAKE_CLAUDE_LOG": str(rig.log), "EXTRA_FLAG": "on"})
    await rig.run(harness, rig.params("text hi", base_url="http://127.0.0.1:9"))
    [start] = rig.starts()
    env = start["env"]
    assert "CLAWHARNESS_HOST_SECRET" not in env
    assert env["EXTRA_FLAG"] == "on"
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9"
    assert env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"
    assert env["CLAUDE_CONFIG_DIR"].startswith(str(rig.state))
    assert env["HOME"].startswith(str(rig.state))
    assert {"--input-format", "--permission-prompt-tool", "--include-partial-messages"} <= set(
        start["argv"])


async def test_one_process_serves_the_binding_across_turns(rig: Rig) -> None:
    harness = rig.harness()
    first = await rig.run(harness, rig.params("text one"))
    pids = harness.live_pids()
    second = await rig.run(harness, rig.params("text two"))
    assert harness.live_pids() == pids and len(pids) == 1
    assert len(rig.starts()) == 1
    assert second.extra["nativeSessionId"] == first.extra["nativeSessionId"]


async def test_each_turn_costs_what_the_process_total_grew_by(rig: Rig) -> None:
    # the CLI reports its process's running total (0.25, then 0.5): each turn is charged
    # its own part, as what the provider bills the key the host gave it
    harness = rig.harness()
    first = await rig.run(harness, rig.params("text one", api_key="sk-ant-real"))
    second = await rig.run(harness, rig.params("text two", api_key="sk-ant-real"))
    assert len(rig.starts()) == 1
    assert first.usage.cost is not None and first.usage.cost.total == 0.25
    assert second.usage.cost is not None and second.usage.cost.total == 0.25
    # a new process counts from nothing again
    await harness.bindings.reset(hook_params())
    third = await rig.run(harness, rig.params("text three", api_key="sk-ant-real"))
    assert len(rig.starts()) == 2
    assert third.usage.cost is not None and third.usage.cost.total == 0.25


#: the result line of the real Claude Code CLI (2.1.197), recorded against the scripted
#: Anthropic server: 1,000 tokens in, 500 out on claude-sonnet-4-5 ($3 / $15 per million)
REAL_RESULT: dict[str, Any] = {
    "type": "result", "subtype": "success", "is_error": False, "num_turns": 1,
    "result": "ok", "session_id": "16e60bc8-b857-42f8-bd96-616a1645414d",
    "total_cost_usd": 0.010499999999999999,
    "usage": {"input_tokens": 1000, "cache_creation_input_tokens": 0,
              "cache_read_input_tokens": 0, "output_tokens": 500,
              "server_tool_use": {"web_search_requests": 0, "web_fetch_requests": 0},
              "service_tier": "standard"},
    "modelUsage": {"claude-sonnet-4-5": {
        "inputTokens": 1000, "outputTokens": 500, "cacheReadInputTokens": 0,
        "cacheCreationInputTokens": 0, "webSearchRequests": 0,
        "costUSD": 0.010499999999999999, "contextWindow": 200000,
        "maxOutputTokens": 32000}},
}


def test_the_real_clis_result_carries_its_cost() -> None:
    [finished] = ClaudeEvents().map(REAL_RESULT)
    assert isinstance(finished, TurnFinished)
    assert finished.cost_usd == pytest.approx(0.0105)
    assert finished.usage is not None and finished.usage["output_tokens"] == 500
    # a result without one (an error before any model call) has none
    [failed] = ClaudeEvents().map({"type": "result", "subtype": "error_during_execution",
                                   "is_error": True, "session_id": "s", "errors": ["x"]})
    assert isinstance(failed, TurnFinished) and failed.cost_usd is None


async def test_a_runtime_without_the_hosts_key_has_no_cost_of_its_own(rig: Rig) -> None:
    # no key from the host (a local server, a proxy): the CLI's own prices are nobody's bill
    harness = rig.harness()
    result = await rig.run(harness, rig.params("text one"))
    assert result.usage is not None and result.usage.input == 5
    assert result.usage.cost is None


async def test_permission_allowed_answers_with_the_host_arguments(rig: Rig) -> None:
    harness = rig.harness()
    rec = Recorder()
    # a fresh config asks before any shell command; this one lets the command run unasked
    unasked = ToolsConfig.model_validate({"exec": {"security": "full", "ask": "off"}})
    result = await rig.run(harness, rig.params("tool ls -la", rec, tools=unasked))
    assert result.terminal.kind == "ok"
    [seen] = rec.observations
    assert seen["toolName"] == "exec" and seen["executionStarted"] is True
    assert seen["result"]["content"][0]["text"] == "ran: ls -la"
    assert rec.roles() == ["user", "assistant", "toolResult", "assistant"]
    assert rec.mirrored[1]["content"][0] == {"type": "toolCall", "id": "toolu_1", "name": "exec",
                                             "arguments": {"command": "ls -la"}}
    assert result.tool_metas == [ToolCallMeta("exec", "toolu_1", False)]


async def test_permission_denied_by_policy_answers_deny_with_the_reason(rig: Rig) -> None:
    harness = rig.harness()
    rec = Recorder()
    result = await rig.run(harness, rig.params("tool rm -rf /", rec,
                                               tools=ToolsConfig(deny=["exec"])))
    assert result.terminal.kind == "ok"
    [seen] = rec.observations
    assert seen["executionStarted"] is False and seen["outcome"] == "failure"
    assert "deny list" in seen["failure"]["error"]
    tool_result = rec.mirrored[2]
    assert tool_result["isError"] is True and "deny list" in tool_result["content"][0]["text"]


async def test_a_new_harness_resumes_the_bound_session(rig: Rig) -> None:
    first = await rig.run(rig.harness(), rig.params("text one"))
    await rig.harnesses[0].dispose()
    second = await rig.run(rig.harness(), rig.params("text two"))
    assert second.extra["nativeSessionId"] == first.extra["nativeSessionId"]
    argv = rig.starts()[-1]["argv"]
    assert argv[argv.index("--resume") + 1] == first.extra["nativeSessionId"]
    assert "--fork-session" not in argv


async def test_a_transferred_physical_session_forks_the_native_session(rig: Rig) -> None:
    harness = rig.harness()
    first = await rig.run(harness, rig.params("text one", session_id="physical-1"))
    second = await rig.run(harness, rig.params("text two", session_id="physical-2"))
    argv = rig.starts()[-1]["argv"]
    assert "--fork-session" in argv and first.extra["nativeSessionId"] in argv
    assert second.extra["nativeSessionId"] != first.extra["nativeSessionId"]
    binding = await harness.binding("main", "agent:main:main")
    assert binding is not None and binding["hostSessionId"] == "physical-2"


async def test_abort_interrupts_and_kills_the_tools_stray_session(rig: Rig) -> None:
    harness = rig.harness()
    abort = asyncio.Event()
    task = asyncio.create_task(rig.run(harness, rig.params("hang 61.17", abort=abort)))
    assert await wait_until(lambda: bool(processes_matching("sleep 61.17")))
    abort.set()
    result = await task
    assert result.terminal.kind == "aborted"
    assert await wait_until(lambda: not processes_matching("sleep 61.17"), 5)
    assert len(harness.live_pids()) == 1  # the interrupt worked: the process stays


async def test_abort_escalates_to_killing_the_tree_when_the_interrupt_is_ignored(
        rig: Rig) -> None:
    harness = rig.harness(interruptGraceSeconds=0.5)
    abort = asyncio.Event()
    task = asyncio.create_task(rig.run(harness, rig.params("stubborn 62.23", abort=abort)))
    assert await wait_until(lambda: bool(processes_matching("sleep 62.23")))
    [pid] = harness.live_pids()
    abort.set()
    result = await task
    assert result.terminal.kind == "aborted"
    assert not pid_alive(pid)
    assert await wait_until(lambda: not processes_matching("sleep 62.23"), 5)
    assert harness.live_pids() == []
    later = await rig.run(harness, rig.params("text back"))
    assert later.terminal.kind == "ok"
    assert "--resume" in rig.starts()[-1]["argv"]


async def test_deadline_ends_the_turn_as_a_timeout(rig: Rig) -> None:
    harness = rig.harness(interruptGraceSeconds=0.5)
    deadline = asyncio.get_running_loop().time() + 0.5
    result = await rig.run(harness, rig.params("stubborn 63.31", deadline=deadline))
    assert result.terminal.kind == "timeout"
    assert await wait_until(lambda: not processes_matching("sleep 63.31"), 5)


async def test_a_crash_fails_the_attempt_with_stderr_and_the_next_turn_resumes(
        rig: Rig) -> None:
    harness = rig.harness()
    first = await rig.run(harness, rig.params("text one"))
    crashed = await rig.run(harness, rig.params("crash"))
    assert crashed.terminal.kind == "failed"
    assert "simulated crash" in (crashed.terminal.error or "")
    assert harness.live_pids() == []
    again = await rig.run(harness, rig.params("text again"))
    assert again.terminal.kind == "ok"
    assert again.extra["nativeSessionId"] == first.extra["nativeSessionId"]


async def test_model_error_result_fails_and_mirrors_an_error_message(rig: Rig) -> None:
    rec = Recorder()
    result = await rig.run(rig.harness(), rig.params("error", rec))
    assert result.terminal.kind == "failed" and "400" in (result.terminal.error or "")
    assert rec.mirrored[-1]["stopReason"] == "error"
    assert result.assistant_texts == []


async def test_reset_clears_the_binding_and_closes_the_process(rig: Rig) -> None:
    harness = rig.harness()
    await rig.run(harness, rig.params("text one"))
    [pid] = harness.live_pids()
    await harness.bindings.reset(hook_params())
    assert await harness.binding("main", "agent:main:main") is None
    assert not pid_alive(pid)
    await rig.run(harness, rig.params("text fresh"))
    assert "--resume" not in rig.starts()[-1]["argv"]


async def test_session_deletion_removes_the_binding_when_the_host_commits(rig: Rig) -> None:
    harness = rig.harness()
    await rig.run(harness, rig.params("text one"))

    async def host_transaction(commit: Any, rollback: Any) -> str:
        commit()
        return "deleted"

    assert await harness.bindings.with_session_deletion(hook_params(), host_transaction) == "deleted"
    assert await harness.binding("main", "agent:main:main") is None
    assert harness.live_pids() == []


async def test_session_deletion_rolled_back_keeps_the_binding(rig: Rig) -> None:
    harness = rig.harness()
    await rig.run(harness, rig.params("text one"))

    async def failing_transaction(commit: Any, rollback: Any) -> None:
        commit()
        rollback()

    await harness.bindings.with_session_deletion(hook_params(), failing_transaction)
    assert await harness.binding("main", "agent:main:main") is not None


async def test_a_bad_command_config_fails_before_any_model_work(rig: Rig) -> None:
    rec = Recorder()
    result = await rig.run(rig.harness(command=42), rig.params("text hi", rec))
    assert result.terminal.kind == "failed" and result.terminal.source == "precheck"
    assert rec.roles() == ["user"]


async def test_a_missing_executable_fails_the_attempt(rig: Rig, tmp_path: Path) -> None:
    result = await rig.run(rig.harness(command=str(tmp_path / "no-such-claude")),
                           rig.params("text hi"))
    assert result.terminal.kind == "failed"
    assert "could not start" in (result.terminal.error or "")


def test_supports_only_an_explicit_anthropic_selection() -> None:
    harness = claude_cli_harness()
    assert harness.supports(SupportContext("anthropic", "claude-x",
                                           requested_runtime="claude-cli")).supported
    assert not harness.supports(SupportContext("anthropic", "claude-x")).supported
    assert not harness.supports(SupportContext("openai", "gpt",
                                               requested_runtime="claude-cli")).supported


def test_the_plugin_entry_registers_a_harness_that_owns_auth(tmp_path: Path) -> None:
    registry = HarnessRegistry()
    api = PluginApi(plugin_id=entry.id, registry=registry, state_dir=tmp_path,
                    config={"command": "claude --debug"})
    entry.register(api)
    assert entry.id == "claude-cli" and api.harness_ids == ("claude-cli",)
    registered = registry.get("claude-cli")
    assert registered is not None and registered.owner_plugin_id == "claude-cli"
    assert getattr(registered.harness, "auth_bootstrap", None) == "harness"
    # its bindings are the host's to reset and delete with each session: no hook of its own
    [(owner, bindings)] = api.registrations.session_bindings
    assert owner == "claude-cli" and bindings is getattr(registered.harness, "bindings", None)
    assert not hasattr(registered.harness, "reset")


def test_no_child_of_this_process_survives_the_module() -> None:
    # every harness above was disposed: no fake agent is left running
    assert processes_matching(str(FAKE)) == []
