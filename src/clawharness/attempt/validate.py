"""Host validation of what a harness hands back, and the facts the host derives from it.

- `validate_attempt_result`: `hostOwnedToolMediaUrls` must be a subset of
  `toolMediaUrls` (otherwise the result is refused), accepted session spawns keep
  `expectsCompletionMessage` (missing means false), `clientToolCalls` is None or a
  non-empty list; tool metas and usage a plugin reported as JSON become `ToolCallMeta`
  and `Usage` (anything else there is refused).
- `resolve_visible_replies`: the visible-reply policy from explicit message config, the
  harness's `deliveryDefaults.visibleReplies`, or its deprecated `sourceVisibleReplies`.
- `suppress_silent_payloads`: drop payloads that are silent (NO_REPLY and nothing else).
- `build_continuation`: the same-turn retry carrier (`params.continuation`).

All pure; nothing here performs I/O.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from clawharness.delivery.silent import is_silent_payload
from clawharness.errors import HarnessError
from clawharness.harness.types import AttemptResult
from clawharness.records.tool_calls import ToolCallMeta
from clawharness.records.usage import Usage, normalize_usage

__all__ = [
    "AttemptResultRejectedError",
    "VisibleReplies",
    "VisibleRepliesResolution",
    "build_continuation",
    "normalize_accepted_session_spawn",
    "normalize_client_tool_calls",
    "resolve_visible_replies",
    "suppress_silent_payloads",
    "validate_attempt_result",
    "validate_host_owned_media",
]

VisibleReplies = Literal["automatic", "message_tool"]
_VISIBLE_REPLIES = ("automatic", "message_tool")


class AttemptResultRejectedError(HarnessError):
    """Core refused an attempt result that breaks the harness contract."""

    code = "attempt_result_rejected"

    def __init__(self, message: str, *, field: str) -> None:
        super().__init__(message)
        self.field = field


# --- media, spawns, client tool calls --------------------------------------------------


def validate_host_owned_media(tool_media_urls: Sequence[str],
                              host_owned_tool_media_urls: Sequence[str]) -> None:
    """Refuse host-owned media that is not also listed in `toolMediaUrls`."""
    listed = {url.strip() for url in tool_media_urls if isinstance(url, str)}
    stray = [
        url for url in host_owned_tool_media_urls
        if not isinstance(url, str) or not url.strip() or url.strip() not in listed
    ]
    if stray:
        raise AttemptResultRejectedError(
            "hostOwnedToolMediaUrls must be a subset of toolMediaUrls; not listed there: "
            + ", ".join(repr(url) for url in stray[:5]),
            field="hostOwnedToolMediaUrls",
        )


def _trimmed(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def normalize_accepted_session_spawn(entry: Any) -> dict[str, Any] | None:
    """One reported `AcceptedSessionSpawn`, or None when it lacks its run or child key.

    `expectsCompletionMessage` is kept exactly when it is `True`; anything else is false,
    because core transfers child completion delivery only on that explicit fact.
    """
    if not isinstance(entry, Mapping):
        return None
    run_id = _trimmed(entry.get("runId"))
    child = _trimmed(entry.get("childSessionKey"))
    if run_id is None or child is None:
        return None
    out: dict[str, Any] = {"runId": run_id, "childSessionKey": child}
    session_url = _trimmed(entry.get("sessionUrl"))
    if session_url is not None and urlsplit(session_url).scheme in ("http", "https"):
        out["sessionUrl"] = session_url
    label = _trimmed(entry.get("label"))
    if label is not None:
        out["label"] = label
    if entry.get("publicRead") is True:
        out["publicRead"] = True
    if entry.get("collected") is True:
        out["collected"] = True
    out["expectsCompletionMessage"] = entry.get("expectsCompletionMessage") is True
    return out


def normalize_client_tool_calls(value: Any) -> list[dict[str, Any]] | None:
    """`clientToolCalls`: None when absent or empty, else a list of call objects."""
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(call, Mapping) for call in value):
        raise AttemptResultRejectedError(
            "clientToolCalls must be a list of tool call objects", field="clientToolCalls"
        )
    return [dict(call) for call in value] or None


def _typed_tool_metas(metas: Sequence[object]) -> list[ToolCallMeta]:
    typed: list[ToolCallMeta] = []
    for meta in metas:
        if isinstance(meta, ToolCallMeta):
            typed.append(meta)
        elif isinstance(meta, Mapping):
            typed.append(ToolCallMeta.from_wire(meta))
        else:
            raise AttemptResultRejectedError(
                f"toolMetas must hold tool call records, not {type(meta).__name__}",
                field="toolMetas")
    return typed


def _typed_usage(usage: object) -> Usage | None:
    if usage is None or isinstance(usage, Usage):
        return usage
    if isinstance(usage, Mapping):
        return normalize_usage(dict(usage))
    raise AttemptResultRejectedError(
        f"attemptUsage must be a usage record, not {type(usage).__name__}",
        field="attemptUsage")


def validate_attempt_result(result: AttemptResult) -> AttemptResult:
    """The host's check of an attempt result; returns it normalised (a copy when anything
    needed normalising, else the result itself).

    Raises `AttemptResultRejectedError` when host-owned media is not a subset of the
    tool media, client tool calls are malformed, or tool metas or usage are neither
    records nor JSON objects. Incomplete spawn receipts are dropped (they prove
    nothing); the input object is not modified.
    """
    validate_host_owned_media(result.tool_media_urls, result.host_owned_tool_media_urls)
    usage: object = result.attempt_usage
    if not all(isinstance(meta, ToolCallMeta) for meta in result.tool_metas) or not (
            usage is None or isinstance(usage, Usage)):
        # a plugin that reports the original's JSON shapes
        result = dataclasses.replace(result, tool_metas=_typed_tool_metas(result.tool_metas),
                                     attempt_usage=_typed_usage(usage))
    if (not result.accepted_session_spawns and result.client_tool_calls is None
            and not result.host_owned_tool_media_urls):
        return result  # already normal (the common turn): nothing to copy
    spawns: list[dict[str, Any]] = []
    seen_runs: set[str] = set()
    for entry in result.accepted_session_spawns:
        spawn = normalize_accepted_session_spawn(entry)
        if spawn is not None and spawn["runId"] not in seen_runs:
            seen_runs.add(spawn["runId"])
            spawns.append(spawn)
    return dataclasses.replace(
        result,
        accepted_session_spawns=spawns,
        client_tool_calls=normalize_client_tool_calls(result.client_tool_calls),
        host_owned_tool_media_urls=[url.strip() for url in result.host_owned_tool_media_urls],
    )


# --- delivery defaults ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class VisibleRepliesResolution:
    """The effective visible-reply policy and where it came from."""

    value: VisibleReplies
    source: Literal["explicit", "harness", "harness-deprecated", "default"]


def _read(defaults: Any, *names: str) -> Any:
    for name in names:
        if isinstance(defaults, Mapping):
            if name in defaults:
                return defaults[name]
        elif hasattr(defaults, name):
            return getattr(defaults, name)
    return None


def resolve_visible_replies(harness: Any, explicit_config: Any = None) -> VisibleRepliesResolution:
    """Explicit message config, then `visibleReplies`, then deprecated `sourceVisibleReplies`.

    The deprecated field is still honoured because published harness plugins produce
    it; when both are set the new name wins. Unknown values are ignored.
    """
    if explicit_config in _VISIBLE_REPLIES:
        return VisibleRepliesResolution(explicit_config, "explicit")
    defaults = getattr(harness, "delivery_defaults", None)
    if defaults is None and isinstance(harness, Mapping):
        defaults = harness.get("deliveryDefaults")
    current = _read(defaults, "visible_replies", "visibleReplies")
    if current in _VISIBLE_REPLIES:
        return VisibleRepliesResolution(current, "harness")
    deprecated = _read(defaults, "source_visible_replies", "sourceVisibleReplies")
    if deprecated in _VISIBLE_REPLIES:
        return VisibleRepliesResolution(deprecated, "harness-deprecated")
    return VisibleRepliesResolution("automatic", "default")


# --- silent payloads ------------------------------------------------------------------


def suppress_silent_payloads(
    payloads: Sequence[Mapping[str, Any]],
    *,
    is_silent: Callable[[Mapping[str, Any]], bool] = is_silent_payload,
) -> list[dict[str, Any]]:
    """The payloads delivery should send: silent ones (NO_REPLY, no media) dropped."""
    return [dict(payload) for payload in payloads if not is_silent(payload)]


# --- same-turn retry continuation -----------------------------------------------------


def _snapshot_messages(snapshot: Any) -> list[Any]:
    if isinstance(snapshot, AttemptResult):
        return list(snapshot.messages_snapshot)
    if isinstance(snapshot, Mapping):
        messages = snapshot.get("messagesSnapshot", snapshot.get("messages"))
        return list(messages) if isinstance(messages, list) else []
    if isinstance(snapshot, Sequence) and not isinstance(snapshot, str | bytes):
        return list(snapshot)
    return []


def build_continuation(original_prompt: str, settled_attempt_snapshots: Sequence[Any]) -> dict[str, Any]:
    """`params.continuation` for a transient-failure retry of the same task.

    `prompt` is the original current request; `messages` are the settled attempts'
    snapshots in order (assistant and tool messages, tool results), deep-copied so the
    carrier is frozen evidence. It describes completed work: it grants no authority to
    run those tools again, and the host must never persist it as another user turn.
    Each snapshot is an `AttemptResult`, a `{messagesSnapshot}` mapping or a message list.
    """
    messages: list[dict[str, Any]] = []
    for snapshot in settled_attempt_snapshots:
        for message in _snapshot_messages(snapshot):
            if isinstance(message, Mapping):
                messages.append(copy.deepcopy(dict(message)))
    return {"prompt": original_prompt, "messages": messages}
