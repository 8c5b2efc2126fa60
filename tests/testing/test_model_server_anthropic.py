"""The scripted model server through the official `anthropic` SDK: Messages and count_tokens."""

from __future__ import annotations

import httpx

USER = [{"role": "user", "content": "hello"}]


async def test_messages_stream_sends_events_in_the_claude_code_order(serve, anthropic_for):
    async with serve({"responses": [{"text": "streamed text answer"}]}) as server:
        stream = await anthropic_for(server).messages.create(
            model="claude-x", max_tokens=100, messages=USER, stream=True)
        events = [e async for e in stream]

    kinds = [e.type for e in events]
    deltas = kinds.count("content_block_delta")
    assert deltas > 1
    assert kinds == ["message_start", "content_block_start", *["content_block_delta"] * deltas,
                     "content_block_stop", "message_delta", "message_stop"]
    assert events[0].message.content == []
    assert "".join(e.delta.text for e in events if e.type == "content_block_delta") == (
        "streamed text answer")
    assert events[-2].delta.stop_reason == "end_turn"


async def test_messages_stream_tool_use_input_is_reassembled(serve, anthropic_for):
    args = {"command": "touch marker.txt", "description": "make a file " * 5}
    script = {"responses": [{"text": "on it", "tool_calls": [
        {"name": "Bash", "arguments": args, "id": "toolu_fixed"}]}]}
    async with serve(script) as server, anthropic_for(server).messages.stream(
        model="m", max_tokens=100, messages=USER) as stream:
        raw = [e async for e in stream]
        message = await stream.get_final_message()

    start = next(e for e in raw if e.type == "content_block_start" and e.index == 1)
    assert start.content_block.type == "tool_use" and start.content_block.input == {}
    pieces = [e.delta.partial_json for e in raw
              if e.type == "content_block_delta" and e.delta.type == "input_json_delta"]
    assert len(pieces) > 1
    assert message.stop_reason == "tool_use"
    assert [b.type for b in message.content] == ["text", "tool_use"]
    tool = message.content[1]
    assert (tool.id, tool.name, tool.input) == ("toolu_fixed", "Bash", args)


async def test_messages_non_streaming_answers_a_message(serve, anthropic_for):
    script = {"responses": [{"text": "plain", "usage": {"input_tokens": 12, "output_tokens": 2}}]}
    async with serve(script) as server:
        message = await anthropic_for(server).messages.create(
            model="claude-x", max_tokens=10, messages=USER)

    assert message.model == "claude-x"
    assert [b.text for b in message.content] == ["plain"]
    assert message.stop_reason == "end_turn"
    assert (message.usage.input_tokens, message.usage.output_tokens) == (12, 2)


async def test_count_tokens_answers_without_using_a_script_item(serve, anthropic_for):
    async with serve({"responses": [{"text": "still here"}]}) as server:
        client = anthropic_for(server)
        counted = await client.messages.count_tokens(model="m", messages=USER)
        message = await client.messages.create(model="m", max_tokens=10, messages=USER)

    assert counted.input_tokens > 0
    assert message.content[0].text == "still here"


async def test_preflight_and_beta_query_are_served(serve):
    async with serve({"responses": [{"text": "beta ok"}]}) as server, httpx.AsyncClient() as http:
        head = await http.head(server.url + "/")
        get = await http.get(server.url + "/")
        answer = await http.post(server.url + "/v1/messages?beta=true", json={
            "model": "m", "max_tokens": 5, "messages": USER})
        logged = server.requests

    assert (head.status_code, get.status_code) == (200, 200)
    assert answer.status_code == 200 and answer.json()["content"][0]["text"] == "beta ok"
    assert (logged[-1].path, logged[-1].query) == ("/v1/messages", "beta=true")


async def test_tool_result_block_is_the_text_a_match_sees(serve, anthropic_for):
    script = {"responses": [{"text": "ordered"}, {"match": "marker created", "text": "done"}]}
    messages = [
        {"role": "user", "content": "make a marker"},
        {"role": "assistant", "content": [
            {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "touch m"}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "t1",
             "content": [{"type": "text", "text": "marker created"}]}]},
    ]
    async with serve(script) as server:
        message = await anthropic_for(server).messages.create(
            model="m", max_tokens=10, messages=messages)

    assert message.content[0].text == "done"
    assert server.used_items == {1}


async def test_thinking_streams_as_a_thinking_block_before_the_text(serve, anthropic_for):
    script = {"responses": [{"thinking": "weigh the options", "text": "option two"}]}
    async with serve(script) as server, anthropic_for(server).messages.stream(
            model="claude-x", max_tokens=100, messages=USER) as stream:
        final = await stream.get_final_message()

    thinking, text = final.content
    assert thinking.type == "thinking" and thinking.thinking == "weigh the options"
    assert thinking.signature == "scripted-signature"
    assert text.type == "text" and text.text == "option two"
