"""Sessions across turns and processes on the real Codex app-server: resume, crash,
interrupt, deadline, concurrency, and the bounded process pool."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest
from codex_rig import MakeRig, app_servers_of, conversation, eventually

pytestmark = pytest.mark.integration


async def test_a_thread_resumes_in_a_fresh_process_after_a_restart(make_rig: MakeRig) -> None:
    script = {"responses": [{"text": "first reply", "match": "^first$"},
                            {"text": "second reply", "match": "^second$"}]}
    rig = await make_rig(script)
    one = await rig.harness.run_attempt(rig.attempt("first").params)
    first_pid = rig.harness.pool.pids[0]
    await rig.harness.pool.close()  # the host went away; bindings and CODEX_HOME remain

    # a new harness (new pool) on the same binding store and CODEX_HOME root
    from clawharness.harnesses.codex.harness import CodexHarness

    again = CodexHarness(rig.harness.config, bindings=rig.harness.bindings,
                         home_root=rig.harness.pool.home_root)
    try:
        attempt = rig.attempt("second")
        two = await again.run_attempt(attempt.params)
        assert two.terminal.kind == "ok" and two.assistant_texts == ["second reply"]
        assert two.extra["codexThreadId"] == one.extra["codexThreadId"]
        assert again.pool.pids and again.pool.pids[0] != first_pid
        assert conversation(rig.model_requests()[-1]) == [
            ("user", "first"), ("assistant", "first reply"), ("user", "second")]
    finally:
        await again.pool.close()


async def test_a_killed_process_fails_its_turn_and_the_session_resumes_elsewhere(
        make_rig: MakeRig) -> None:
    rig = await make_rig({"responses": [
        {"text": "one", "match": "^one$"},
        {"text": "never sent", "match": "^two$", "delay_ms": 30000},
        {"text": "three", "match": "^three$"}]})
    await rig.harness.run_attempt(rig.attempt("one").params)
    (pid,) = rig.harness.pool.pids

    attempt = rig.attempt("two")
    running = asyncio.create_task(rig.harness.run_attempt(attempt.params))
    await eventually(lambda: len(rig.server.requests) == 2, what="the second model request")
    os.kill(pid, signal.SIGKILL)
    failed = await asyncio.wait_for(running, 20)
    assert failed.terminal.kind == "failed"
    assert "killed by signal 9" in (failed.terminal.error or "")
    assert failed.extra["codexAppServerFailure"]["kind"] == "client_closed_before_turn_completed"
    assert rig.harness.pool.live_count == 0

    three = await rig.harness.run_attempt(rig.attempt("three").params)
    assert three.terminal.kind == "ok" and three.assistant_texts == ["three"]
    assert len(rig.harness.pool.pids) == 2
    assert three.extra["codexThreadId"] == failed.extra["codexThreadId"]
    history = conversation(rig.model_requests()[-1])
    assert history[:2] == [("user", "one"), ("assistant", "one")]
    assert history[-1] == ("user", "three")


async def test_an_abort_interrupts_the_turn(make_rig: MakeRig) -> None:
    rig = await make_rig({"responses": [{"text": "too late", "delay_ms": 30000},
                                        {"text": "after the interrupt"}]})
    abort = asyncio.Event()
    attempt = rig.attempt("slow one", abort=abort)
    running = asyncio.create_task(rig.harness.run_attempt(attempt.params))
    await eventually(lambda: len(rig.server.requests) == 1, what="the model request")
    abort.set()
    result = await asyncio.wait_for(running, 10)
    assert result.terminal.kind == "aborted" and result.terminal.source == "external"
    assert result.assistant_texts == []
    assert attempt.roles() == ["user"]
    # the process survived the interrupt and the thread goes on
    after = await rig.harness.run_attempt(rig.attempt("next").params)
    assert after.assistant_texts == ["after the interrupt"]
    assert len(rig.harness.pool.pids) == 1


async def test_the_deadline_interrupts_the_turn_as_a_timeout(make_rig: MakeRig) -> None:
    rig = await make_rig({"responses": [{"text": "too late", "delay_ms": 30000}]})
    attempt = rig.attempt("slow", timeout=1.5)
    result = await asyncio.wait_for(rig.harness.run_attempt(attempt.params), 15)
    assert result.terminal.kind == "timeout"
    assert "deadline" in (result.terminal.error or "")


async def test_overlapping_turns_on_different_sessions_do_not_disturb_each_other(
        make_rig: MakeRig) -> None:
    rig = await make_rig({"responses": [
        {"text": "answer for alpha", "match": "alpha", "delay_ms": 600},
        {"text": "answer for beta", "match": "beta", "delay_ms": 600}]})
    alpha = rig.attempt("alpha question", session_key="agent:main:alpha")
    beta = rig.attempt("beta question", session_key="agent:main:beta")
    a, b = await asyncio.gather(rig.harness.run_attempt(alpha.params),
                                rig.harness.run_attempt(beta.params))
    assert a.assistant_texts == ["answer for alpha"]
    assert b.assistant_texts == ["answer for beta"]
    assert a.extra["codexThreadId"] != b.extra["codexThreadId"]
    assert [m["content"][0]["text"] for m in alpha.mirrored.values()] == [
        "alpha question", "answer for alpha"]
    assert [m["content"][0]["text"] for m in beta.mirrored.values()] == [
        "beta question", "answer for beta"]
    assert alpha.partials[-1] == "answer for alpha" and beta.partials[-1] == "answer for beta"
    first, second = sorted(r.ts for r in rig.server.requests)
    assert second - first < 0.6, "the second turn waited for the first"
    assert len(rig.harness.pool.pids) == 1  # one process hosted both threads


async def test_two_turns_on_one_session_are_serialised(make_rig: MakeRig) -> None:
    rig = await make_rig({"responses": [
        {"text": "slow first", "match": "^one$", "delay_ms": 500},
        {"text": "then second", "match": "^two$"}]})
    first = rig.attempt("one")
    second = rig.attempt("two")
    one = asyncio.create_task(rig.harness.run_attempt(first.params))
    await eventually(lambda: len(rig.server.requests) == 1, what="the first model request")
    two = asyncio.create_task(rig.harness.run_attempt(second.params))
    r1, r2 = await asyncio.gather(one, two)
    assert r1.assistant_texts == ["slow first"] and r2.assistant_texts == ["then second"]
    # the second turn started only after the first completed: it sees the first's reply
    assert conversation(rig.model_requests()[1]) == [
        ("user", "one"), ("assistant", "slow first"), ("user", "two")]


async def test_ten_sessions_share_a_pool_of_two_processes(make_rig: MakeRig) -> None:
    sessions = [f"s{i}" for i in range(10)]
    script = {"responses": [{"text": f"reply {s} r{r}", "match": f"^{s} r{r}$"}
                            for s in sessions for r in (1, 2)]}
    rig = await make_rig(script, max_processes=2, max_threads_per_process=2)
    peak = 0
    sampling = True

    async def sample() -> None:
        nonlocal peak
        while sampling:
            servers = len(app_servers_of(os.getpid()))
            peak = max(peak, servers)
            await asyncio.sleep(0.02)

    sampler = asyncio.create_task(sample())
    results = {}
    try:
        for round_ in (1, 2):
            # interleave: every session's turn of this round runs at the same time
            attempts = {s: rig.attempt(f"{s} r{round_}", session_key=f"agent:main:{s}")
                        for s in sessions}
            done = await asyncio.gather(*(rig.harness.run_attempt(a.params)
                                          for a in attempts.values()))
            results[round_] = dict(zip(sessions, done, strict=True))
    finally:
        sampling = False
        await sampler
    for s in sessions:
        one, two = results[1][s], results[2][s]
        assert one.assistant_texts == [f"reply {s} r1"]
        assert two.assistant_texts == [f"reply {s} r2"]
        assert one.extra["codexThreadId"] == two.extra["codexThreadId"]
    for body in rig.model_requests():
        talk = conversation(body)
        s, round_ = talk[-1][1].split()
        if round_ == "r2":  # history intact, and only this session's
            assert talk == [("user", f"{s} r1"), ("assistant", f"reply {s} r1"),
                            ("user", f"{s} r2")]
    assert rig.harness.pool.peak <= 2
    assert peak <= 2
    assert len(rig.harness.pool.pids) > 2, "the pool never had to evict (test too weak)"


async def test_an_idle_process_is_closed_and_the_thread_resumes_later(
        make_rig: MakeRig) -> None:
    rig = await make_rig({"responses": [{"text": "a", "match": "^a$"},
                                        {"text": "b", "match": "^b$"}]},
                         idle_timeout_seconds=0.3)
    first = await rig.harness.run_attempt(rig.attempt("a").params)
    await eventually(lambda: rig.harness.pool.live_count == 0, what="the idle process to close")
    second = await rig.harness.run_attempt(rig.attempt("b").params)
    assert second.assistant_texts == ["b"]
    assert second.extra["codexThreadId"] == first.extra["codexThreadId"]
    assert len(rig.harness.pool.pids) == 2
    assert conversation(rig.model_requests()[-1]) == [("user", "a"), ("assistant", "a"),
                                                      ("user", "b")]


async def test_reset_starts_a_new_thread_and_mcp_inventory_needs_a_live_binding(
        make_rig: MakeRig) -> None:
    from clawharness.sessions.lifecycle import SessionHookParams
    from clawharness.tools.mcp_catalog import McpCatalogParams

    rig = await make_rig({"responses": [{"text": "x", "match": "^x$"},
                                        {"text": "y", "match": "^y$"}]})
    catalog_params = McpCatalogParams(agent_id="main", session_id="sid-agent:main:s1",
                                      session_key="agent:main:s1",
                                      workspace_dir=str(rig.workspace), mcp_server_names=())
    assert await rig.harness.load_mcp_tool_catalog(catalog_params) is None  # nothing bound
    before = await rig.harness.run_attempt(rig.attempt("x").params)
    catalog = await rig.harness.load_mcp_tool_catalog(catalog_params)
    assert catalog is not None and catalog["servers"] == {} and catalog["tools"] == []
    spawned = len(rig.harness.pool.pids)

    await rig.harness.reset(SessionHookParams(
        agent_id="main", session_key="agent:main:s1", session_id="sid-agent:main:s1",
        reason="reset", store_url=""))
    assert await rig.harness.load_mcp_tool_catalog(catalog_params) is None
    assert len(rig.harness.pool.pids) == spawned  # inventory never starts a process
    after = await rig.harness.run_attempt(rig.attempt("y").params)
    assert after.extra["codexThreadId"] != before.extra["codexThreadId"]
    assert conversation(rig.model_requests()[-1]) == [("user", "y")]


async def test_host_tools_still_work_after_the_thread_resumes_in_a_new_process(
        make_rig: MakeRig) -> None:
    from collections.abc import Mapping
    from typing import Any

    from clawharness.harness.types import ToolCallContext, ToolSpec

    async def lookup(args: Mapping[str, Any], ctx: ToolCallContext) -> dict[str, Any]:
        return {"content": [{"type": "text", "text": f"found {args['q']}"}]}

    tool = ToolSpec("lookup", "Look something up", {
        "type": "object", "properties": {"q": {"type": "string"}}}, lookup)
    rig = await make_rig({"responses": [
        {"text": "hi", "match": "^first$"},
        {"tool_calls": [{"name": "lookup", "arguments": {"q": "x"}}], "match": "^second$"},
        {"text": "looked it up", "match": "found x"}]}, idle_timeout_seconds=0.2)
    await rig.harness.run_attempt(rig.attempt("first", tools=[tool]).params)
    await eventually(lambda: rig.harness.pool.live_count == 0, what="the idle process to close")
    attempt = rig.attempt("second", tools=[tool])
    result = await rig.harness.run_attempt(attempt.params)
    assert len(rig.harness.pool.pids) == 2
    assert result.terminal.kind == "ok" and result.assistant_texts == ["looked it up"]
    assert result.tool_metas[0].tool_name == "lookup" and not result.tool_metas[0].is_error
    assert "lookup" in [t.get("name") for t in rig.model_requests()[1]["tools"]]


async def test_deleting_the_session_removes_its_binding_at_commit(make_rig: MakeRig) -> None:
    from clawharness.harnesses.codex.bindings import binding_key
    from clawharness.sessions.lifecycle import SessionHookParams

    rig = await make_rig({"responses": [{"text": "x"}]})
    await rig.harness.run_attempt(rig.attempt("x").params)
    key = binding_key("main", "agent:main:s1")
    assert await rig.harness.bindings.read(key) is not None
    params = SessionHookParams(agent_id="main", session_key="agent:main:s1",
                               session_id="sid-agent:main:s1", reason="deleted", store_url="")
    seen: list[bool] = []

    async def host_transaction(commit: object, rollback: object) -> str:
        assert callable(commit)
        seen.append(await rig.harness.bindings.read(key) is not None)
        commit()
        seen.append(await rig.harness.bindings.read(key) is not None)
        return "deleted"

    assert await rig.harness.with_session_deletion(params, host_transaction) == "deleted"
    assert seen == [True, False]
    assert await rig.harness.bindings.read(key) is None


async def test_a_cancelled_attempt_interrupts_codex_and_retires_the_process(
        make_rig: MakeRig) -> None:
    rig = await make_rig({"responses": [{"text": "too late", "match": "^slow$",
                                         "delay_ms": 30000},
                                        {"text": "fine", "match": "^next$"}]})
    attempt = rig.attempt("slow", timeout=None)
    running = asyncio.create_task(rig.harness.run_attempt(attempt.params))
    await eventually(lambda: len(rig.server.requests) == 1, what="the model request")
    running.cancel()
    with pytest.raises(asyncio.CancelledError):
        await running
    first_pid = rig.harness.pool.pids[0]
    await eventually(lambda: rig.harness.pool.live_count == 0,
                     what="the process of the cancelled turn to retire")
    after = await rig.harness.run_attempt(rig.attempt("next").params)
    assert after.terminal.kind == "ok" and after.assistant_texts == ["fine"]
    assert rig.harness.pool.pids[-1] != first_pid
