"""Restore the host's operational facts on a user message a runtime hook rewrote.

A harness that mirrors its native user messages into the host transcript lets write
hooks rewrite them (redact text, change roles). Some metadata under the message's
`__openclaw` key is host-owned and must survive: who sent it (`senderIsOwner`), what the
message was for (`intent`), which run a steer targets, and the input provenance. A hook
must be able to neither forge nor erase those facts, so they are restored from an
independent snapshot of the host-prepared message.

Facts tied to the submitted bytes (the human's selected mentions, the work context the
message described) survive only while the content is exactly what was submitted.

Messages are transcript JSON objects; their fields are checked explicitly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

from clawharness._json import JsonObject, JsonValue
from clawharness._text import trim

__all__ = [
    "INPUT_PROVENANCE_KINDS",
    "InputProvenance",
    "normalize_input_provenance",
    "normalize_persisted_steer_target_run_id",
    "restore_prepared_user_turn_operational_meta_for_runtime",
]

InputProvenanceKind = Literal["external_user", "inter_session", "internal_system"]
#: provenance kinds a user message may carry
INPUT_PROVENANCE_KINDS: Final[tuple[InputProvenanceKind, ...]] = (
    "external_user", "inter_session", "internal_system")
#: the longest steer target run id kept; transcripts the original writes measure it in
#: UTF-16 code units, so it is measured the same way here
_STEER_TARGET_RUN_ID_MAX_UNITS: Final = 512
_META: Final = "__openclaw"


@dataclass(frozen=True, slots=True)
class InputProvenance:
    """Where a user message came from."""

    kind: InputProvenanceKind
    origin_session_id: str | None = None
    source_session_key: str | None = None
    origin_channel: str | None = None
    source_tool: str | None = None

    def to_json(self) -> JsonObject:
        """The transcript form (camelCase; absent fields left out)."""
        fields: dict[str, JsonValue] = {
            "kind": self.kind,
            "originSessionId": self.origin_session_id,
            "sourceSessionKey": self.source_session_key,
            "originChannel": self.origin_channel,
            "sourceTool": self.source_tool,
        }
        return {key: value for key, value in fields.items() if value is not None}


def _optional_string(value: JsonValue) -> str | None:
    return (trim(value) or None) if isinstance(value, str) else None


def _utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _is_set(value: JsonValue) -> bool:
    # An intent is kept when given: anything but null, false, 0 and "" (an empty list or
    # object still counts as given, as in transcripts the original wrote).
    if value is None or value is False or value == "":
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value != 0 and value == value  # NaN is not a given value either
    return True


def _same_json(left: JsonValue, right: JsonValue) -> bool:
    """Equal JSON, where a boolean never equals a number (`True == 1` is not equality)."""
    if isinstance(left, bool) or isinstance(right, bool):
        return isinstance(left, bool) and isinstance(right, bool) and left is right
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(
            _same_json(a, b) for a, b in zip(left, right, strict=True))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_same_json(left[k], right[k]) for k in left)
    numbers = (int, float)
    if isinstance(left, numbers) and isinstance(right, numbers):
        return left == right
    return type(left) is type(right) and left == right


def _same_content(runtime: Mapping[str, JsonValue], prepared: Mapping[str, JsonValue]) -> bool:
    if ("content" in runtime) != ("content" in prepared):
        return False
    return _same_json(runtime.get("content"), prepared.get("content"))


def normalize_persisted_steer_target_run_id(value: JsonValue) -> str | None:
    """A trimmed run id of at most 512 UTF-16 code units, else None."""
    normalized = _optional_string(value)
    if normalized is not None and _utf16_units(normalized) <= _STEER_TARGET_RUN_ID_MAX_UNITS:
        return normalized
    return None


def normalize_input_provenance(value: JsonValue) -> InputProvenance | None:
    """A provenance record of a known kind, with its optional strings normalised."""
    if not isinstance(value, dict):
        return None
    kind = next((known for known in INPUT_PROVENANCE_KINDS if value.get("kind") == known), None)
    if kind is not None:
        origin_channel = _optional_string(value.get("originChannel"))
        if origin_channel is None:
            # Records persisted before the rename spell it `sourceChannel`.
            origin_channel = _optional_string(value.get("sourceChannel"))
        return InputProvenance(
            kind=kind,
            origin_session_id=_optional_string(value.get("originSessionId")),
            source_session_key=_optional_string(value.get("sourceSessionKey")),
            origin_channel=origin_channel,
            source_tool=_optional_string(value.get("sourceTool")),
        )
    return None


def restore_prepared_user_turn_operational_meta_for_runtime(
    runtime_message: JsonObject, prepared_message: Mapping[str, JsonValue] | None
) -> JsonObject:
    """The runtime message with the prepared message's operational facts restored.

    `runtime_message` is what the hook produced; `prepared_message` is the host's trusted
    snapshot. A non-user runtime message, or no snapshot, comes back unchanged (the same
    object); otherwise the result is a new message and the input is not modified.
    """
    if prepared_message is None or runtime_message.get("role") != "user":
        return runtime_message
    raw_meta = prepared_message.get(_META)
    prepared_meta: Mapping[str, JsonValue] = raw_meta if isinstance(raw_meta, dict) else {}
    message: JsonObject = dict(runtime_message)
    provenance = normalize_input_provenance(prepared_message.get("provenance"))
    if provenance is not None:
        message["provenance"] = provenance.to_json()
    if prepared_message.get("display") is False:
        message["display"] = False
    existing = message.get(_META)
    meta: JsonObject = dict(existing) if isinstance(existing, dict) else {}

    meta.pop("intent", None)
    intent = prepared_meta.get("intent")
    if _is_set(intent):
        meta["intent"] = intent
    meta.pop("steerTargetRunId", None)
    steer_target = normalize_persisted_steer_target_run_id(prepared_meta.get("steerTargetRunId"))
    if steer_target is not None:
        meta["steerTargetRunId"] = steer_target
    sender_is_owner = prepared_meta.get("senderIsOwner")
    if isinstance(sender_is_owner, bool):
        meta["senderIsOwner"] = sender_is_owner
    if "autoSteer" in meta or "autoSteer" in prepared_meta:
        # Producer advice is host-authored: a hook can neither forge nor drop it.
        meta.pop("autoSteer", None)
        auto_steer = prepared_meta.get("autoSteer")
        if isinstance(auto_steer, dict):
            meta["autoSteer"] = auto_steer

    same_content = _same_content(runtime_message, prepared_message)
    # Selections and work context describe the submitted bytes, not a hook's rewrite.
    meta.pop("humanMentions", None)
    if "humanMentions" in prepared_meta and same_content:
        meta["humanMentions"] = prepared_meta["humanMentions"]
    if not same_content:
        meta.pop("workContext", None)

    message.pop(_META, None)
    if meta:
        message[_META] = meta
    return message
