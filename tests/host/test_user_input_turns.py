"""A harness's question for the user travels the host's blocking reply path."""

from __future__ import annotations

import asyncio
from typing import Any

from clawharness.attempt.turn import TurnOptions
from clawharness.harness.user_input_delivery import PendingQuestions

CONFIG = {"plugins": {"load": ["host_fake_plugins:asking_entry"]},
          "agents": {"defaults": {"model": "scripted/m1", "models": {
              "scripted/m1": {"agentRuntime": {"id": "asking"}}}}}}


async def test_the_library_api_answers_a_pending_question(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": []}, **CONFIG)
    questions = PendingQuestions()
    turn = asyncio.create_task(host.run_turn("q", "go", TurnOptions(user_input=questions)))
    prompt = await asyncio.wait_for(questions.next_question(), 5)
    assert "Which color?" in prompt.text and prompt.session_key == "agent:main:q"
    assert questions.answer(prompt.question_id, "2")
    result = await asyncio.wait_for(turn, 5)
    assert result.text == "you picked blue"


async def test_no_channel_means_empty_answers_not_a_hang(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": []}, **CONFIG)
    result = await asyncio.wait_for(host.run_turn("q2", "go"), 5)
    assert result.text == "you picked nothing"
