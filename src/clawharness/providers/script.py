"""The script a scripted model plays (the in-process `scripted` transport, and the test
kit's `ScriptedModelServer` over HTTP): its model, validation and selection.

A script is `{"responses": [item, ...]}` plus optional top-level options. Each item is one
answer to one model request:

    {"text": "hello"}                                   streamed in several chunks
    {"tool_calls": [{"name": "f", "arguments": {...}, "id": "call_1"}]}
    {"text": "...", "tool_calls": [...]}                text first, then the calls
    {"thinking": "...", "text": "..."}                  reasoning streamed before the rest
    {"error": {"status": 429, "message": "slow down", "type": "rate_limit_error"}}
    {"cut": true}                                       headers + a first chunk, then the
                                                        connection drops (optional "text")

Every item may also carry `delay_ms` (wait before answering), `usage`
(`{"input_tokens": N, "output_tokens": M}`, else estimated; `"cached_input_tokens": C`:
C of the N input tokens were read from the cache; `"cache_write_tokens": W`: W of them
were written to it, which only Anthropic's API reports; `"reasoning_tokens": R`: R of
the M output tokens were reasoning, which OpenAI's APIs report), `match` (a regex searched in
the request's latest user or tool-result text) and, with `match`, `repeat: true`.

A tool call may say `"custom": true` (or its item may, for all its calls) with a string
`"input"`: the Responses API then sends a freeform `custom_tool_call {name, call_id, input}`,
as the Codex app-server expects for `apply_patch`. Other APIs send it as a function call
with arguments `{"input": ...}`.

Selection: an unused item whose `match` fits the latest text wins (in script order); a
`match` item answers once unless `repeat` is true. Otherwise the next item without `match`
answers, in order. When those run out the `exhausted` option decides: `"text"` (the
default) answers the text `(script exhausted)`; `"error"` answers HTTP 500.

`responses_stream` picks the Responses API event set: `"full"` (the default) sends the
events the real API sends, which the `openai` SDK's `responses.stream()` helper needs
(`content_part.*`, `*.done`, argument deltas); `"minimal"` sends only `response.created`,
`response.output_item.added`, `response.output_text.delta`, `response.output_item.done` and
`response.completed`.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

import yaml

from clawharness.errors import ConfigError, InputLimitError
from clawharness.limits import (
    MAX_JSON_DEPTH,
    MAX_SCRIPT_BYTES,
    loads_bounded,
    value_nesting_exceeds,
)

__all__ = [
    "EXHAUSTED_TEXT",
    "Script",
    "ScriptError",
    "ScriptItem",
    "ScriptPlayer",
    "ScriptToolCall",
    "ScriptUsage",
    "load_script",
    "parse_script",
]

#: the text answered once the ordered items have run out (with `exhausted: "text"`)
EXHAUSTED_TEXT = "(script exhausted)"

_ITEM_KEYS = frozenset(
    {"text", "tool_calls", "error", "cut", "delay_ms", "match", "usage", "repeat", "custom",
     "thinking"}
)
_CALL_KEYS = frozenset({"name", "arguments", "id", "custom", "input", "namespace"})
_ERROR_KEYS = frozenset({"status", "message", "type"})
_USAGE_KEYS = frozenset({"input_tokens", "output_tokens", "cached_input_tokens",
                         "cache_write_tokens", "reasoning_tokens"})
_TOP_KEYS = frozenset({"responses", "exhausted", "responses_stream"})


class _Fail(Protocol):
    def __call__(self, message: str, key: str | None = None) -> ConfigError: ...


@dataclass(frozen=True, slots=True)
class ScriptToolCall:
    """One tool call an item asks for."""

    name: str
    arguments: Any = None  # a mapping, or a raw JSON string sent as is
    id: str | None = None
    custom: bool = False
    input: str | None = None
    #: the Responses API's tool namespace (Codex offers each MCP server as one)
    namespace: str | None = None

    def arguments_json(self) -> str:
        """The arguments as the JSON text a function call carries."""
        if self.custom:
            return json.dumps({"input": self.input or ""})
        if isinstance(self.arguments, str):
            return self.arguments
        return json.dumps(self.arguments if self.arguments is not None else {})

    def arguments_object(self) -> Any:
        """The arguments as a JSON value (Anthropic `tool_use.input`)."""
        if self.custom:
            return {"input": self.input or ""}
        if isinstance(self.arguments, str):
            try:
                return json.loads(self.arguments)
            except ValueError:
                return {}
        return self.arguments if self.arguments is not None else {}


@dataclass(frozen=True, slots=True)
class ScriptError:
    """An HTTP error answer."""

    status: int
    message: str
    type: str | None = None


@dataclass(frozen=True, slots=True)
class ScriptUsage:
    """Token counts to report; a missing count is estimated."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    #: how many of the input tokens were read from the prompt cache (each API reports
    #: them its way: OpenAI's inside its input count, Anthropic's beside it)
    cached_input_tokens: int = 0
    #: how many of the input tokens were written to the prompt cache (Anthropic's API
    #: reports them beside its input count; OpenAI's count them as input)
    cache_write_tokens: int = 0
    #: how many of the output tokens were reasoning (OpenAI's APIs report them)
    reasoning_tokens: int = 0

    def cached_of(self, input_tokens: int) -> int:
        """The cached part of `input_tokens` (never more than all of them)."""
        return min(self.cached_input_tokens, input_tokens)

    def written_of(self, input_tokens: int) -> int:
        """The part of `input_tokens` written to the cache (beside the cached part)."""
        return min(self.cache_write_tokens, input_tokens - self.cached_of(input_tokens))


@dataclass(frozen=True, slots=True)
class ScriptItem:
    """One answer of the script. `index` is its place in `responses` (-1: synthesized)."""

    index: int
    text: str | None = None
    tool_calls: tuple[ScriptToolCall, ...] = ()
    #: reasoning the model streams before its text and calls
    thinking: str | None = None
    error: ScriptError | None = None
    cut: bool = False
    delay_ms: float = 0.0
    match: re.Pattern[str] | None = None
    usage: ScriptUsage | None = None
    repeat: bool = False


@dataclass(frozen=True, slots=True)
class Script:
    """A validated script."""

    responses: tuple[ScriptItem, ...]
    exhausted: Literal["text", "error"] = "text"
    responses_stream: Literal["full", "minimal"] = "full"
    source: str | None = None

    def exhausted_item(self) -> ScriptItem:
        """The answer given once the ordered items have run out."""
        if self.exhausted == "error":
            return ScriptItem(
                index=-1,
                error=ScriptError(500, "scripted model server: script exhausted", "server_error"),
            )
        return ScriptItem(index=-1, text=EXHAUSTED_TEXT)


class ScriptPlayer:
    """Chooses the item that answers each request; safe to share between threads."""

    def __init__(self, script: Script):
        self.script = script
        self._lock = threading.Lock()
        self._used: set[int] = set()
        self._ordered = [item for item in script.responses if item.match is None]
        self._next = 0

    def choose(self, latest_text: str) -> ScriptItem:
        """The item answering a request whose latest user/tool-result text is `latest_text`."""
        with self._lock:
            for item in self.script.responses:
                if item.match is None or (item.index in self._used and not item.repeat):
                    continue
                if item.match.search(latest_text):
                    self._used.add(item.index)
                    return item
            if self._next < len(self._ordered):
                item = self._ordered[self._next]
                self._next += 1
                self._used.add(item.index)
                return item
            return self.script.exhausted_item()

    @property
    def used(self) -> frozenset[int]:
        """Indexes of the items answered so far."""
        with self._lock:
            return frozenset(self._used)


class _ScriptYamlLoader(yaml.SafeLoader):
    """Safe YAML without aliases: `*name` references let a small file stand for an
    exponentially large value (the "billion laughs"), and a script never needs them."""

    def compose_node(self, parent: Any, index: Any) -> Any:
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()  # type: ignore[no-untyped-call]
            raise yaml.composer.ComposerError(
                None, None, "aliases (*name) are not allowed in a script", event.start_mark)
        return super().compose_node(parent, index)


def load_script(path: str | os.PathLike[str]) -> Script:
    """Read and validate a JSON or YAML script file; problems raise `ConfigError`.

    A script over `MAX_SCRIPT_BYTES`, nested deeper than `MAX_JSON_DEPTH` levels or
    using YAML aliases is refused before it is played.
    """
    file = Path(path)
    try:
        size = file.stat().st_size
        if size > MAX_SCRIPT_BYTES:
            raise ConfigError(f"the script is {size:,} bytes, over the limit of "
                              f"{MAX_SCRIPT_BYTES:,} bytes", path=str(file))
        raw = file.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read script: {exc.strerror or exc}", path=str(file)) from exc
    except UnicodeDecodeError as exc:
        raise ConfigError(f"the script is not UTF-8 text: {exc}", path=str(file)) from exc
    suffix = file.suffix.lower()
    try:
        if suffix == ".json":
            data = loads_bounded(raw, what="the script", max_size=MAX_SCRIPT_BYTES)
        else:
            # YAML is a superset of JSON, so anything else is read as YAML
            data = yaml.load(raw, Loader=_ScriptYamlLoader)
    except InputLimitError as exc:
        raise ConfigError(str(exc), path=str(file)) from exc
    except RecursionError:
        raise ConfigError(f"the script is nested deeper than {MAX_JSON_DEPTH} levels",
                          path=str(file)) from None
    except (ValueError, yaml.YAMLError) as exc:
        raise ConfigError(f"not valid {suffix[1:] or 'YAML'}: {exc}", path=str(file)) from exc
    if value_nesting_exceeds(data):
        raise ConfigError(f"the script is nested deeper than {MAX_JSON_DEPTH} levels",
                          path=str(file))
    return parse_script(data, source=str(file))


def parse_script(data: Any, *, source: str | None = None) -> Script:
    """Validate a script given as a Python value (the parsed JSON/YAML)."""
    if not isinstance(data, Mapping):
        raise ConfigError("a script must be an object with a 'responses' list", path=source)
    for key in data:
        if key not in _TOP_KEYS:
            raise ConfigError(_unknown(key, _TOP_KEYS), path=source, key_path=str(key))
    responses = data.get("responses")
    if not isinstance(responses, list):
        raise ConfigError("must be a list of response items", path=source, key_path="responses")
    exhausted = data.get("exhausted", "text")
    if exhausted not in ("text", "error"):
        raise ConfigError("must be 'text' or 'error'", path=source, key_path="exhausted")
    stream = data.get("responses_stream", "full")
    if stream not in ("full", "minimal"):
        raise ConfigError("must be 'full' or 'minimal'", path=source, key_path="responses_stream")
    items = tuple(_parse_item(i, raw, source) for i, raw in enumerate(responses))
    return Script(responses=items, exhausted=exhausted, responses_stream=stream, source=source)


def _unknown(key: object, allowed: frozenset[str]) -> str:
    return f"unknown key {key!r} (allowed: {', '.join(sorted(allowed))})"


def _parse_item(index: int, raw: Any, source: str | None) -> ScriptItem:
    where = f"responses[{index}]"

    def fail(message: str, key: str | None = None) -> ConfigError:
        return ConfigError(message, path=source, key_path=f"{where}.{key}" if key else where)

    if not isinstance(raw, Mapping):
        raise fail("must be an object")
    for key in raw:
        if key not in _ITEM_KEYS:
            raise fail(_unknown(key, _ITEM_KEYS), str(key))

    text = raw.get("text")
    if text is not None and not isinstance(text, str):
        raise fail("must be a string", "text")
    thinking = raw.get("thinking")
    if thinking is not None and (not isinstance(thinking, str) or not thinking):
        raise fail("must be a non-empty string", "thinking")
    cut = raw.get("cut", False)
    if not isinstance(cut, bool):
        raise fail("must be true or false", "cut")
    item_custom = raw.get("custom", False)
    if not isinstance(item_custom, bool):
        raise fail("must be true or false", "custom")
    calls: tuple[ScriptToolCall, ...] = ()
    if "tool_calls" in raw:
        calls = _parse_calls(raw["tool_calls"], item_custom, fail)
    error = _parse_error(raw["error"], fail) if "error" in raw else None

    if error is not None and (text is not None or calls or cut or thinking):
        raise fail("an error item cannot also have text, tool_calls, thinking or cut", "error")
    if cut and calls:
        raise fail("a cut item may carry text, not tool_calls", "cut")
    if text is None and not calls and error is None and not cut:
        raise fail("needs one of 'text', 'tool_calls', 'error' or 'cut'")

    delay = raw.get("delay_ms", 0)
    if isinstance(delay, bool) or not isinstance(delay, int | float) or delay < 0:
        raise fail("must be a number of milliseconds >= 0", "delay_ms")
    pattern = None
    if "match" in raw:
        if not isinstance(raw["match"], str):
            raise fail("must be a regular expression string", "match")
        try:
            pattern = re.compile(raw["match"])
        except re.error as exc:
            raise fail(f"not a valid regular expression: {exc}", "match") from exc
    repeat = raw.get("repeat", False)
    if not isinstance(repeat, bool):
        raise fail("must be true or false", "repeat")
    if repeat and pattern is None:
        raise fail("only an item with 'match' can repeat", "repeat")
    usage = _parse_usage(raw["usage"], fail) if "usage" in raw else None
    return ScriptItem(
        index=index,
        text=text,
        tool_calls=calls,
        thinking=thinking,
        error=error,
        cut=cut,
        delay_ms=float(delay),
        match=pattern,
        usage=usage,
        repeat=repeat,
    )


def _parse_calls(raw: Any, item_custom: bool, fail: _Fail) -> tuple[ScriptToolCall, ...]:
    if not isinstance(raw, list) or not raw:
        raise fail("must be a non-empty list of calls", "tool_calls")
    calls: list[ScriptToolCall] = []
    for n, call in enumerate(raw):
        key = f"tool_calls[{n}]"
        if not isinstance(call, Mapping):
            raise fail("must be an object", key)
        for k in call:
            if k not in _CALL_KEYS:
                raise fail(_unknown(k, _CALL_KEYS), f"{key}.{k}")
        name = call.get("name")
        if not isinstance(name, str) or not name:
            raise fail("must be a non-empty string", f"{key}.name")
        args = call.get("arguments")
        if args is not None and not isinstance(args, Mapping | str):
            raise fail("must be an object (or a raw JSON string)", f"{key}.arguments")
        call_id = call.get("id")
        if call_id is not None and not isinstance(call_id, str):
            raise fail("must be a string", f"{key}.id")
        custom = call.get("custom", item_custom)
        if not isinstance(custom, bool):
            raise fail("must be true or false", f"{key}.custom")
        text_input = call.get("input")
        if text_input is not None and not isinstance(text_input, str):
            raise fail("must be a string", f"{key}.input")
        if custom and text_input is None:
            # a freeform call's input may also be written as arguments.input
            if isinstance(args, Mapping) and isinstance(args.get("input"), str):
                text_input = args["input"]
            else:
                raise fail("a custom tool call needs a string 'input'", f"{key}.input")
        if text_input is not None and not custom:
            raise fail("'input' is only for a custom tool call", f"{key}.input")
        namespace = call.get("namespace")
        if namespace is not None and (not isinstance(namespace, str) or not namespace):
            raise fail("must be a non-empty string", f"{key}.namespace")
        calls.append(
            ScriptToolCall(
                name=name,
                arguments=dict(args) if isinstance(args, Mapping) else args,
                id=call_id,
                custom=custom,
                input=text_input,
                namespace=namespace,
            )
        )
    return tuple(calls)


def _parse_error(raw: Any, fail: _Fail) -> ScriptError:
    if not isinstance(raw, Mapping):
        raise fail("must be an object with 'status' and 'message'", "error")
    for k in raw:
        if k not in _ERROR_KEYS:
            raise fail(_unknown(k, _ERROR_KEYS), f"error.{k}")
    status = raw.get("status")
    if isinstance(status, bool) or not isinstance(status, int) or not 400 <= status <= 599:
        raise fail("must be an HTTP error status (400-599)", "error.status")
    message = raw.get("message")
    if not isinstance(message, str):
        raise fail("must be a string", "error.message")
    etype = raw.get("type")
    if etype is not None and not isinstance(etype, str):
        raise fail("must be a string", "error.type")
    return ScriptError(status=status, message=message, type=etype)


def _parse_usage(raw: Any, fail: _Fail) -> ScriptUsage:
    if not isinstance(raw, Mapping):
        raise fail("must be an object", "usage")
    counts: dict[str, int | None] = {}
    for k in raw:
        if k not in _USAGE_KEYS:
            raise fail(_unknown(k, _USAGE_KEYS), f"usage.{k}")
        value = raw[k]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise fail("must be an integer >= 0", f"usage.{k}")
        counts[str(k)] = value
    return ScriptUsage(counts.get("input_tokens"), counts.get("output_tokens"),
                       counts.get("cached_input_tokens") or 0,
                       counts.get("cache_write_tokens") or 0,
                       counts.get("reasoning_tokens") or 0)
