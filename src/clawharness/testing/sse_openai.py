"""OpenAI wire encoders: the Responses API and Chat Completions, streaming and not.

Each streaming encoder returns the whole list of SSE frames; for a cut reply it returns
only the frames up to the first content delta (or the first frame when there is none),
and the server then drops the connection.
"""

from __future__ import annotations

import json
import time
from typing import Any, Literal

from clawharness.providers.script import ScriptError
from clawharness.testing.wire import Reply, ReplyCall, chunk_text, new_id

__all__ = [
    "chat_completion",
    "chat_stream",
    "openai_error_body",
    "responses_object",
    "responses_stream",
]

_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "invalid_request_error",
    403: "permission_error",
    404: "invalid_request_error",
    429: "rate_limit_exceeded",
}


def sse(data: dict[str, Any], event: str | None = None) -> str:
    """One SSE frame carrying `data` as JSON."""
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data)}\n\n"


def openai_error_body(error: ScriptError) -> dict[str, Any]:
    """The OpenAI error JSON for a scripted error."""
    kind = error.type or _ERROR_TYPES.get(error.status, "server_error")
    return {"error": {"message": error.message, "type": kind, "param": None, "code": None}}


def _cut(frames: list[str], first_delta: int | None, cut: bool) -> list[str]:
    if not cut:
        return frames
    return frames[: first_delta + 1] if first_delta is not None else frames[:1]


# --- Responses API ---------------------------------------------------------------------


def _usage_responses(reply: Reply) -> dict[str, Any]:
    return {
        "input_tokens": reply.input_tokens,
        "input_tokens_details": {"cached_tokens": reply.cached_tokens},
        "output_tokens": reply.output_tokens,
        "output_tokens_details": {"reasoning_tokens": reply.reasoning_tokens},
        "total_tokens": reply.input_tokens + reply.output_tokens,
    }


def _response(
    resp_id: str, reply: Reply, created: int, status: str, output: list[dict[str, Any]]
) -> dict[str, Any]:
    return {
        "id": resp_id,
        "object": "response",
        "created_at": created,
        "status": status,
        "model": reply.model,
        "output": output,
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "error": None,
        "incomplete_details": None,
        "usage": _usage_responses(reply) if status == "completed" else None,
    }


def _message_item(item_id: str, text: str, status: str) -> dict[str, Any]:
    content = [{"type": "output_text", "text": text, "annotations": [], "logprobs": []}]
    return {
        "id": item_id,
        "type": "message",
        "status": status,
        "role": "assistant",
        "content": content if status == "completed" else [],
    }


def _call_item(item_id: str, rc: ReplyCall, done: bool) -> dict[str, Any]:
    status = "completed" if done else "in_progress"
    if rc.call.custom:
        return {
            "id": item_id,
            "type": "custom_tool_call",
            "status": status,
            "call_id": rc.call_id,
            "name": rc.call.name,
            "input": (rc.call.input or "") if done else "",
        }
    item = {
        "id": item_id,
        "type": "function_call",
        "status": status,
        "call_id": rc.call_id,
        "name": rc.call.name,
        "arguments": rc.call.arguments_json() if done else "",
    }
    if rc.call.namespace is not None:
        item["namespace"] = rc.call.namespace
    return item


def _reasoning_item(item_id: str, text: str, done: bool) -> dict[str, Any]:
    summary = [{"type": "summary_text", "text": text}] if done else []
    return {"id": item_id, "type": "reasoning", "summary": summary}


def _output_items(reply: Reply) -> list[tuple[str, dict[str, Any]]]:
    """(item id, completed item) for each output item: reasoning, text, then calls."""
    items: list[tuple[str, dict[str, Any]]] = []
    if reply.thinking is not None:
        rs_id = new_id("rs_")
        items.append((rs_id, _reasoning_item(rs_id, reply.thinking, done=True)))
    if reply.text is not None:
        msg_id = new_id("msg_")
        items.append((msg_id, _message_item(msg_id, reply.text, "completed")))
    for rc in reply.calls:
        item_id = new_id("ctc_" if rc.call.custom else "fc_")
        items.append((item_id, _call_item(item_id, rc, done=True)))
    return items


def responses_object(reply: Reply) -> dict[str, Any]:
    """The non-streaming Responses API answer."""
    output = [item for _, item in _output_items(reply)]
    return _response(new_id("resp_"), reply, int(time.time()), "completed", output)


def responses_stream(reply: Reply, mode: Literal["full", "minimal"] = "full") -> list[str]:
    """The SSE frames of a streamed Responses API answer."""
    full = mode == "full"
    resp_id = new_id("resp_")
    created = int(time.time())
    frames: list[dict[str, Any]] = []
    first_delta: int | None = None

    def emit(kind: str, **fields: Any) -> None:
        frames.append({"type": kind, "sequence_number": len(frames), **fields})

    emit("response.created", response=_response(resp_id, reply, created, "in_progress", []))
    if full:
        emit("response.in_progress", response=_response(resp_id, reply, created, "in_progress", []))
    output: list[dict[str, Any]] = []
    calls = iter(reply.calls)
    for index, (item_id, done_item) in enumerate(_output_items(reply)):
        where: dict[str, Any] = {"item_id": item_id, "output_index": index}
        if done_item["type"] == "reasoning":
            thought = reply.thinking or ""
            summary_part = {"type": "summary_text", "text": ""}
            emit("response.output_item.added", output_index=index,
                 item=_reasoning_item(item_id, thought, done=False))
            if full:
                emit("response.reasoning_summary_part.added", **where, summary_index=0,
                     part=summary_part)
            for piece in chunk_text(thought):
                emit("response.reasoning_summary_text.delta", **where, summary_index=0,
                     delta=piece)
            if full:
                emit("response.reasoning_summary_text.done", **where, summary_index=0,
                     text=thought)
                emit("response.reasoning_summary_part.done", **where, summary_index=0,
                     part={**summary_part, "text": thought})
        elif done_item["type"] == "message":
            text = reply.text or ""
            part = {"type": "output_text", "text": "", "annotations": []}
            emit(
                "response.output_item.added",
                output_index=index,
                item=_message_item(item_id, text, "in_progress"),
            )
            if full:
                emit("response.content_part.added", **where, content_index=0, part=part)
            for piece in chunk_text(text):
                if first_delta is None:
                    first_delta = len(frames)
                emit("response.output_text.delta", **where, content_index=0, delta=piece,
                     logprobs=[])
            if full:
                emit("response.output_text.done", **where, content_index=0, text=text,
                     logprobs=[])
                emit("response.content_part.done", **where, content_index=0,
                     part={**part, "text": text})
        else:
            rc = next(calls)
            emit(
                "response.output_item.added",
                output_index=index,
                item=_call_item(item_id, rc, done=False),
            )
            if full and rc.call.custom:
                for piece in chunk_text(rc.call.input or ""):
                    emit("response.custom_tool_call_input.delta", **where, delta=piece)
                emit("response.custom_tool_call_input.done", **where, input=rc.call.input or "")
            elif full:
                args = rc.call.arguments_json()
                for piece in chunk_text(args):
                    emit("response.function_call_arguments.delta", **where, delta=piece)
                emit("response.function_call_arguments.done", **where, name=rc.call.name,
                     arguments=args)
        emit("response.output_item.done", output_index=index, item=done_item)
        output.append(done_item)
    emit("response.completed", response=_response(resp_id, reply, created, "completed", output))
    encoded = [sse(frame, frame["type"]) for frame in frames]
    return _cut(encoded, first_delta, reply.cut)


# --- Chat Completions ------------------------------------------------------------------


def _usage_chat(reply: Reply) -> dict[str, Any]:
    return {
        "prompt_tokens": reply.input_tokens,
        "prompt_tokens_details": {"cached_tokens": reply.cached_tokens},
        "completion_tokens": reply.output_tokens,
        "completion_tokens_details": {"reasoning_tokens": reply.reasoning_tokens},
        "total_tokens": reply.input_tokens + reply.output_tokens,
    }


def chat_completion(reply: Reply) -> dict[str, Any]:
    """The non-streaming Chat Completions answer."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text, "refusal": None}
    if reply.thinking is not None:
        message["reasoning_content"] = reply.thinking
    if reply.calls:
        message["tool_calls"] = [
            {
                "id": rc.call_id,
                "type": "function",
                "function": {"name": rc.call.name, "arguments": rc.call.arguments_json()},
            }
            for rc in reply.calls
        ]
    return {
        "id": new_id("chatcmpl-"),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": reply.model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if reply.calls else "stop",
                "logprobs": None,
            }
        ],
        "usage": _usage_chat(reply),
    }


def chat_stream(reply: Reply, include_usage: bool) -> list[str]:
    """The SSE frames of a streamed Chat Completions answer, ending `data: [DONE]`."""
    base = {
        "id": new_id("chatcmpl-"),
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": reply.model,
    }
    frames: list[str] = []
    first_delta: int | None = None

    def chunk(delta: dict[str, Any], finish: str | None = None) -> None:
        choice = {"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}
        extra = {"usage": None} if include_usage else {}
        frames.append(sse({**base, "choices": [choice], **extra}))

    chunk({"role": "assistant", "content": ""})
    if reply.thinking is not None:
        for piece in chunk_text(reply.thinking):
            chunk({"reasoning_content": piece})
    if reply.text is not None:
        for piece in chunk_text(reply.text):
            if first_delta is None:
                first_delta = len(frames)
            chunk({"content": piece})
    for index, rc in enumerate(reply.calls):
        function = {"name": rc.call.name, "arguments": ""}
        chunk({"tool_calls": [
            {"index": index, "id": rc.call_id, "type": "function", "function": function}
        ]})
        for piece in chunk_text(rc.call.arguments_json()):
            chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    chunk({}, "tool_calls" if reply.calls else "stop")
    if include_usage:
        frames.append(sse({**base, "choices": [], "usage": _usage_chat(reply)}))
    frames.append("data: [DONE]\n\n")
    return _cut(frames, first_delta, reply.cut)
