"""The real `openai` SDK against the gateway's OpenAI-compatible endpoints."""

from __future__ import annotations

import httpx
import openai
import pytest
from http_support import TOKEN, ServeFactory

HELLO = {"responses": [{"text": "Hello from the agent."}]}
TOOL = {"responses": [
    {"tool_calls": [{"name": "exec", "arguments": {"command": "echo tool-ran"}, "id": "call_1"}]},
    {"text": "The command printed tool-ran."},
]}


def client(base: str, token: str | None = TOKEN) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=f"{base}/v1", api_key=token or "none", max_retries=0)


async def test_models_list_and_get(serve: ServeFactory) -> None:
    async with serve(HELLO) as served:
        sdk = client(served.base)
        page = await sdk.models.list()
        ids = [m.id for m in page.data]
        assert ids == ["openclaw", "openclaw/default", "openclaw/main", "openclaw/helper"]
        one = await sdk.models.retrieve("openclaw/helper")
        assert (one.id, one.owned_by) == ("openclaw/helper", "openclaw")
        with pytest.raises(openai.NotFoundError) as missing:
            await sdk.models.retrieve("gpt-4o")
        assert missing.value.body["code"] == "model_not_found"  # type: ignore[index]


async def test_chat_completion_runs_a_turn_into_a_stateless_session(
        serve: ServeFactory) -> None:
    async with serve(HELLO) as served:
        sdk = client(served.base)
        raw = await sdk.chat.completions.with_raw_response.create(
            model="openclaw", messages=[{"role": "user", "content": "hi"}])
        answer = raw.parse()
        assert answer.choices[0].message.content == "Hello from the agent."
        assert answer.choices[0].finish_reason == "stop"
        assert answer.id.startswith("chatcmpl_")
        key = raw.headers["x-openclaw-session-key"]
        assert key.startswith("agent:main:openai:")
        history = await served.host.history(key)
        assert [e.role for e in history][-2:] == ["user", "assistant"]


async def test_the_user_field_names_a_stable_session_and_the_model_an_agent(
        serve: ServeFactory) -> None:
    script = {"responses": [{"text": "one"}, {"text": "two"}]}
    async with serve(script) as served:
        sdk = client(served.base)
        for _ in range(2):
            raw = await sdk.chat.completions.with_raw_response.create(
                model="openclaw/helper", user="ada",
                messages=[{"role": "user", "content": "again"}])
            assert raw.headers["x-openclaw-session-key"] == "agent:helper:openai-user:ada"
        history = await served.host.history("agent:helper:openai-user:ada")
        assert [e.role for e in history if e.role in ("user", "assistant")] == [
            "user", "assistant", "user", "assistant"]


async def test_chat_completion_streams_deltas_then_done(serve: ServeFactory) -> None:
    async with serve(HELLO) as served:
        sdk = client(served.base)
        stream = await sdk.chat.completions.create(
            model="agent:main", stream=True, messages=[{"role": "user", "content": "hi"}])
        chunks = [chunk async for chunk in stream]
        text = "".join(c.choices[0].delta.content or "" for c in chunks)
        assert text == "Hello from the agent."
        assert chunks[0].choices[0].delta.role == "assistant"
        assert chunks[-1].choices[0].finish_reason == "stop"
        assert len([c for c in chunks if c.choices[0].delta.content]) > 1


async def test_stream_options_include_usage_adds_a_usage_chunk(serve: ServeFactory) -> None:
    async with serve(HELLO) as served:
        stream = await client(served.base).chat.completions.create(
            model="openclaw", stream=True, stream_options={"include_usage": True},
            messages=[{"role": "user", "content": "hi"}])
        chunks = [chunk async for chunk in stream]
        assert chunks[-1].choices == [] and chunks[-1].usage is not None
        assert chunks[-1].usage.total_tokens > 0


async def test_sse_framing_ends_with_done(serve: ServeFactory) -> None:
    async with serve(HELLO) as served, httpx.AsyncClient() as http:
        response = await http.post(
            f"{served.v1}/chat/completions", headers={"authorization": f"Bearer {TOKEN}"},
            json={"model": "openclaw", "stream": True,
                  "messages": [{"role": "user", "content": "hi"}]})
        assert response.headers["content-type"].startswith("text/event-stream")
        frames = response.text.split("\n\n")
        assert frames[-2:] == ["data: [DONE]", ""]
        assert all(f.startswith("data: ") for f in frames[:-1])


async def test_a_tool_calling_turn_lands_in_the_transcript(serve: ServeFactory) -> None:
    async with serve(TOOL) as served:
        sdk = client(served.base)
        raw = await sdk.chat.completions.with_raw_response.create(
            model="openclaw", user="tools", messages=[{"role": "user", "content": "run it"}])
        assert raw.parse().choices[0].message.content == "The command printed tool-ran."
        history = await served.host.history(raw.headers["x-openclaw-session-key"])
        text = " ".join(str(e.to_json() if hasattr(e, "to_json") else e) for e in history)
        assert "exec" in text and "tool-ran" in text


async def test_responses_non_streaming_and_streaming(serve: ServeFactory) -> None:
    script = {"responses": [{"text": "First answer."}, {"text": "Second answer."}]}
    async with serve(script) as served:
        sdk = client(served.base)
        first = await sdk.responses.create(model="openclaw", input="hello",
                                           instructions="be brief")
        assert first.output_text == "First answer."
        assert first.status == "completed"
        async with sdk.responses.stream(model="openclaw", input="and again",
                                        previous_response_id=first.id) as stream:
            kinds = [event.type async for event in stream]
            final = await stream.get_final_response()
        assert final.output_text == "Second answer."
        assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
        assert "response.output_text.delta" in kinds
        sessions = {r.key for r in await served.host.list_sessions()}
        assert len([k for k in sessions if ":openresponses:" in k]) == 1


@pytest.mark.parametrize("token", [None, "wrong-token"])
async def test_a_wrong_or_missing_token_gets_401_in_openais_shape(
        serve: ServeFactory, token: str | None) -> None:
    async with serve(HELLO) as served:
        if token is None:
            async with httpx.AsyncClient() as http:
                response = await http.get(f"{served.v1}/models")
            assert response.status_code == 401
            assert response.json()["error"]["type"] == "unauthorized"
            return
        with pytest.raises(openai.AuthenticationError) as denied:
            await client(served.base, token).chat.completions.create(
                model="openclaw", messages=[{"role": "user", "content": "hi"}])
        assert denied.value.status_code == 401
        assert denied.value.body == {"message": "Unauthorized", "type": "unauthorized",
                                     "param": None, "code": "invalid_api_key"}
        assert served.model.requests == [] or all(
            r.get("path") != "/v1/responses" for r in served.model.requests)


async def test_the_answers_usage_is_the_turns_token_counts(serve: ServeFactory) -> None:
    script = {"responses": [{"text": "counted", "usage": {"input_tokens": 12,
                                                           "output_tokens": 3}},
                            {"text": "counted", "usage": {"input_tokens": 7,
                                                           "output_tokens": 2}},
                            {"text": "cached", "usage": {"input_tokens": 10,
                                                          "cached_input_tokens": 6,
                                                          "output_tokens": 1}}]}
    async with serve(script) as served:
        sdk = client(served.base)
        chat = await sdk.chat.completions.create(
            model="openclaw", messages=[{"role": "user", "content": "hi"}])
        assert chat.usage is not None
        assert (chat.usage.prompt_tokens, chat.usage.completion_tokens,
                chat.usage.total_tokens) == (12, 3, 15)
        assert chat.usage.prompt_tokens_details.cached_tokens == 0  # type: ignore[union-attr]
        answer = await sdk.responses.create(model="openclaw", input="hi")
        assert answer.usage is not None
        assert (answer.usage.input_tokens, answer.usage.output_tokens) == (7, 2)
        # cached input is inside the input count, as OpenAI reports it, and in its details
        cached = await sdk.responses.create(model="openclaw", input="hi")
        assert cached.usage is not None
        assert (cached.usage.input_tokens, cached.usage.total_tokens) == (10, 11)
        assert cached.usage.input_tokens_details.cached_tokens == 6


async def test_a_reasoning_effort_is_the_turns_thinking_level(serve: ServeFactory) -> None:
    script = {"responses": [{"match": "[\\s\\S]", "repeat": True, "text": "thought"}]}
    async with serve(script) as served:
        sdk = client(served.base)
        await sdk.chat.completions.create(model="openclaw", reasoning_effort="low",
                                          messages=[{"role": "user", "content": "hi"}])
        assert served.model.requests[-1].to_json()["body"]["reasoning"] == {"effort": "low"}
        await sdk.responses.create(model="openclaw", input="hi",
                                   reasoning={"effort": "high", "summary": "auto"})
        assert served.model.requests[-1].to_json()["body"]["reasoning"] == {"effort": "high"}
        await sdk.chat.completions.create(model="openclaw",
                                          messages=[{"role": "user", "content": "hi"}])
        assert "reasoning" not in served.model.requests[-1].to_json()["body"]
        with pytest.raises(openai.BadRequestError) as bad:
            await sdk.chat.completions.create(
                model="openclaw", messages=[{"role": "user", "content": "hi"}],
                extra_body={"reasoning_effort": "enormous"})
        assert bad.value.body["param"] == "reasoning_effort"  # type: ignore[index]
