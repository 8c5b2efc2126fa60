"""`POST /v1/chat/completions`: a turn per request, answered whole or as SSE chunks.

SSE framing as the original writes it: `data: <chunk JSON>\n\n` per chunk (first the
assistant role, then content deltas), a last chunk with `finish_reason: "stop"`, then
`data: [DONE]\n\n`. A failed turn answers in OpenAI's error shape with the status and
`x-should-retry` of its failure class (`failures`). A streamed answer's headers wait
until the turn started (past its budgets' reservation) or ended, so a turn that fails
before it starts (a spent budget: 429) gets the same status as a whole answer; one that
fails after gets an `Error: ...` content chunk before `[DONE]` (the status is sent).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncIterator
from typing import Any, Final

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from clawharness.gateway.openai_http.answers import TurnAnswer
from clawharness.gateway.openai_http.auth import authorize
from clawharness.gateway.openai_http.client_tools import (
    HOST_TOOLS_HEADER,
    chat_tool_calls,
    chat_tool_results,
    client_tools,
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

__all__ = ["UNSUPPORTED_CHAT_PARAMETERS", "chat_completions"]

#: parameters that would change the answer's shape, refused by name (others, such as
#: temperature or max_tokens, are the agent's to decide and are ignored)
UNSUPPORTED_CHAT_PARAMETERS: Final = {
    "n": "one agent turn gives one choice (n must be 1)",
    "functions": "the deprecated `functions` are not supported: give them as `tools`",
    "function_call": "the deprecated `function_call` is not supported: use `tool_choice`",
    "logprobs": "the agent's answer carries no token log-probabilities",
    "top_logprobs": "the agent's answer carries no token log-probabilities",
    "response_format": "structured output is not enforced on an agent's answer",
    "audio": "answers are text only",
    "modalities": "answers are text only",
    "prediction": "predicted outputs are not supported",
}

SSE_HEADERS: Final = {"cache-control": "no-cache", "x-accel-buffering": "no"}


def sse(data: Any) -> bytes:
    return f"data: {json.dumps(data, ensure_ascii=False, separators=(',', ':'))}\n\n".encode()


def _usage(answer: TurnAnswer) -> dict[str, Any]:
    prompt, completion = answer.input_tokens, answer.output_tokens
    return {"prompt_tokens": prompt, "completion_tokens": completion,
            "total_tokens": prompt + completion,
            "prompt_tokens_details": {"cached_tokens": answer.cached_tokens},
            "completion_tokens_details": {"reasoning_tokens": answer.reasoning_tokens}}


async def chat_completions(api: HttpApi, request: Request) -> Response:
    settings = api.settings
    authorize(settings, request.headers, "agent")
    body = await read_json_body(request, settings.chat_completions_max_body)
    refuse_unsupported(body, UNSUPPORTED_CHAT_PARAMETERS)
    model = body.get("model")
    agent_id = api.agent_for(request, model)
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        raise OpenAiHttpError(400, "`stream` must be a boolean", param="stream")
    messages = body.get("messages")
    prompt = chat_prompt(messages)
    tools = client_tools(body, "chat")
    caller = api.caller(request)
    named = named_session_key(agent_id, header=request.headers.get(SESSION_HEADER),
                              user=body.get("user"), prefix="openai")
    going_on = await continuation(api, chat_tool_results(messages), session_key=named,
                                  explicit=False, caller=caller)
    if going_on is not None:
        session_key, message = going_on.session_key, going_on.results.message
        results = going_on.results.results
    else:
        session_key = named or f"agent:{agent_id}:openai:{_new_id()}"
        message, results = prompt.message, ()
    model_name = model if isinstance(model, str) else "openclaw"
    agent_id = api.agent_of_session(session_key)
    identity = api.identity(request, body)
    show_host_calls = request.headers.get(HOST_TOOLS_HEADER, "").strip().lower() == "include"
    source = await begin_turn(api.runs, api.keeper(), TurnRequest(
        "chatcmpl", session_key, agent_id, message, client_tools=tools, results=results,
        host_calls=show_host_calls, caller=caller,
        budget_caller=api.budget_caller(request, body),
        queue_mode=header_queue_mode(request.headers.get(QUEUE_HEADER)),
        trace_context=caller_trace_context(request.headers),
        thinking=request_thinking(body.get("reasoning_effort"), "reasoning_effort")),
        identity=identity)
    headers = source.headers()
    if not stream:
        answer = await source.answer()
        if not answer.ok and not answer.text:
            raise failure_error(answer, idempotent=source.idempotent, headers=headers)
        return JSONResponse({
            "id": source.run_id, "object": "chat.completion", "created": source.created,
            "model": model_name,
            "choices": [{"index": 0, "message": _message(answer),
                         "finish_reason": _finish(answer)}],
            "usage": _usage(answer),
        }, headers=headers)
    options = body.get("stream_options")
    include_usage = isinstance(options, dict) and options.get("include_usage") is True
    events = TurnStream(source, on_overflow=lambda: api.drop_client(request))
    await events.check_start(headers)
    return StreamingResponse(_stream(source, model_name, events, include_usage),
                             media_type="text/event-stream",
                             headers={**SSE_HEADERS, **headers})


def _finish(answer: TurnAnswer) -> str:
    if answer.client_calls:
        return "tool_calls"
    return "stop" if answer.ok else "length"


def _message(answer: TurnAnswer) -> dict[str, Any]:
    """The answer's assistant message: its text, and the calls of the client's tools it
    stopped at (with the host's own calls when the client asked to see them)."""
    message: dict[str, Any] = {"role": "assistant", "content": answer.text}
    if answer.client_calls:
        message["content"] = answer.text or None
        message["tool_calls"] = chat_tool_calls(answer.client_calls)
    if answer.host_calls:
        message["openclaw_host_tool_calls"] = [c.to_json() for c in answer.host_calls]
    return message


def _new_id() -> str:
    return str(uuid.uuid4())


def _chunk(source: TurnSource, model: str, delta: dict[str, Any],
           finish: str | None = None) -> dict[str, Any]:
    return {"id": source.run_id, "object": "chat.completion.chunk", "created": source.created,
            "model": model, "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}


async def _stream(source: TurnSource, model: str, events: TurnStream,
                  include_usage: bool = False) -> AsyncIterator[bytes]:
    try:
        yield sse(_chunk(source, model, {"role": "assistant", "content": ""}))
        async for delta in events.deltas():
            yield sse(_chunk(source, model, {"content": delta}))
        answer = await events.outcome()
        if not answer.ok and not answer.text:
            yield sse(_chunk(source, model, {"content": f"Error: {answer.error}"}))
        elif not events.saw_delta and answer.text:
            yield sse(_chunk(source, model, {"content": answer.text}))
        if answer.host_calls:
            yield sse(_chunk(source, model, {"openclaw_host_tool_calls": [
                c.to_json() for c in answer.host_calls]}))
        if answer.client_calls:
            calls = [{"index": i, **call}
                     for i, call in enumerate(chat_tool_calls(answer.client_calls))]
            yield sse(_chunk(source, model, {"tool_calls": calls}))
        yield sse(_chunk(source, model, {}, _finish(answer)))
        if include_usage:  # OpenAI's `stream_options.include_usage`: one last chunk
            yield sse({"id": source.run_id, "object": "chat.completion.chunk",
                       "created": source.created, "model": model, "choices": [],
                       "usage": _usage(answer)})
        yield b"data: [DONE]\n\n"
    finally:
        events.close()
