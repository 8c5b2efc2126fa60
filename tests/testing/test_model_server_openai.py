"""The scripted model server through the official `openai` SDK: Responses and Chat."""

from __future__ import annotations

import json

import httpx

USER = [{"role": "user", "content": "hello"}]


async def test_responses_stream_sends_the_codex_event_sequence(serve, openai_for):
    async with serve({"responses": [{"text": "hello from the script", "usage": {
            "input_tokens": 7, "output_tokens": 3}}]}) as server:
        stream = await openai_for(server).responses.create(model="gpt-5.5", input=USER, stream=True)
        events = [event async for event in stream]

    kinds = [e.type for e in events]
    assert kinds[0] == "response.created"
    assert kinds[-1] == "response.completed"
    assert kinds.index("response.output_item.added") < kinds.index("response.output_text.delta")
    deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
    assert len(deltas) > 1 and "".join(deltas) == "hello from the script"
    done = next(e for e in events if e.type == "response.output_item.done")
    assert done.item.type == "message"
    assert done.item.content[0].type == "output_text"
    assert done.item.content[0].text == "hello from the script"
    usage = events[-1].response.usage
    assert (usage.input_tokens, usage.output_tokens, usage.total_tokens) == (7, 3, 10)


async def test_responses_minimal_stream_sends_only_the_listed_events(serve, openai_for):
    script = {"responses_stream": "minimal", "responses": [
        {"text": "abcdef"}, {"tool_calls": [{"name": "f", "arguments": {}}]}]}
    async with serve(script) as server:
        client = openai_for(server)
        text = [e.type async for e in await client.responses.create(
            model="m", input="hi", stream=True)]
        call = [e.type async for e in await client.responses.create(
            model="m", input="hi", stream=True)]

    allowed = {"response.created", "response.output_item.added", "response.output_text.delta",
               "response.output_item.done", "response.completed"}
    assert set(text) == allowed
    assert call == ["response.created", "response.output_item.added",
                    "response.output_item.done", "response.completed"]


async def test_responses_stream_helper_assembles_text_and_function_call(serve, openai_for):
    script = {"responses": [{"text": "let me look", "tool_calls": [
        {"name": "exec_command", "arguments": {"cmd": "ls -la"}, "id": "call_fixed"}]}]}
    async with serve(script) as server:
        client = openai_for(server)
        async with client.responses.stream(model="m", input="list files") as stream:
            final = await stream.get_final_response()

    assert final.output_text == "let me look"
    call = final.output[1]
    assert call.type == "function_call"
    assert (call.name, call.call_id) == ("exec_command", "call_fixed")
    assert json.loads(call.arguments) == {"cmd": "ls -la"}


async def test_responses_non_streaming_answers_json(serve, openai_for):
    script = {"responses": [{"tool_calls": [{"name": "a", "arguments": {"x": 1}},
                                            {"name": "b", "arguments": {"y": 2}}]}]}
    async with serve(script) as server:
        response = await openai_for(server).responses.create(model="m", input="go")

    assert response.status == "completed"
    assert [(o.type, o.name, json.loads(o.arguments)) for o in response.output] == [
        ("function_call", "a", {"x": 1}), ("function_call", "b", {"y": 2})]
    assert response.output[0].call_id != response.output[1].call_id
    assert response.usage is not None and response.usage.total_tokens > 0


async def test_custom_apply_patch_is_sent_as_freeform_custom_tool_call(serve, openai_for):
    patch = "*** Begin Patch\n*** Add File: a.txt\n+hi\n*** End Patch"
    script = {"responses": [{"tool_calls": [
        {"name": "apply_patch", "custom": True, "input": patch, "id": "call_p"}]}]}
    async with serve(script) as server:
        stream = await openai_for(server).responses.create(model="m", input="patch", stream=True)
        events = [e async for e in stream]

    done = next(e for e in events if e.type == "response.output_item.done")
    assert done.item.type == "custom_tool_call"
    assert (done.item.name, done.item.call_id, done.item.input) == ("apply_patch", "call_p", patch)


async def test_function_call_output_is_the_text_a_match_sees(serve, openai_for):
    script = {"responses": [
        {"match": "exit code 0", "text": "the command worked"},
        {"text": "ordered answer"},
    ]}
    tool_turn = [
        {"role": "user", "content": [{"type": "input_text", "text": "run it"}]},
        {"type": "function_call", "call_id": "c1", "name": "exec_command", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "done, exit code 0"},
    ]
    async with serve(script) as server:
        client = openai_for(server)
        first = await client.responses.create(model="m", input=tool_turn)
        second = await client.responses.create(model="m", input="anything")

    assert first.output_text == "the command worked"
    assert second.output_text == "ordered answer"


async def test_chat_stream_reassembles_text_and_parallel_tool_calls(serve, openai_for):
    script = {"responses": [{"text": "calling two tools", "tool_calls": [
        {"name": "read", "arguments": {"path": "a.txt"}},
        {"name": "write", "arguments": {"path": "b.txt", "content": "x" * 40}}]}]}
    async with serve(script) as server, openai_for(server).chat.completions.stream(
        model="fake", messages=USER, stream_options={"include_usage": True}
    ) as stream:
        completion = await stream.get_final_completion()

    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content == "calling two tools"
    calls = choice.message.tool_calls or []
    assert [c.function.name for c in calls] == ["read", "write"]
    assert json.loads(calls[1].function.arguments) == {"path": "b.txt", "content": "x" * 40}
    assert completion.usage is not None and completion.usage.total_tokens > 0


async def test_chat_stream_wire_has_index_pieces_usage_chunk_and_done(serve):
    script = {"responses": [{"tool_calls": [{"name": "f", "arguments": {"k": "v" * 30}}]}]}
    async with serve(script) as server, httpx.AsyncClient() as http:
        raw = await http.post(f"{server.base_url_openai}/chat/completions", json={
            "model": "m", "messages": USER, "stream": True,
            "stream_options": {"include_usage": True}})

    lines = [ln[len("data: "):] for ln in raw.text.splitlines() if ln.startswith("data: ")]
    assert lines[-1] == "[DONE]"
    chunks = [json.loads(x) for x in lines[:-1]]
    pieces = [c["choices"][0]["delta"]["tool_calls"][0] for c in chunks
              if c["choices"] and "tool_calls" in c["choices"][0]["delta"]]
    assert pieces[0]["id"] and pieces[0]["function"]["name"] == "f"
    assert len(pieces) > 2 and all(p["index"] == 0 for p in pieces)
    assert json.loads("".join(p["function"]["arguments"] for p in pieces)) == {"k": "v" * 30}
    assert chunks[-2]["choices"][0]["finish_reason"] == "tool_calls"
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] > 0


async def test_chat_non_streaming_and_tool_message_match(serve, openai_for):
    script = {"responses": [{"match": "^42$", "text": "the answer is 42"}, {"text": "plain"}]}
    messages = [
        {"role": "user", "content": "compute"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "calc", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "42"},
    ]
    async with serve(script) as server:
        client = openai_for(server)
        matched = await client.chat.completions.create(model="m", messages=messages)
        plain = await client.chat.completions.create(model="m", messages=USER)

    assert matched.choices[0].message.content == "the answer is 42"
    assert matched.choices[0].finish_reason == "stop"
    assert plain.choices[0].message.content == "plain"


async def test_models_list_answers_for_probing_clients(serve, openai_for):
    async with serve({"responses": []}) as server:
        page = await openai_for(server).models.list()

    assert "scripted" in [m.id for m in page.data]


async def test_thinking_streams_as_a_reasoning_summary_the_sdk_assembles(serve, openai_for):
    script = {"responses": [{"thinking": "the user wants a list", "text": "here it is"}]}
    async with serve(script) as server:
        client = openai_for(server)
        async with client.responses.stream(model="m", input="list") as stream:
            deltas = [e.delta async for e in stream
                      if e.type == "response.reasoning_summary_text.delta"]
            final = await stream.get_final_response()

    assert "".join(deltas) == "the user wants a list" and len(deltas) > 1
    assert final.output[0].type == "reasoning"
    assert final.output[0].summary[0].text == "the user wants a list"
    assert final.output_text == "here it is"


async def test_thinking_in_chat_completions_is_reasoning_content(serve, openai_for):
    script = {"responses": [{"thinking": "hmm", "text": "ok"}]}
    async with serve(script) as server:
        stream = await openai_for(server).chat.completions.create(
            model="m", messages=[{"role": "user", "content": "x"}], stream=True)
        pieces = [(c.choices[0].delta.model_extra or {}).get("reasoning_content")
                  async for c in stream if c.choices]
    assert "".join(p for p in pieces if p) == "hmm"
