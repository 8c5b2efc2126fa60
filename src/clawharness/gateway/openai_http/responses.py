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
from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from clawharness.gateway.openai_http.answers import TurnAnswer
from clawharness.gateway.openai_http.auth import authorize
from clawharness.gateway.openai_http.chat import SSE_HEADERS
from clawharness.gateway.openai_http.context import HttpApi, read_json_body
from clawharness.gateway.openai_http.errors import OpenAiHttpError
from clawharness.gateway.openai_http.failures import failure_error
from clawharness.gateway.openai_http.routing import (
    SESSION_HEADER,
    chat_prompt,
    refuse_unsupported,
    resolve_session_key,
)
from clawharness.gateway.openai_http.turns import (
    TurnRequest,
    TurnSource,
    TurnStream,
    begin_turn,
)

__all__ = ["UNSUPPORTED_RESPONSES_PARAMETERS", "input_messages", "responses"]

UNSUPPORTED_RESPONSES_PARAMETERS: Final = {
    "tools": "the agent runs its own tools; client-side tools are not offered to it",
    "tool_choice": "the agent runs its own tools",
    "background": "responses run in the foreground of the request",
    "prompt": "stored prompt templates are not supported",
    "conversation": "use previous_response_id, `user` or the x-openclaw-session-key header",
    "text": "structured output is not enforced on an agent's answer",
    "reasoning": "reasoning settings are the agent's model configuration",
    "include": "no extra output data is available",
}
#: response id -> session key, for previous_response_id
REMEMBERED_RESPONSES: Final = 1000


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
            messages.append({"role": "tool", "content": str(item.get("output", ""))})
        elif kind == "input_text":
            messages.append({"role": "user", "content": item.get("text")})
        else:
            raise OpenAiHttpError(400, f"`input[{index}].type` {kind!r} is not supported "
                                  "(message, input_text, function_call_output)",
                                  param=f"input[{index}].type")
    return messages


def _usage(answer: TurnAnswer) -> dict[str, Any]:
    given, taken = answer.input_tokens, answer.output_tokens
    return {"input_tokens": given, "output_tokens": taken, "total_tokens": given + taken,
            "input_tokens_details": {"cached_tokens": 0},
            "output_tokens_details": {"reasoning_tokens": 0}}


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
            "parallel_tool_calls": False, "tool_choice": "auto", "tools": [],
            "previous_response_id": self.body.get("previous_response_id"),
            "user": self.body.get("user"), "text": {"format": {"type": "text"}},
            "truncation": "disabled",
            "usage": _usage(answer) if answer is not None else None,
        }


def _remembered(api: HttpApi) -> OrderedDict[str, str]:
    return api.responses_sessions


def _remember(api: HttpApi, response_id: str, session_key: str) -> None:
    memory = _remembered(api)
    memory[response_id] = session_key
    while len(memory) > REMEMBERED_RESPONSES:
        memory.popitem(last=False)


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
    header = request.headers.get(SESSION_HEADER)
    previous = body.get("previous_response_id")
    if previous is not None and not (header and header.strip()):
        if not isinstance(previous, str) or previous not in _remembered(api):
            raise OpenAiHttpError(400, f"previous_response_id {previous!r} is not a response "
                                  "this gateway remembers", param="previous_response_id",
                                  code="previous_response_not_found")
        header = _remembered(api)[previous]
    session_key = resolve_session_key(agent_id, header=header, user=body.get("user"),
                                      prefix="openresponses", new_id=str(uuid.uuid4()))
    agent_id = api.agent_of_session(session_key)
    identity = api.identity(request, body)
    source = await begin_turn(
        api.runs, TurnRequest("resp", session_key, agent_id, prompt.message),
        keyed=None if identity is None else api.keyed_runs(), identity=identity)
    _remember(api, source.run_id, source.session_key)
    shape = _Shape(source, model if isinstance(model, str) else "openclaw", body)
    headers = source.headers()
    if not stream:
        answer = await source.answer()
        if not answer.ok and not answer.text:
            raise failure_error(answer, idempotent=source.idempotent, headers=headers)
        output = [shape.message(answer.text, "completed")]
        status = "completed" if answer.ok else "incomplete"
        return JSONResponse(shape.response(status, output, answer), headers=headers)
    events = TurnStream(source, on_overflow=lambda: api.drop_client(request))
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
    try:
        yield frame("response.created", response=shape.response("in_progress", []))
        yield frame("response.in_progress", response=shape.response("in_progress", []))
        yield frame("response.output_item.added", output_index=0,
                    item=shape.message(None, "in_progress"))
        yield frame("response.content_part.added", **where, part=shape.part(""))
        text = ""
        async for delta in events.deltas():
            text += delta
            yield frame("response.output_text.delta", **where, delta=delta)
        answer = await events.outcome()
        if answer.ok and not events.saw_delta and answer.text:
            text = answer.text
            yield frame("response.output_text.delta", **where, delta=text)
        yield frame("response.output_text.done", **where, text=text)
        yield frame("response.content_part.done", **where, part=shape.part(text))
        status = "completed" if answer.ok else "failed"
        item = shape.message(text, "completed" if answer.ok else "incomplete")
        yield frame("response.output_item.done", output_index=0, item=item)
        yield frame(f"response.{status}", response=shape.response(status, [item], answer))
    finally:
        events.close()
