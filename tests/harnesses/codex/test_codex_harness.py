"""The Codex harness against the fake app-server: the version gate before any thread,
a missing binary, turns, crashes, bindings; plus `supports(ctx)`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from codex_fake_rig import alive, attempt_params, fake_config, received

from clawharness.harness.types import (
    ModelProviderFacts,
    RuntimePolicyFact,
    SupportContext,
    Supported,
    Unsupported,
)
from clawharness.harnesses.codex.bindings import CodexBindings, binding_key
from clawharness.harnesses.codex.config import AppServerConfig
from clawharness.harnesses.codex.errors import CodexBinaryNotFoundError, CodexVersionError
from clawharness.harnesses.codex.harness import CodexHarness
from clawharness.plugin_sdk.agent_harness_runtime import AgentHarnessPreflightError
from clawharness.store.sqlite import SqliteStore

MakeHarness = Callable[..., CodexHarness]


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteStore]:
    opened = SqliteStore(str(tmp_path / "bindings.db"))
    await opened.open()
    yield opened
    await opened.close()


@pytest.fixture
async def make_harness(tmp_path: Path, store: SqliteStore) -> AsyncIterator[MakeHarness]:
    made: list[CodexHarness] = []

    def make(config: AppServerConfig) -> CodexHarness:
        harness = CodexHarness(config, bindings=CodexBindings(store),
                               home_root=tmp_path / "homes")
        made.append(harness)
        return harness

    yield make
    for harness in made:
        await harness.pool.close()
        assert not any(alive(pid) for pid in harness.pool.pids)


@pytest.mark.parametrize(("agent", "message"), [
    ("clawharness/0.118.0 (Linux)", "older than the minimum"),
    ("-", "did not report a version"),
])
async def test_a_refused_server_version_fails_before_any_thread_starts(
        tmp_path: Path, store: SqliteStore, make_harness: MakeHarness, agent: str,
        message: str) -> None:
    log = tmp_path / "log.jsonl"
    harness = make_harness(fake_config(log, FAKE_USER_AGENT=agent))
    with pytest.raises(CodexVersionError, match=message) as info:
        await harness.run_attempt(attempt_params(tmp_path, "hi"))
    assert isinstance(info.value, AgentHarnessPreflightError) and info.value.scope == "harness"
    assert received(log) == ["initialize"]  # no thread/start, not even `initialized`
    assert harness.pool.live_count == 0
    assert not any(alive(pid) for pid in harness.pool.pids)
    row = await harness.bindings.read(binding_key("main", "agent:main:s1"))
    assert row is None or row.get("threadId") is None


async def test_a_missing_binary_names_the_npm_package(tmp_path: Path,
                                                      make_harness: MakeHarness) -> None:
    harness = make_harness(AppServerConfig(command=str(tmp_path / "nowhere" / "codex")))
    with pytest.raises(CodexBinaryNotFoundError, match="@openai/codex") as info:
        await harness.run_attempt(attempt_params(tmp_path, "hi"))
    assert info.value.scope == "harness"


async def test_a_missing_binary_on_path_names_the_npm_package(
        tmp_path: Path, make_harness: MakeHarness, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path))
    harness = make_harness(AppServerConfig())
    with pytest.raises(CodexBinaryNotFoundError, match=r"not found on PATH.*@openai/codex"):
        await harness.run_attempt(attempt_params(tmp_path, "hi"))


async def test_a_turn_binds_the_thread_and_the_next_turn_reuses_it(
        tmp_path: Path, make_harness: MakeHarness) -> None:
    log = tmp_path / "log.jsonl"
    harness = make_harness(fake_config(log))
    mirrored: list[dict[str, Any]] = []
    partials: list[str] = []
    first = await harness.run_attempt(attempt_params(tmp_path, "hello", mirrored=mirrored,
                                                     partials=partials))
    assert first.terminal.kind == "ok"
    assert first.assistant_texts == ["echo: hello"]
    assert partials[-1] == "echo: hello" and len(partials) == 2
    assert [m["role"] for m in mirrored] == ["assistant"]  # the fake sends no userMessage
    row = await harness.bindings.read(binding_key("main", "agent:main:s1"))
    assert row is not None and row["threadId"] == first.extra["codexThreadId"]
    assert row["sessionId"] == "sid-1" and "lease_token" not in row

    second = await harness.run_attempt(attempt_params(tmp_path, "again"))
    assert second.extra["codexThreadId"] == first.extra["codexThreadId"]
    assert received(log).count("thread/start") == 1
    assert received(log).count("thread/resume") == 0  # still loaded in the same process


async def test_reasoning_and_plan_updates_become_thinking_and_plan_events(
        tmp_path: Path, make_harness: MakeHarness) -> None:
    harness = make_harness(fake_config(tmp_path / "log.jsonl"))
    events: list[Any] = []
    result = await harness.run_attempt(attempt_params(
        tmp_path, "plan: read the code; write the fix", events=events))
    assert result.terminal.kind == "ok"
    assert [e.data for e in events if e.stream == "thinking"] == [{"delta": "planning first"}]
    (plan,) = [e.data for e in events if e.stream == "plan"]
    assert plan["entries"] == [{"content": "read the code", "status": "inProgress"},
                               {"content": "write the fix", "status": "pending"}]


async def test_the_app_servers_question_for_the_user_is_asked_through_the_host(
        tmp_path: Path, make_harness: MakeHarness) -> None:
    harness = make_harness(fake_config(tmp_path / "log.jsonl"))
    asked: list[tuple[list[dict[str, Any]], float | None]] = []

    async def ask(questions: list[dict[str, Any]], timeout: float | None) -> dict[str, Any]:
        asked.append((questions, timeout))
        return {"answers": {"pick": {"answers": ["coffee"]}}}

    params = replace(attempt_params(tmp_path, "ask the user: Tea or coffee?"),
                     request_user_input=ask)
    result = await harness.run_attempt(params)
    assert result.terminal.kind == "ok"
    [(questions, timeout)] = asked  # the questions as Codex sent them, and its timeout
    assert timeout == 30
    assert [(q["id"], q["question"], [o["label"] for o in q["options"]])
            for q in questions] == [("pick", "Tea or coffee?", ["tea", "coffee"])]
    # the app-server got the host's answers back as its request's result
    assert result.assistant_texts == [
        'echo: answers {"answers": {"pick": {"answers": ["coffee"]}}}']


async def test_a_question_with_no_one_to_ask_gets_empty_answers(
        tmp_path: Path, make_harness: MakeHarness) -> None:
    harness = make_harness(fake_config(tmp_path / "log.jsonl"))
    result = await harness.run_attempt(attempt_params(tmp_path, "ask the user: Tea?"))
    assert result.terminal.kind == "ok"
    assert result.assistant_texts == ['echo: answers {"answers": {}}']


async def test_a_crash_during_the_turn_fails_it_clearly(tmp_path: Path,
                                                        make_harness: MakeHarness) -> None:
    harness = make_harness(fake_config(tmp_path / "log.jsonl", FAKE_CRASH_ON="turn/start"))
    result = await harness.run_attempt(attempt_params(tmp_path, "hi"))
    assert result.terminal.kind == "failed"
    assert "exited with code 3" in (result.terminal.error or "")
    assert "simulated crash" in (result.terminal.error or "")
    assert result.extra["codexAppServerFailure"]["kind"] == \
        "client_closed_before_turn_completed"
    assert harness.pool.live_count == 0


async def test_an_aborted_attempt_does_not_start_anything(tmp_path: Path,
                                                          make_harness: MakeHarness) -> None:
    harness = make_harness(fake_config(tmp_path / "log.jsonl"))
    params = attempt_params(tmp_path, "hi")
    params.abort.set()
    result = await harness.run_attempt(params)
    assert result.terminal.kind == "aborted"
    assert harness.pool.pids == []


# --- supports(ctx) ----------------------------------------------------------------------------


def ctx(provider: str = "openai", *, ids: tuple[str, ...] | None = ("openclaw", "codex"),
        overrides: str = "none", base_url: str | None = "https://api.openai.com/v1",
        facts: bool = True) -> SupportContext:
    model_provider = ModelProviderFacts(
        api="openai-responses", base_url=base_url,
        request_transport_overrides=overrides,  # type: ignore[arg-type]
        runtime_policy=RuntimePolicyFact(ids) if ids is not None else None) if facts else None
    return SupportContext(provider=provider, model_id="gpt-x", model_provider=model_provider)


@pytest.fixture
def harness(tmp_path: Path) -> CodexHarness:
    return CodexHarness(AppServerConfig(), bindings=CodexBindings(lambda: None),  # type: ignore
                        home_root=tmp_path)


def test_claims_openai_when_the_route_declares_codex(harness: CodexHarness) -> None:
    assert isinstance(harness.supports(ctx()), Supported)


@pytest.mark.parametrize("context", [
    ctx(ids=("openclaw",)),
    ctx(ids=None),
    ctx(overrides="present"),
    ctx(facts=False),
])
def test_leaves_other_openai_routes_to_the_built_in_runtime(harness: CodexHarness,
                                                           context: SupportContext) -> None:
    answer = harness.supports(context)
    assert isinstance(answer, Unsupported) and answer.fallback_runtime == "openclaw"


def test_refuses_plaintext_official_endpoints_without_fallback(harness: CodexHarness) -> None:
    answer = harness.supports(ctx(base_url="http://api.openai.com/v1"))
    assert isinstance(answer, Unsupported) and answer.fallback_runtime is None
    assert "plaintext" in (answer.reason or "")


def test_refuses_other_providers(harness: CodexHarness) -> None:
    answer = harness.supports(ctx("anthropic"))
    assert isinstance(answer, Unsupported) and answer.fallback_runtime is None


@pytest.mark.parametrize("provider", ["codex", "openai-codex", "codex-cli"])
def test_accepts_legacy_codex_refs(harness: CodexHarness, provider: str) -> None:
    assert isinstance(harness.supports(ctx(provider, ids=None)), Supported)


def test_identity_and_auth_owner(harness: CodexHarness) -> None:
    assert (harness.id, harness.label, harness.auth_bootstrap) == ("codex", "OpenAI Codex",
                                                                  "harness")
    assert not hasattr(harness, "finalize_settled_turn")
    assert not hasattr(harness, "run_isolated_completion_v2")


async def test_a_continuation_travels_with_the_prompt_as_completed_work(
        tmp_path: Path, make_harness: MakeHarness) -> None:
    import json

    log = tmp_path / "log.jsonl"
    harness = make_harness(fake_config(log))
    params = replace(attempt_params(tmp_path, "finish the report"), continuation={
        "prompt": "finish the report", "messages": [
            {"role": "assistant", "content": [{"type": "toolCall", "name": "exec",
                                               "arguments": {"command": "make report"}}]},
            {"role": "assistant", "content": [{"type": "text", "text": "half done"}]}]})
    result = await harness.run_attempt(params)
    assert result.terminal.kind == "ok"
    (start,) = [json.loads(line) for line in log.read_text().splitlines()
                if json.loads(line).get("method") == "turn/start"]
    first, second = start["params"]["input"]
    assert first == {"type": "text", "text": "finish the report", "text_elements": []}
    assert "do not repeat its side effects" in second["text"]
    assert "tool call exec" in second["text"] and "assistant: half done" in second["text"]


async def test_a_failing_host_callback_ends_the_attempt_as_failed(
        tmp_path: Path, make_harness: MakeHarness) -> None:
    harness = make_harness(fake_config(tmp_path / "log.jsonl"))
    params = attempt_params(tmp_path, "hi")

    async def broken_mirror(messages: object) -> None:
        raise RuntimeError("transcript store is down")

    params = replace(params, mirror=broken_mirror)
    result = await harness.run_attempt(params)
    assert result.terminal.kind == "failed"
    assert result.terminal.error == "RuntimeError: transcript store is down"
    (proc,) = harness.pool.processes() or (None,)
    assert proc is None or proc.doomed  # it may still run the turn: no new turn goes there


async def test_the_thinking_level_is_the_turns_effort(tmp_path: Path,
                                                      make_harness: MakeHarness) -> None:
    import json

    log = tmp_path / "log.jsonl"
    harness = make_harness(fake_config(log))
    for level in ("high", "off", None):
        result = await harness.run_attempt(
            replace(attempt_params(tmp_path, "hi"), thinking_level=level))
        assert result.terminal.kind == "ok"
    starts = [json.loads(line)["params"] for line in log.read_text().splitlines()
              if json.loads(line).get("method") == "turn/start"]
    assert [s.get("effort") for s in starts] == ["high", "minimal", None]
