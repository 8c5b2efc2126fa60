"""The model-transport contract of the built-in runtime, and provider error mapping.

A transport turns one `ModelRequest` (transcript-shaped messages, tools, limits) into a
stream of `StreamEvent`s: text and thinking deltas, complete tool calls, and one final
`Done`. Every failure surfaces as a `ProviderError` subclass; a stream that stops before
its completion event raises `ProviderServerError("stream ended before completion")`.
"""

from __future__ import annotations

import functools
import inspect
import re
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from clawharness.errors import (
    InputLimitError,
    ProviderAuthError,
    ProviderConnectionError,
    ProviderContextOverflowError,
    ProviderError,
    ProviderRateLimitError,
    ProviderServerError,
    ProviderTimeoutError,
)
from clawharness.harness import quick_maker
from clawharness.limits import MAX_TOOL_ARGUMENTS_CHARS, loads_bounded
from clawharness.records.usage import Usage
from clawharness.redaction.outbound import redact_secrets

__all__ = [
    "NO_USAGE",
    "STREAM_CUT_MESSAGE",
    "Done",
    "Message",
    "ModelRequest",
    "ModelTransport",
    "StopReason",
    "StreamEvent",
    "TextDelta",
    "ThinkingDelta",
    "ToolCall",
    "ToolSchema",
    "Usage",
    "error_for_status",
    "make_model_request",
    "map_provider_error",
    "message_text",
    "parse_tool_arguments",
    "route_sdk_options",
]

#: a transcript message of the wire shape, as a provider reads it (read-only)
Message = Mapping[str, Any]
StopReason = Literal["stop", "toolUse", "length", "error"]

#: the message of the error raised when a stream stops before its completion event
STREAM_CUT_MESSAGE = "stream ended before completion"


@dataclass(frozen=True, slots=True)
class ToolSchema:
    """A tool as the model sees it: name, description and JSON schema."""

    name: str
    description: str
    parameters: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class ModelRequest:
    """One model call. `messages` keep the transcript's wire shape (plain dicts)."""

    model_id: str
    system_prompt: str | None
    messages: Sequence[Message]
    tools: Sequence[ToolSchema] = ()
    max_tokens: int | None = None
    params: Mapping[str, Any] = field(default_factory=dict)


#: makes a `ModelRequest` as the class does, in a third of the instructions (a loop
#: makes one per model call; `clawharness._frozen`)
make_model_request = quick_maker(ModelRequest)


@dataclass(frozen=True, slots=True)
class TextDelta:
    """A piece of visible assistant text."""

    text: str


@dataclass(frozen=True, slots=True)
class ThinkingDelta:
    """A piece of reasoning text; `signature` (Anthropic) lets it be replayed verbatim."""

    text: str
    signature: str | None = None


@dataclass(frozen=True, slots=True)
class ToolCall:
    """A complete tool call. `parse_error` is set when the arguments were not a JSON object."""

    id: str
    name: str
    arguments: dict[str, Any]
    parse_error: str | None = None


#: the counts of a call whose provider reported none: every count 0. One shared instance
#: (a frozen Usage is never changed; making one costs about 17k instructions, per call)
NO_USAGE = Usage.counted()


@dataclass(frozen=True, slots=True)
class Done:
    """The end of one model call."""

    stop_reason: StopReason
    usage: Usage = NO_USAGE


StreamEvent = TextDelta | ThinkingDelta | ToolCall | Done


@runtime_checkable
class ModelTransport(Protocol):
    """Streams one model call. Implementations raise only `ProviderError` subclasses."""

    api: str

    def stream(self, request: ModelRequest) -> AsyncIterator[StreamEvent]:
        """The events of one call, ending with exactly one `Done`."""
        ...

    async def aclose(self) -> None:
        """Release what the transport owns (shared SDK clients are left open)."""
        ...


# --- helpers shared by the transports -------------------------------------------------


def message_text(content: Any) -> str:
    """The text of a transcript content value (a string or a list of blocks)."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    parts: list[str] = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text":
            text = block.get("text")
            if isinstance(text, str):
                parts.append(text)
    return parts[0] if len(parts) == 1 else "".join(parts)


def parse_tool_arguments(raw: str | None) -> tuple[dict[str, Any], str | None]:
    """Parse a tool call's JSON arguments: (arguments, error or None).

    Arguments over `MAX_TOOL_ARGUMENTS_CHARS` or nested deeper than `MAX_JSON_DEPTH`
    are an error the model reads, like malformed JSON; the tool does not run.
    """
    if raw is None or not raw.strip():
        return {}, None
    try:
        value = loads_bounded(raw, what="tool arguments", max_size=MAX_TOOL_ARGUMENTS_CHARS)
    except InputLimitError as exc:
        return {}, str(exc)
    except ValueError as exc:
        return {}, f"tool arguments are not valid JSON: {exc}"
    if not isinstance(value, dict):
        return {}, f"tool arguments must be a JSON object, got {type(value).__name__}"
    return value, None


_CONTEXT_OVERFLOW = re.compile(
    r"context[_ ]length|context window|maximum context|prompt is too long|too many tokens"
    r"|exceeds? the (?:model'?s? )?(?:maximum |available )?context|input is too long|reduce the length"
    r"|request too large|prompt_too_long",
    re.IGNORECASE,
)

_AUTH_TYPES = frozenset({"authentication_error", "permission_error", "invalid_api_key"})
_RATE_TYPES = frozenset({"rate_limit_error", "rate_limit_exceeded", "insufficient_quota"})
_SERVER_TYPES = frozenset({"overloaded_error", "api_error", "server_error", "internal_error"})


def error_for_status(
    status: int | None, message: str, *, error_type: str | None = None
) -> ProviderError:
    """The `ProviderError` subclass for an HTTP status (or a streamed error's type).

    The server's message is redacted first: a server that echoes the key it was sent
    (`Incorrect API key provided: sk-...`) must not put it in every place a failure is
    shown (`clawharness.redaction.outbound`)."""
    message = redact_secrets(message)
    detail = f"HTTP {status}: {message}" if status else message
    kind = (error_type or "").lower()
    # llama.cpp's server says "request (N tokens) exceeds the available context size",
    # type `exceed_context_size_error`
    overflow = (_CONTEXT_OVERFLOW.search(message) is not None or "context_length" in kind
                or "context_size" in kind)
    if overflow and (status in (None, 200, 400, 413, 422) or (status or 0) >= 500):
        return ProviderContextOverflowError(detail, status=status)
    if status in (401, 403) or kind in _AUTH_TYPES:
        return ProviderAuthError(detail, status=status)
    if status == 429 or kind in _RATE_TYPES:
        return ProviderRateLimitError(detail, status=status)
    if (status is not None and status >= 500) or kind in _SERVER_TYPES:
        return ProviderServerError(detail, status=status)
    return ProviderError(detail, status=status)


def _body_error(body: Any) -> tuple[str | None, str | None]:
    """(message, type) from an OpenAI- or Anthropic-shaped error body."""
    if not isinstance(body, Mapping):
        return None, None
    err = body.get("error", body)
    if not isinstance(err, Mapping):
        return (err if isinstance(err, str) else None), None
    message = err.get("message")
    etype = err.get("type") or err.get("code")
    return (
        message if isinstance(message, str) else None,
        etype if isinstance(etype, str) else None,
    )


def map_provider_error(exc: BaseException, *, streaming: bool = False) -> ProviderError:
    """Translate an SDK or transport exception into the `ProviderError` tree.

    `streaming` says the response had started: a broken connection is then a stream cut.
    """
    if isinstance(exc, ProviderError):
        return exc
    status = getattr(exc, "status_code", None)
    body = getattr(exc, "body", None)
    message, etype = _body_error(body)
    if isinstance(status, int) and status != 200:
        return error_for_status(status, message or _plain_message(exc), error_type=etype)
    if message is not None or etype is not None:
        # an error event inside a 200 stream (Anthropic `event: error`, OpenAI `error`)
        return error_for_status(None, message or _plain_message(exc), error_type=etype)
    module = type(exc).__module__
    name = type(exc).__name__
    if "Connection" in name or "Timeout" in name or module.startswith(("httpx", "httpcore")):
        if streaming:
            return ProviderServerError(STREAM_CUT_MESSAGE)
        if "Timeout" in name:
            return ProviderTimeoutError(f"the model server did not answer in time: "
                                        f"{_plain_message(exc)}")
        return ProviderConnectionError(f"connection to the model server failed: "
                                       f"{_plain_message(exc)}")
    return ProviderError(f"{name}: {_plain_message(exc)}")


def _plain_message(exc: BaseException) -> str:
    text = getattr(exc, "message", None)
    if isinstance(text, str) and text:
        return text
    return str(exc) or type(exc).__name__


@functools.lru_cache(maxsize=64)
def _accepted_kwargs(func: Callable[..., Any]) -> frozenset[str]:
    try:
        return frozenset(inspect.signature(func).parameters)
    except (TypeError, ValueError):
        return frozenset()


def route_sdk_options(func: Callable[..., Any], options: Mapping[str, Any]) -> dict[str, Any]:
    """`options` as keyword arguments for SDK method `func`: the names it accepts pass as
    they are, the rest travel in `extra_body` (SDK versions drop and add parameters)."""
    accepted = _accepted_kwargs(getattr(func, "__func__", func))
    kwargs: dict[str, Any] = {}
    extra: dict[str, Any] = dict(options.get("extra_body") or {})
    for key, value in options.items():
        if key == "extra_body":
            continue
        if key in accepted:
            kwargs[key] = value
        else:
            extra[key] = value
    if extra:
        kwargs["extra_body"] = extra
    return kwargs
