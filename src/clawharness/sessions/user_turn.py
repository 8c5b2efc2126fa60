"""Restore the host's operational facts on a user message a runtime hook rewrote.

A harness that mirrors its native user messages into the host transcript lets write
hooks rewrite them (redact text, change roles). Some metadata under the message's
`__openclaw` key is host-owned and must survive: who sent it (`senderIsOwner`), what the
message was for (`intent`), which run a steer targets, and the input provenance. A hook
must be able to neither forge nor erase those facts, so they are restored from an
independent snapshot of the host-prepared message.

Facts tied to the submitted bytes (the human's selected mentions, the work context the
message described) survive only while the content is exactly what was submitted.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from clawharness._jsvalue import UNDEFINED
from clawharness.attempt._js import get, is_record, js_trim, js_truthy, strict_deep_equal

__all__ = [
    "INPUT_PROVENANCE_KINDS",
    "normalize_input_provenance",
    "normalize_persisted_steer_target_run_id",
    "restore_prepared_user_turn_operational_meta_for_runtime",
]

#: provenance kinds a user message may carry
INPUT_PROVENANCE_KINDS = ("external_user", "inter_session", "internal_system")
_STEER_TARGET_RUN_ID_MAX_CHARS = 512
_META = "__openclaw"


def _optional_string(value: Any) -> Any:
    if not isinstance(value, str):
        return UNDEFINED
    trimmed = js_trim(value)
    return trimmed if trimmed else UNDEFINED


def _utf16_length(text: str) -> int:
    # JavaScript measures strings in UTF-16 code units.
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def normalize_persisted_steer_target_run_id(value: Any) -> Any:
    """A trimmed run id of at most 512 characters, else `undefined`."""
    normalized = _optional_string(value)
    if isinstance(normalized, str) and _utf16_length(normalized) <= _STEER_TARGET_RUN_ID_MAX_CHARS:
        return normalized
    return UNDEFINED


def normalize_input_provenance(value: Any) -> Any:
    """A provenance record of a known kind, with its optional strings normalised."""
    if not is_record(value) or value.get("kind") not in INPUT_PROVENANCE_KINDS:
        return UNDEFINED
    origin_channel = _optional_string(value.get("originChannel"))
    if origin_channel is UNDEFINED:
        # Records persisted before the rename spell it `sourceChannel`.
        origin_channel = _optional_string(value.get("sourceChannel"))
    return {
        "kind": value["kind"],
        "originSessionId": _optional_string(value.get("originSessionId")),
        "sourceSessionKey": _optional_string(value.get("sourceSessionKey")),
        "originChannel": origin_channel,
        "sourceTool": _optional_string(value.get("sourceTool")),
    }


def restore_prepared_user_turn_operational_meta_for_runtime(
    params: Mapping[str, Any] | None = None,
    /,
    *,
    runtime_message: Any = UNDEFINED,
    prepared_message: Any = UNDEFINED,
) -> Any:
    """Return the runtime message with the prepared message's operational facts restored.

    Pass `{"runtimeMessage", "preparedMessage"}` (the wire shape) or the keywords
    `runtime_message` (what the hook produced) and `prepared_message` (the host's trusted
    snapshot). Non-user runtime messages, or a missing snapshot, come back unchanged.
    """
    runtime = get(params, "runtimeMessage") if params is not None else runtime_message
    prepared = get(params, "preparedMessage") if params is not None else prepared_message
    if not js_truthy(prepared) or get(runtime, "role") != "user":
        return runtime
    prepared_meta = get(prepared, _META)
    sender_is_owner = get(prepared_meta, "senderIsOwner")
    steer_target = normalize_persisted_steer_target_run_id(get(prepared_meta, "steerTargetRunId"))
    message: dict[str, Any] = dict(runtime)
    provenance = normalize_input_provenance(get(prepared, "provenance"))
    if provenance is not UNDEFINED:
        message["provenance"] = provenance
    if get(prepared, "display") is False:
        message["display"] = False
    existing = message.get(_META, UNDEFINED)
    meta: dict[str, Any] = dict(existing) if isinstance(existing, Mapping) else {}

    meta.pop("intent", None)
    intent = get(prepared_meta, "intent")
    if js_truthy(intent):
        meta["intent"] = intent
    meta.pop("steerTargetRunId", None)
    if steer_target is not UNDEFINED:
        meta["steerTargetRunId"] = steer_target
    if isinstance(sender_is_owner, bool):
        meta["senderIsOwner"] = sender_is_owner
    auto_steer = get(prepared_meta, "autoSteer")
    if "autoSteer" in meta or auto_steer is not UNDEFINED:
        # Producer advice is host-authored: a hook can neither forge nor drop it.
        meta.pop("autoSteer", None)
        if is_record(auto_steer):
            meta["autoSteer"] = auto_steer

    same_content = strict_deep_equal(get(runtime, "content"), get(prepared, "content"))
    # Selections and work context describe the submitted bytes, not a hook's rewrite.
    meta.pop("humanMentions", None)
    mentions = get(prepared_meta, "humanMentions")
    if mentions is not UNDEFINED and same_content:
        meta["humanMentions"] = mentions
    if not same_content:
        meta.pop("workContext", None)

    message.pop(_META, None)
    if meta:
        message[_META] = meta
    return message
