"""`POST /v1/responses`: OpenAI's Responses API over one agent turn.

`input` is a string or a list of message items (`{role, content}` or `{type: "message",
...}`, with `input_text` parts; `function_call_output` items count as tool messages);
`instructions` come first as the caller's instructions. `previous_response_id` continues
the session that response ran on (remembered for the gateway's life, bounded). Streaming
sends the Responses event sequence (`response.created`, `response.in_progress`,
`response.output_item.added`, `response.content_part.added`, `response.output_text.delta`
..., `...done`, then `response.completed` or `response.failed`) as `event:`/`data:` frames.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator, Mapping
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from clawharness.gateway.openai_http.answers import TurnAnswer
from clawharness.gateway.openai_http.auth import authorize
from clawharness.gateway.openai_http.chat import SSE_HEADERS
from clawharness.gateway.openai_http.client_tools import (
    HOST_TOOLS_HEADER,
    client_tools,
    function_call_item,
    host_call_item,
    responses_tool_results,
)
from clawharness.gateway.openai_http.context import HttpApi, read_json_body
from clawharness.gateway.openai_http.continuation import continuation
from clawharness.gateway.openai_http.errors import OpenAiHttpError
from clawharness.gateway.openai_http.failures import failure_error
from clawharness.gateway.openai_http.routing import (
    SESSION_HEADER,
    chat_prompt,
    named_session_key,
    refuse_unsupported,
)
from clawharness.gateway.openai_http.turns import (
    QUEUE_HEADER,
    TurnRequest,
    TurnSource,
    TurnStream,
    begin_turn,
    header_queue_mode,
    request_thinking,
)
from clawharness.observability import caller_trace_context

__all__ = ["UNSUPPORTED_RESPONSES_PARAMETERS", "input_messages", "responses"]

UNSUPPORTED_RESPONSES_PARAMETERS: Final = {
    "background": "responses run in the foreground of the request",
    "prompt": "stored prompt templates are not supported",
    "conversation": "use previous_response_id, `user` or the x-openclaw-session-key header",
    "text": "structured output is not enforced on an agent's answer",
    "include": "no extra output data is available",
}


def _thinking(reasoning: Any) -> str | None:
    """`reasoning: {effort}` as this message's thinking level (its `summary` is ignored)."""
    if reasoning is None:
        return None
    if not isinstance(reasoning, Mapping):
        raise OpenAiHttpError(400, "`reasoning` must be an object", param="reasoning")
    return request_thinking(reasoning.get("effort"), "reasoning.effort")


def input_messages(value: Any, instructions: Any) -> list[dict[str, Any]]:
    """`input` (and `instructions`) as a chat message list; OpenAiHttpError when unusable."""
    messages: list[dict[str, Any]] = []
    if instructions is not None:
        if not isinstance(instructions, str):
            raise OpenAiHttpError(400, "`instructions` must be a string", param="instructions")
        messages.append({"role": "system", "content": instructions})
    if isinstance(value, str):
        messages.append({"role": "user", "content": value})
        return messages
    if not isinstance(value, list) or not value:
        raise OpenAiHttpError(400, "`input` must be a string or a non-empty array of items",
                              param="input")
    for index, item in enumerate(value):
        if not isinstance(item, Mapping):
            raise OpenAiHttpError(400, f"`input[{index}]` must be an object",
                                  param=f"input[{index}]")
        kind = item.get("type", "message")
        if kind == "message":
            messages.append({"role": item.get("role"), "content": item.get("content")})
        elif kind == "function_call_output":
            output = item.get("output", "")
            messages.append({"role": "tool", "content": output if isinstance(output, str | list)
                             else str(output)})
        elif kind == "function_call":  # an earlier answer's call, as context
            messages.append({"role": "assistant", "content":
                             f"[called {item.get('name')}({item.get('arguments', '')})]"})
        elif kind == "input_text":
            messages.append({"role": "user", "content": item.get("text")})
        else:
            raise OpenAiHttpError(400, f"`input[{index}].type` {kind!r} is not supported "
                                  "(message, input_text, function_call, "
                                  "function_call_output)",
                                  param=f"input[{index}].type")
    return messages


def _usage(answer: TurnAnswer) -> dict[str, Any]:
    given, taken = answer.input_tokens, answer.output_tokens
    return {"input_tokens": given, "output_tokens": taken, "total_tokens": given + taken,
            "input_tokens_details": {"cached_tokens": answer.cached_tokens},
            "output_tokens_details": {"reasoning_tokens": answer.reasoning_tokens}}


class _Shape:
    """The response object and its items, as the stream and the final answer send them."""

    def __init__(self, source: TurnSource, model: str, body: Mapping[str, Any]) -> None:
        self.id = source.run_id
        # made from the response id, so a replayed answer names its items alike
        self.message_id = f"msg_{source.run_id.partition('_')[2] or source.run_id}"
        self.model = model
        self.created_at = source.created
        self.body = body

    def message(self, text: str | None, status: str) -> dict[str, Any]:
        content = [] if text is None else [self.part(text)]
        return {"type": "message", "id": self.message_id, "status": status,
                "role": "assistant", "content": content}

    @staticmethod
    def part(text: str) -> dict[str, Any]:
        return {"type": "output_text", "text": text, "annotations": []}

    def output(self, answer: TurnAnswer) -> list[dict[str, Any]]:
        """The answer's items: its message (when it said something), the host's tool
        calls (when asked for), then the calls of the client's tools it stopped at."""
        items: list[dict[str, Any]] = []
        if answer.text or not answer.client_calls:
            items.append(self.message(answer.text, "completed"))
        items += [host_call_item(call) for call in answer.host_calls]
        items += [function_call_item(call) for call in answer.client_calls]
        return items

    def response(self, status: str, output: list[dict[str, Any]],
                 answer: TurnAnswer | None = None) -> dict[str, Any]:
        error = None
        if answer is not None and not answer.ok:
            error = {"code": answer.error_type or "server_error", "message": answer.error}
        return {
            "id": self.id, "object": "response", "created_at": self.created_at,
            "status": status, "model": self.model, "output": output,
            "error": error, "incomplete_details": None,
            "instructions": self.body.get("instructions"), "metadata": {},
            "parallel_tool_calls": self.body.get("parallel_tool_calls") is not False,
            "tool_choice": self.body.get("tool_choice") or "auto",
            "tools": self.body.get("tools") or [],
            "previous_response_id": self.body.get("previous_response_id"),
            "user": self.body.get("user"), "text": {"format": {"type": "text"}},
            "truncation": "disabled",
            "usage": _usage(answer) if answer is not None else None,
        }


async def responses(api: HttpApi, request: Request) -> Response:
    settings = api.settings
    authorize(settings, request.headers, "agent")
    body = await read_json_body(request, settings.responses_max_body)
    refuse_unsupported(body, UNSUPPORTED_RESPONSES_PARAMETERS)
    model = body.get("model")
    agent_id = api.agent_for(request, model)
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        raise OpenAiHttpError(400, "`stream` must be a boolean", param="stream")
    prompt = chat_prompt(input_messages(body.get("input"), body.get("instructions")),
                         field="input")
    tools = client_tools(body, "responses")
    caller = api.caller(request)
    header = request.headers.get(SESSION_HEADER)
    previous = body.get("previous_response_id")
    explicit = False
    if previous is not None and not (header and header.strip()):
        remembered = (await api.keeper().memory.recall("response", previous)
                      if isinstance(previous, str) else None)
        if remembered is None:
            raise OpenAiHttpError(400, f"previous_response_id {previous!r} is not a response "
                                  "this gateway remembers", param="previous_response_id",
                                  code="previous_response_not_found")
        header, explicit = remembered, True
    named = named_session_key(agent_id, header=header, user=body.get("user"),
                              prefix="openresponses")
    going_on = await continuation(api, responses_tool_results(body.get("input")),
                                  session_key=named, explicit=explicit, caller=caller)
    if going_on is not None:
        session_key, message = going_on.session_key, going_on.results.message
        results = going_on.results.results
    else:
        session_key = named or f"agent:{agent_id}:openresponses:{uuid.uuid4()}"
        message, results = prompt.message, ()
    agent_id = api.agent_of_session(session_key)
    identity = api.identity(request, body)
    show_host_calls = request.headers.get(HOST_TOOLS_HEADER, "").strip().lower() == "include"
    source = await begin_turn(api.runs, api.keeper(), TurnRequest(
        "resp", session_key, agent_id, message, client_tools=tools, results=results,
        host_calls=show_host_calls, caller=caller,
        budget_caller=api.budget_caller(request, body),
        queue_mode=header_queue_mode(request.headers.get(QUEUE_HEADER)),
        trace_context=caller_trace_context(request.headers),
        thinking=_thinking(body.get("reasoning"))), identity=identity)
    await api.keeper().memory.remember("response", source.run_id, source.session_key)
    shape = _Shape(source, model if isinstance(model, str) else "openclaw", body)
    headers = source.headers()
    if not stream:
        answer = await source.answer()
        if not answer.ok and not answer.text:
            raise failure_error(answer, idempotent=source.idempotent, headers=headers)
        status = "completed" if answer.ok else "incomplete"
        return JSONResponse(shape.response(status, shape.output(answer), answer),
                            headers=headers)
    events = TurnStream(source, on_overflow=lambda: api.drop_client(request))
    await events.check_start(headers)
    return StreamingResponse(_stream(shape, events), media_type="text/event-stream",
                             headers={**SSE_HEADERS, **headers})


async def _stream(shape: _Shape, events: TurnStream) -> AsyncIterator[bytes]:
    seq = 0

    def frame(kind: str, **fields: Any) -> bytes:
        nonlocal seq
        data = {"type": kind, "sequence_number": seq, **fields}
        seq += 1
        return (f"event: {kind}\n"
                f"data: {json.dumps(data, ensure_ascii=False, separators=(',', ':'))}\n\n"
                ).encode()

    where = {"item_id": shape.message_id, "output_index": 0, "content_index": 0}
    opened = False

    def open_message() -> list[bytes]:
        nonlocal opened
        opened = True
        return [frame("response.output_item.added", output_index=0,
                      item=shape.message(None, "in_progress")),
                frame("response.content_part.added", **where, part=shape.part(""))]

    try:
        yield frame("response.created", response=shape.response("in_progress", []))
        yield frame("response.in_progress", response=shape.response("in_progress", []))
        text = ""
        async for delta in events.deltas():
            if not opened:
                for opening in open_message():
                    yield opening
            text += delta
            yield frame("response.output_text.delta", **where, delta=delta)
        answer = await events.outcome()
        failed = not answer.ok and not answer.text
        if not events.saw_delta and answer.text and not failed:
            for opening in open_message():
                yield opening
            text = answer.text
            yield frame("response.output_text.delta", **where, delta=text)
        if not opened and not answer.client_calls:
            for opening in open_message():  # an answer without words still has its item
                yield opening
        items: list[dict[str, Any]] = []
        if opened:
            yield frame("response.output_text.done", **where, text=text)
            yield frame("response.content_part.done", **where, part=shape.part(text))
            item = shape.message(text, "incomplete" if failed else "completed")
            yield frame("response.output_item.done", output_index=0, item=item)
            items.append(item)
        for host in answer.host_calls:
            item = host_call_item(host)
            yield frame("response.output_item.added", output_index=len(items), item=item)
            yield frame("response.output_item.done", output_index=len(items), item=item)
            items.append(item)
        for call in answer.client_calls:
            index, item = len(items), function_call_item(call)
            started = {**function_call_item(call, "in_progress"), "arguments": ""}
            yield frame("response.output_item.added", output_index=index, item=started)
            yield frame("response.function_call_arguments.delta", item_id=item["id"],
                        output_index=index, delta=call.arguments)
            yield frame("response.function_call_arguments.done", item_id=item["id"],
                        output_index=index, name=call.name, arguments=call.arguments)
            yield frame("response.output_item.done", output_index=index, item=item)
            items.append(item)
        status = "failed" if failed else "completed" if answer.ok else "incomplete"
        yield frame(f"response.{status}", response=shape.response(status, items, answer))
    finally:
        events.close()
