"""The OpenAI Agents SDK (`openai-agents`) runs an agent with a function tool against the
gateway as its model provider: the host's agent is the model, the SDK runs the tool."""

from __future__ import annotations

from typing import Any

import pytest
from agents import (
    Agent,
    Model,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    Runner,
    function_tool,
    set_tracing_disabled,
)
from http_support import TOKEN, ServeFactory
from openai import AsyncOpenAI

SCRIPT = {"responses": [
    {"match": "weather", "repeat": True,
     "tool_calls": [{"name": "get_weather", "arguments": {"city": "Oslo"}}]},
    {"match": "sunny in Oslo", "repeat": True, "text": "It is sunny in Oslo today."},
]}


@pytest.fixture(autouse=True)
def no_tracing() -> None:
    set_tracing_disabled(True)  # the SDK would export traces to OpenAI


def weather_agent(model: Model, ran: list[str]) -> Agent[Any]:
    @function_tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        ran.append(city)
        return f"sunny in {city}, 21 C"

    return Agent(name="weather", instructions="Answer questions about the weather.",
                 tools=[get_weather], model=model)


@pytest.mark.parametrize("api", ["responses", "chat"])
async def test_an_agents_sdk_agent_runs_its_function_tool_through_the_gateway(
        serve: ServeFactory, api: str) -> None:
    async with serve(SCRIPT) as served:
        client = AsyncOpenAI(base_url=served.v1, api_key=TOKEN)
        model: Model = (OpenAIResponsesModel("openclaw", client) if api == "responses"
                        else OpenAIChatCompletionsModel("openclaw", client))
        ran: list[str] = []
        result = await Runner.run(weather_agent(model, ran), "What is the weather in Oslo?")
        assert result.final_output == "It is sunny in Oslo today."
        assert ran == ["Oslo"]  # the SDK ran its tool, once
        sessions = await served.host.list_sessions()
        assert len(sessions) == 1
        history = await served.host.history(sessions[0].key)
        assert [e.role for e in history] == ["user", "assistant", "toolResult", "assistant"]
        assert "sunny in Oslo, 21 C" in str(history[2].content)


async def test_a_streamed_agents_sdk_run(serve: ServeFactory) -> None:
    async with serve(SCRIPT) as served:
        client = AsyncOpenAI(base_url=served.v1, api_key=TOKEN)
        ran: list[str] = []
        run = Runner.run_streamed(weather_agent(OpenAIResponsesModel("openclaw", client), ran),
                                  "What is the weather in Oslo?")
        kinds = [event.type async for event in run.stream_events()]
        assert run.final_output == "It is sunny in Oslo today."
        assert ran == ["Oslo"]
        assert "raw_response_event" in kinds and "run_item_stream_event" in kinds
        assert len(await served.host.list_sessions()) == 1
