"""Tool calls exactly once across a retried run (`TurnOptions.durable_tools`): what a
cluster worker's turn does when Temporal retries it, here in-process on SQLite."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from clawharness.attempt.turn import TurnOptions
from clawharness.store import ToolCallKey

FULL_EXEC = {"exec": {"security": "full", "ask": "off"}}


def append_call(path: Path, call_id: str = "call_append") -> dict[str, Any]:
    return {"tool_calls": [{"name": "exec", "id": call_id,
                            "arguments": {"command": f"echo line >> {path}"}}]}


async def test_a_retried_run_replays_the_committed_outcome_and_runs_nothing_again(
        scripted_host: Any, tmp_path: Path) -> None:
    # in the workspace: exec runs sandboxed where it can, and sees nothing else
    log = tmp_path / "workspace" / "log.txt"
    host, _ = await scripted_host({"responses": [
        append_call(log), {"text": "first attempt done"},
        append_call(log), {"text": "retry done"}]}, tools=FULL_EXEC)
    durable = TurnOptions(run_id="run-1", durable_tools=True)
    first = await host.run_turn("s", "append a line", durable)
    assert [(c.tool_name, c.is_error) for c in first.tool_calls] == [("exec", False)]
    assert log.read_text() == "line\n"
    before = [(e.role, e.text) for e in await host.history("s")]
    # the same run again, as a retry: the model asks for the same call, which replays
    retry = await host.run_turn("s", "append a line",
                                TurnOptions(run_id="run-1", durable_tools=True,
                                            resumes_run=True))
    assert retry.terminal == "ok"
    assert [(c.tool_name, c.is_error) for c in retry.tool_calls] == [("exec", False)]
    assert log.read_text() == "line\n"  # exactly once
    # the retry's messages are the run's own: idempotent, nothing doubled
    assert [(e.role, e.text) for e in await host.history("s")] == before


async def test_a_state_changing_call_started_without_an_outcome_is_reported_interrupted(
        scripted_host: Any, tmp_path: Path) -> None:
    log = tmp_path / "log.txt"
    host, server = await scripted_host({"responses": [
        {"text": "seed"}, append_call(log), {"text": "I will check the file first"}]},
        tools=FULL_EXEC)
    await host.run_turn("s", "seed")
    record = await host.get_session("s")
    # an earlier attempt of run-2 claimed the call and died before its outcome
    await host.store.claim_tool_call(ToolCallKey(record.session_id, "run-2", "call_append"),
                                     tool_name="exec", state_changing=True)
    result = await host.run_turn("s", "append a line",
                                 TurnOptions(run_id="run-2", durable_tools=True,
                                             resumes_run=True))
    assert result.terminal == "ok" and result.tool_calls[0].is_error is True
    assert not log.exists()  # never silently re-run
    [tool_result] = [e for e in await host.history("s") if e.role == "toolResult"]
    assert tool_result.text is not None
    assert "interrupted with unknown effect" in tool_result.text
    # the model was told so, in the request after the call
    assert "interrupted with unknown effect" in str(server.requests[-1].body)


async def test_a_read_only_call_started_without_an_outcome_runs_again(
        scripted_host: Any, tmp_path: Path) -> None:
    (tmp_path / "workspace").mkdir(exist_ok=True)
    (tmp_path / "workspace" / "a.txt").write_text("contents of a")
    host, _ = await scripted_host({"responses": [
        {"text": "seed"},
        {"tool_calls": [{"name": "read", "id": "call_read", "arguments": {"path": "a.txt"}}]},
        {"text": "read it"}]})
    await host.run_turn("s", "seed")
    record = await host.get_session("s")
    await host.store.claim_tool_call(ToolCallKey(record.session_id, "run-3", "call_read"),
                                     tool_name="read", state_changing=False)
    result = await host.run_turn("s", "read a.txt",
                                 TurnOptions(run_id="run-3", durable_tools=True,
                                             resumes_run=True))
    assert [(c.tool_name, c.is_error) for c in result.tool_calls] == [("read", False)]
    [tool_result] = [e for e in await host.history("s") if e.role == "toolResult"]
    assert "contents of a" in (tool_result.text or "")


async def test_a_retried_run_does_not_see_its_own_lost_entries_as_history(
        scripted_host: Any) -> None:
    host, server = await scripted_host({"responses": [
        {"text": "seed reply"}, {"text": "lost reply"}, {"text": "retried reply"}]})
    await host.run_turn("s", "seed")
    await host.run_turn("s", "question", TurnOptions(run_id="run-4"))
    await host.run_turn("s", "question", TurnOptions(run_id="run-4", resumes_run=True))
    sent = str(server.requests[-1].body)
    assert "seed reply" in sent and "lost reply" not in sent
    assert sent.count("question") == 1
    # the first attempt's messages stay, under their keys; nothing doubled
    assert [(e.role, e.text) for e in await host.history("s")] == [
        ("user", "seed"), ("assistant", "seed reply"),
        ("user", "question"), ("assistant", "lost reply")]


async def test_a_durable_run_whose_transcript_ends_with_it_knows_it_is_resumed(
        scripted_host: Any) -> None:
    # a worker that died mid-turn could not say the next attempt is a retry (the turn
    # ran where its workflow task ran): the transcript ending with the run says so
    host, server = await scripted_host({"responses": [
        {"text": "seed reply"}, {"text": "lost reply"}, {"text": "retried reply"}]})
    await host.run_turn("s", "seed")
    first = await host.run_turn("s", "question", TurnOptions(run_id="run-5",
                                                             durable_tools=True))
    assert not first.resumed_run
    again = await host.run_turn("s", "question", TurnOptions(run_id="run-5",
                                                             durable_tools=True))
    assert again.resumed_run is True
    sent = str(server.requests[-1].body)
    assert "seed reply" in sent and "lost reply" not in sent
    assert sent.count("question") == 1


async def test_a_run_id_used_again_without_durable_tools_is_not_taken_for_a_retry(
        scripted_host: Any) -> None:
    host, server = await scripted_host({"responses": [
        {"text": "first reply"}, {"text": "second reply"}]})
    await host.run_turn("s", "question", TurnOptions(run_id="run-6"))
    again = await host.run_turn("s", "question again", TurnOptions(run_id="run-6"))
    assert not again.resumed_run
    assert "first reply" in str(server.requests[-1].body)
