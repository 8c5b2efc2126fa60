"""Approvals and questions for the user across the cluster: the turn runs on a worker,
its front's caller answers."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import pytest
from cluster_rig import PG_URL, ClusterRig, Gate, drop_schema, new_schema_name

from clawharness.attempt.turn import TurnOptions
from clawharness.cluster.events import TurnEventRelay
from clawharness.cluster.questions import RelayedUserInput, answer_question
from clawharness.harness.capabilities import ApprovalDecision
from clawharness.harness.user_input import UserInputOption, UserInputQuestion
from clawharness.harness.user_input_delivery import UserInputPrompt
from clawharness.host import Host

pytestmark = pytest.mark.integration


def _touch_script(marker: Path) -> dict[str, object]:
    return {"responses": [
        {"match": "^touch it$", "tool_calls": [
            {"name": "exec", "arguments": {"command": f"touch {marker}"}, "id": "call_t"}]},
        {"match": ".", "text": "done asking"}]}


@pytest.mark.parametrize(("decision", "runs"), [("allow-once", True), ("deny", False)])
async def test_a_tool_needing_approval_asks_the_fronts_gate_and_obeys_it(
        make_rig, tmp_path: Path, decision: ApprovalDecision, runs: bool) -> None:
    marker = tmp_path / "ws" / "approved-marker"  # exec sees the workspace only
    rig: ClusterRig = make_rig(_touch_script(marker))
    rig.write_config(tools={"exec": {"security": "full", "ask": "always"}})
    rig.start_worker("w1")
    gate = Gate(decision)
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        result = await front.run_turn("s", "touch it", TurnOptions(approvals=gate))
        entries = await front.history("s")
    assert result.terminal == "ok", result.error
    [asked] = gate.asked
    assert asked.tool_name == "exec" and asked.arguments == {"command": f"touch {marker}"}
    assert asked.run_id == result.run_id and asked.session_key == "agent:main:s"
    assert asked.tool_call_id == "call_t"
    assert marker.exists() is runs
    [tool_result] = [e for e in entries if e.role == "toolResult"]
    assert ("was not run: approval refused" in (tool_result.text or "")) is not runs


async def test_a_front_without_a_gate_gets_no_question_and_the_tool_is_refused(
        make_rig, tmp_path: Path) -> None:
    marker = tmp_path / "ws" / "unasked-marker"
    rig: ClusterRig = make_rig(_touch_script(marker))
    rig.write_config(tools={"exec": {"security": "full", "ask": "always"}})
    rig.start_worker("w1")
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        result = await asyncio.wait_for(front.run_turn("s", "touch it"), 60)
        entries = await front.history("s")
    assert result.terminal == "ok" and not marker.exists()
    [tool_result] = [e for e in entries if e.role == "toolResult"]
    assert "was not run" in (tool_result.text or "")


class _Channel:
    """A front's caller answering questions: the colour it was given, and what it heard."""

    def __init__(self, answer: str | None) -> None:
        self.answer = answer
        self.heard: list[UserInputPrompt] = []

    async def ask(self, prompt: UserInputPrompt) -> str | None:
        self.heard.append(prompt)
        return self.answer


#: the test kit's asking harness (tests/host/host_fake_plugins.py): one question, then it
#: says what was picked
ASKING_FAKES = Path(__file__).resolve().parents[1] / "host"


def _asking_rig(make_rig: Callable[[dict[str, object]], ClusterRig]) -> ClusterRig:
    """A worker whose agent runs on the asking harness (it never calls the model)."""
    rig = make_rig({"responses": [{"text": "unused"}]})
    rig.write_config(plugins={"load": ["host_fake_plugins:asking_entry"]},
                     agents={"defaults": {"model": "scripted/m",
                                          "workspace": str(rig.root / "ws"),
                                          "models": {"scripted/m": {
                                              "agentRuntime": {"id": "asking"}}}}})
    rig.start_worker("w1", env={"PYTHONPATH": str(ASKING_FAKES)})
    return rig


@pytest.mark.parametrize(("answer", "said"), [("2", "you picked blue"),
                                              (None, "you picked nothing")])
async def test_a_plugin_harness_on_a_worker_asks_the_fronts_caller_and_hears_the_answer(
        make_rig, answer: str | None, said: str) -> None:
    rig = _asking_rig(make_rig)
    channel = _Channel(answer)
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        result = await asyncio.wait_for(
            front.run_turn("s", "go", TurnOptions(user_input=channel)), 60)
    assert (result.terminal, result.text, result.runtime) == ("ok", said, "asking"), \
        result.error
    assert result.cluster.worker == "w1"
    [prompt] = channel.heard  # asked once, on the front, with the question whole
    assert prompt.run_id == result.run_id and prompt.session_key == "agent:main:s"
    [question] = prompt.questions
    assert (question.id, question.question) == ("color", "Which color?")
    assert [o.label for o in question.options] == ["red", "blue"]


async def test_a_front_that_cannot_ask_gets_its_harness_empty_answers_not_a_hang(
        make_rig) -> None:
    rig = _asking_rig(make_rig)
    async with Host.from_config(rig.config_path, env=rig.env()) as front:
        result = await asyncio.wait_for(front.run_turn("s", "go"), 60)
    assert (result.terminal, result.text) == ("ok", "you picked nothing"), result.error


async def test_a_question_for_the_user_goes_to_the_front_and_its_answer_comes_back() -> None:
    """The relay's half of a native runtime's question (Codex `request_user_input`): the
    worker's channel asks, a front's loop answers with its caller's channel."""
    schema = new_schema_name()
    import psycopg

    with psycopg.connect(PG_URL, autocommit=True) as conn:
        conn.execute(f'CREATE SCHEMA "{schema}"')
    url = f"{PG_URL}?options=-csearch_path%3D{schema}"
    worker, front = TurnEventRelay(url), TurnEventRelay(url)
    channel = _Channel("blue")
    prompt = UserInputPrompt(
        question_id="q1", text="Which colour?", timeout_seconds=30, run_id="t1",
        session_key="agent:main:s", questions=(UserInputQuestion(
            id="colour", header="Colour", question="Which colour?",
            options=(UserInputOption("blue", "the sky"), UserInputOption("red"))),))
    try:
        await worker.open()
        await front.open()
        await worker.listen()
        await front.listen()
        arrived = front.subscribe("t1")
        asking = asyncio.ensure_future(RelayedUserInput(worker, "t1").ask(prompt))
        while not (events := await front.read("t1")):
            arrived.clear()
            await asyncio.wait_for(arrived.wait(), 5)
        [event] = events
        assert event.kind == "question"
        await answer_question(front, "t1", event, TurnOptions(user_input=channel))
        assert await asyncio.wait_for(asking, 10) == "blue"
        assert channel.heard == [prompt]  # the prompt crossed whole, options and all
    finally:
        await worker.close()
        await front.close()
        drop_schema(schema)
