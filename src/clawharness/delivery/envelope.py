"""Reading delivery signals out of legacy plugin result envelopes.

Plugin messaging tools report delivery in many shapes: a flat record, a record nested
under `details`/`payload`/`result`/..., JSON text inside a content block, or a list of
per-target results. `plugin_envelope_has` walks those shapes (to a bounded depth, so a
hostile payload cannot make the walk expensive) and asks whether any record carries one
signal, such as a dry run, a partial delivery or a platform message id.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Literal

from clawharness._json import JsonObject, JsonValue
from clawharness.delivery._coerce import (
    as_list,
    as_record,
    field_of,
    has_non_empty_string,
    is_finite_number,
    is_number,
    normalize_optional_string,
    normalize_status,
    safe_parse_json_record,
    strip_whitespace,
)

__all__ = [
    "NON_DELIVERY_IDS",
    "PluginSignal",
    "delivery_id",
    "first_delivery_id",
    "is_strictly",
    "list_receipt_source_targets",
    "plugin_envelope_has",
    "visit_plugin_envelope",
]

PluginSignal = Literal[
    "dryRun",
    "failure",
    "partial",
    "conversation",
    "nonDelivery",
    "noOp",
    "delivery",
    "deliveryId",
    "ok",
]
Predicate = Callable[[JsonObject, str | None], bool]

#: message ids that a plugin reports when nothing was actually sent
NON_DELIVERY_IDS = frozenset({"skipped", "suppressed"})
NON_DELIVERY_STATUSES = frozenset({"failed", *NON_DELIVERY_IDS})
_FAILURE_STATUSES = frozenset({"error", "incomplete", "partial_failed", "dry_run"})
_NO_OP_STATUSES = frozenset({"noop", "no_op", "not_found"})
_NO_OP_FALSE_FLAGS = ("applied", "changed", "created", "deleted", "sent", "updated")
_ENVELOPE_KEYS = ("details", "payload", "result", "results", "sendResult", "toolResult")
_MAX_DEPTH = 4


def delivery_id(value: JsonValue) -> str | None:
    """A trimmed platform id, unless it is a non-delivery placeholder such as `skipped`."""
    identifier = strip_whitespace(value) if isinstance(value, str) else ""
    if identifier and identifier.lower() not in NON_DELIVERY_IDS:
        return identifier
    return None


def visit_plugin_envelope(value: JsonValue, predicate: Predicate, depth: int = 0) -> bool:
    """True when `predicate` holds for any record reachable through the envelope shapes."""
    if depth > _MAX_DEPTH:
        return False
    items = as_list(value)
    if items is not None:
        return any(visit_plugin_envelope(item, predicate, depth + 1) for item in items)
    record = as_record(value)
    if record is None:
        return False
    status = normalize_status(record.get("deliveryStatus"))
    if status is None:
        status = normalize_status(record.get("status"))
    if predicate(record, status):
        return True
    text = record.get("text")
    if isinstance(text, str):
        parsed = safe_parse_json_record(text)
        if parsed is not None and visit_plugin_envelope(parsed, predicate, depth + 1):
            return True
    content = as_list(record.get("content"))
    if content is not None and any(
        visit_plugin_envelope(item, predicate, depth + 1) for item in content
    ):
        return True
    return any(
        visit_plugin_envelope(record.get(key), predicate, depth + 1) for key in _ENVELOPE_KEYS
    )


def is_strictly(record: JsonObject, key: str, expected: bool) -> bool:
    # Strict `=== true/false`: only real booleans count.
    value = record.get(key)
    return isinstance(value, bool) and value is expected


def _dry_run(record: JsonObject, status: str | None) -> bool:
    return (
        is_strictly(record, "dryRun", True)
        or status == "dry_run"
        or normalize_status(record.get("status")) == "dry_run"
    )


def _names_an_error(value: JsonValue) -> bool:
    # Any `error` but null, false, 0, NaN or "" reports one: the original's rule, under
    # which an empty list or object still counts as an error.
    if value is None or value is False or value == "":
        return False
    if is_number(value):
        return value != 0 and not math.isnan(value)
    return True


def _failure(record: JsonObject, status: str | None) -> bool:
    if any(is_strictly(record, key, False) for key in ("ok", "success", "delivered", "complete")):
        return True
    if is_strictly(record, "isError", True) or _names_an_error(record.get("error")):
        return True
    for raw in (record.get("status"), record.get("deliveryStatus")):
        normalized = normalize_status(raw)
        if normalized in _FAILURE_STATUSES or normalized in NON_DELIVERY_STATUSES:
            return True
    return False


def _partial(record: JsonObject, status: str | None) -> bool:
    return (
        is_strictly(record, "sentBeforeError", True)
        or is_strictly(record, "visibleReplySent", True)
        or status == "partial_failed"
    )


def _conversation(record: JsonObject, status: str | None) -> bool:
    candidates = (
        record.get("topicId"),
        record.get("threadId"),
        record.get("messageThreadId"),
        field_of(record.get("thread"), "id"),
    )
    return any(has_non_empty_string(item) or is_finite_number(item) for item in candidates)


def _non_delivery(record: JsonObject, status: str | None) -> bool:
    identifier = normalize_status(record.get("messageId"))
    return identifier in NON_DELIVERY_IDS or status in NON_DELIVERY_STATUSES


def _no_op(record: JsonObject, status: str | None) -> bool:
    removed = record.get("removed")
    # An explicit `removed: null` (unlike a missing key) reports that nothing was removed.
    if ("removed" in record and removed is None) or removed is False:
        return True
    if is_number(removed) and removed == 0:
        return True
    if isinstance(removed, list) and not removed:
        return True
    if any(is_strictly(record, key, False) for key in _NO_OP_FALSE_FLAGS):
        return True
    return status in _NO_OP_STATUSES


def _delivery_ids(record: JsonObject) -> tuple[JsonValue, JsonValue, JsonValue]:
    return (record.get("messageId"), record.get("pollId"), field_of(record.get("message"), "id"))


def _has_delivery_id(record: JsonObject, status: str | None) -> bool:
    for raw in _delivery_ids(record):
        normalized = normalize_status(raw)
        if normalized and normalized not in NON_DELIVERY_IDS:
            return True
    return False


def _delivery(record: JsonObject, status: str | None) -> bool:
    return (
        _has_delivery_id(record, status)
        or status == "sent"
        or normalize_status(record.get("text")) == "sent"
    )


def _ok(record: JsonObject, status: str | None) -> bool:
    return is_strictly(record, "ok", True) or normalize_status(record.get("text")) == "ok"


_SIGNALS: dict[str, Predicate] = {
    "dryRun": _dry_run,
    "failure": _failure,
    "partial": _partial,
    "conversation": _conversation,
    "nonDelivery": _non_delivery,
    "noOp": _no_op,
    "delivery": _delivery,
    "deliveryId": _has_delivery_id,
    "ok": _ok,
}


def plugin_envelope_has(value: JsonValue, signal: PluginSignal) -> bool:
    """True when any record in the envelope carries `signal`."""
    return visit_plugin_envelope(value, _SIGNALS[signal])


def first_delivery_id(record: JsonObject) -> str | None:
    """The first usable platform id among `messageId`, `pollId` and `message.id`."""
    for raw in _delivery_ids(record):
        identifier = delivery_id(raw)
        if identifier is not None:
            return identifier
    return None


def list_receipt_source_targets(value: JsonValue) -> list[str]:
    """Recipients a receipt reports, including every part of an aggregate receipt."""
    targets: dict[str, None] = {}
    seen: set[int] = set()
    pending: list[JsonValue] = [value]
    index = 0
    # The list grows while it is walked, breadth-first, as the original's for-of does.
    while index < len(pending):
        entry = pending[index]
        index += 1
        if not isinstance(entry, (dict, list)) or id(entry) in seen:
            continue
        seen.add(id(entry))
        if isinstance(entry, list):
            pending.extend(entry)
            continue
        if entry.get("outcome") == "not_sent":
            continue
        record = entry
        candidates = [
            field_of(record.get("target"), "id"),
            *(
                record.get(key)
                for key in ("chatId", "channelId", "roomId", "conversationId", "toJid")
            ),
        ]
        for candidate in candidates:
            normalized = normalize_optional_string(candidate)
            if normalized is not None:
                targets[normalized] = None
        pending.extend((record.get("receipt"), record.get("raw"), record.get("parts")))
    return list(targets)
