"""`TurnAnswer`: what the HTTP API says about a finished run, whatever endpoint renders it.

Both endpoints render the same facts (the reply text, how the turn ended, its tokens), and
an idempotent request's first answer is kept in the store to be rendered again for its
retries (`idempotency`), so the facts are one typed value with one JSON shape. Built from
the run service's `RunResult` by `answer_of`, the one place that reads a `TurnResult`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Final, Literal

from clawharness.records.usage import Usage
from clawharness.runs import RunResult
from clawharness.store import TranscriptEntry

__all__ = ["NO_RESPONSE_TEXT", "ClientCall", "Ending", "HostCall", "TurnAnswer", "answer_of",
           "host_calls_of", "with_host_calls"]

NO_RESPONSE_TEXT: Final = "No response from OpenClaw."

#: how the turn ended: the turn's own terminals, or `refused` when the host raised
#: before (or instead of) running it, `interrupted` when the run ended without settling
Ending = Literal["ok", "failed", "aborted", "timeout", "refused", "interrupted"]
_ENDINGS: Final = ("ok", "failed", "aborted", "timeout", "refused", "interrupted")


@dataclass(frozen=True, slots=True)
class ClientCall:
    """A call of one of the client's tools the turn ended with (`arguments`: JSON text)."""

    id: str
    name: str
    arguments: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "arguments": self.arguments}

    @classmethod
    def from_json(cls, data: Any) -> ClientCall:
        if not isinstance(data, Mapping):
            raise ValueError(f"answer.clientCalls[] must be objects, got {data!r}")
        return cls(_typed(data, "id", str), _typed(data, "name", str),
                   _typed(data, "arguments", str))


@dataclass(frozen=True, slots=True)
class HostCall:
    """A call of one of the host's tools the turn made and ran (shown to a client that
    asks for them): `arguments` as JSON text, `output` the result's text."""

    id: str
    name: str
    arguments: str
    output: str
    is_error: bool

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "arguments": self.arguments,
                "output": self.output, "isError": self.is_error}

    @classmethod
    def from_json(cls, data: Any) -> HostCall:
        if not isinstance(data, Mapping):
            raise ValueError(f"answer.hostCalls[] must be objects, got {data!r}")
        return cls(_typed(data, "id", str), _typed(data, "name", str),
                   _typed(data, "arguments", str), _typed(data, "output", str),
                   _typed(data, "isError", bool))


@dataclass(frozen=True, slots=True)
class TurnAnswer:
    """A finished run as the HTTP API answers it.

    `ok`: the turn ended `ok` (its `text` is the reply). A turn that did not may still
    have said something (`text`, answered as a cut-off reply). `error_type` is the
    failure's stable code (`provider_unreachable`, `timeout`, `session_busy`, ...);
    `tools_ran` counts the host tool calls the turn made (a retry could repeat them).
    `client_calls`: calls of the client's tools the turn ended with (the client runs
    them and continues); `host_calls`: the host's calls, when the client asked to see them.
    """

    ok: bool
    text: str
    ending: Ending
    error: str | None = None
    error_type: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    #: of `input_tokens`, read from the provider's prompt cache
    cached_tokens: int = 0
    #: of `output_tokens`, spent reasoning
    reasoning_tokens: int = 0
    tools_ran: int = 0
    client_calls: tuple[ClientCall, ...] = ()
    host_calls: tuple[HostCall, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"ok": self.ok, "text": self.text, "ending": self.ending, "error": self.error,
                "errorType": self.error_type, "inputTokens": self.input_tokens,
                "outputTokens": self.output_tokens, "cachedTokens": self.cached_tokens,
                "reasoningTokens": self.reasoning_tokens, "toolsRan": self.tools_ran,
                "clientCalls": [c.to_json() for c in self.client_calls],
                "hostCalls": [c.to_json() for c in self.host_calls]}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> TurnAnswer:
        """The answer `to_json` wrote; ValueError naming the field that is not."""
        ending = data.get("ending")
        if ending not in _ENDINGS:
            raise ValueError(f"answer.ending {ending!r} is not one of {', '.join(_ENDINGS)}")
        return cls(ok=_typed(data, "ok", bool), text=_typed(data, "text", str),
                   ending=ending, error=_optional(data, "error"),
                   error_type=_optional(data, "errorType"),
                   input_tokens=_typed(data, "inputTokens", int),
                   output_tokens=_typed(data, "outputTokens", int),
                   cached_tokens=_count(data, "cachedTokens"),
                   reasoning_tokens=_count(data, "reasoningTokens"),
                   tools_ran=_typed(data, "toolsRan", int),
                   client_calls=tuple(map(ClientCall.from_json, _list(data, "clientCalls"))),
                   host_calls=tuple(map(HostCall.from_json, _list(data, "hostCalls"))))


def _typed(data: Mapping[str, Any], name: str, kind: type[Any]) -> Any:
    value = data.get(name)
    if not isinstance(value, kind):
        raise ValueError(f"answer.{name} must be a {kind.__name__}, got {value!r}")
    return value


def _count(data: Mapping[str, Any], name: str) -> int:
    value = data.get(name, 0)  # (absent in the records of the first version)
    if not isinstance(value, int):
        raise ValueError(f"answer.{name} must be an integer, got {value!r}")
    return value


def _list(data: Mapping[str, Any], name: str) -> list[Any]:
    value = data.get(name, [])  # (absent in the records of the first version)
    if not isinstance(value, list):
        raise ValueError(f"answer.{name} must be a list, got {value!r}")
    return value


def _optional(data: Mapping[str, Any], name: str) -> str | None:
    value = data.get(name)
    if value is not None and not isinstance(value, str):
        raise ValueError(f"answer.{name} must be a string or null, got {value!r}")
    return value


def _counted(answer: TurnAnswer, usage: Usage | None) -> TurnAnswer:
    """`answer` with a turn's token counts (0 where it reported none). OpenAI's input
    count includes the cached tokens (its details say how many); the turn's `input` is
    the uncached part."""
    if usage is None:
        return answer
    whole_input = (usage.input or 0) + (usage.cache_read or 0) + (usage.cache_write or 0)
    return replace(answer, input_tokens=whole_input, output_tokens=usage.output or 0,
                   cached_tokens=usage.cache_read or 0,
                   reasoning_tokens=usage.reasoning_tokens or 0)


def answer_of(ended: RunResult) -> TurnAnswer:
    """The answer to a run that ended."""
    answer = _answer(ended)
    return answer if ended.result is None else _counted(answer, ended.result.usage)


def _answer(ended: RunResult) -> TurnAnswer:
    result = ended.result
    if result is None:
        exception = ended.exception
        code = getattr(exception, "code", None)
        if not isinstance(exception, Exception):
            # interrupted (the gateway shutting down) or ended without settling
            return TurnAnswer(False, "", "interrupted", error=ended.error or "the run ended",
                              error_type="run_interrupted")
        return TurnAnswer(False, "", "refused", error=ended.error or "the turn failed",
                          error_type=code if isinstance(code, str) else "turn_failed")
    tools_ran = len(result.tool_calls)
    if result.terminal == "failed":
        return TurnAnswer(False, "", "failed", error=result.error or "the turn failed",
                          error_type=result.error_type, tools_ran=tools_ran)
    texts = [p.text for p in result.payloads if p.text]
    text = "\n\n".join(texts) or result.text
    if result.terminal != "ok":
        ending: Ending = "timeout" if result.terminal == "timeout" else "aborted"
        return TurnAnswer(False, text, ending,
                          error=result.error or f"the turn ended: {result.terminal}",
                          error_type=result.error_type or result.terminal,
                          tools_ran=tools_ran)
    client_calls = tuple(
        ClientCall(str(c.get("id", "")), str(c.get("name", "")), _arguments(c.get("arguments")))
        for c in result.client_tool_calls)
    if client_calls:  # the turn stopped for the client's tools: its text may be empty
        return TurnAnswer(True, text, "ok", tools_ran=tools_ran, client_calls=client_calls)
    return TurnAnswer(True, text or NO_RESPONSE_TEXT, "ok", tools_ran=tools_ran)


def _arguments(value: Any) -> str:
    """A call's arguments as the JSON text OpenAI's wire carries."""
    if isinstance(value, str):
        return value
    return json.dumps(value if value is not None else {}, ensure_ascii=False,
                      separators=(",", ":"))


def host_calls_of(entries: Sequence[TranscriptEntry], run_id: str,
                  client_tools: frozenset[str]) -> tuple[HostCall, ...]:
    """The host tool calls the run `run_id` made, with their results, from the
    transcript (the client's own tools' calls are not the host's)."""
    calls: dict[str, tuple[str, str]] = {}
    results: dict[str, tuple[str, bool]] = {}
    for entry in entries:
        if entry.metadata.get("runId") != run_id or not isinstance(entry.content, Mapping):
            continue
        message = entry.content
        if message.get("role") == "assistant":
            for block in message.get("content") or ():
                if (isinstance(block, Mapping) and block.get("type") == "toolCall"
                        and block.get("name") not in client_tools):
                    calls[str(block.get("id"))] = (str(block.get("name")),
                                                   _arguments(block.get("arguments")))
        elif message.get("role") == "toolResult":
            content = message.get("content")
            text = "".join(str(b.get("text", "")) for b in content
                           if isinstance(b, Mapping) and b.get("type") == "text"
                           ) if isinstance(content, list) else str(content or "")
            results[str(message.get("toolCallId"))] = (text, bool(message.get("isError")))
    return tuple(HostCall(call_id, name, arguments, *results.get(call_id, ("", True)))
                 for call_id, (name, arguments) in calls.items())


def with_host_calls(answer: TurnAnswer, calls: tuple[HostCall, ...]) -> TurnAnswer:
    return replace(answer, host_calls=calls)
