"""Reading delivery signals out of legacy plugin result envelopes.

Plugin messaging tools report delivery in many shapes: a flat record, a record nested
under `details`/`payload`/`result`/..., JSON text inside a content block, or a list of
per-target results. `plugin_envelope_has` walks those shapes (to a bounded depth, so a
hostile payload cannot make the walk expensive) and asks whether any record carries one
signal, such as a dry run, a partial delivery or a platform message id.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from clawharness._jsvalue import UNDEFINED
from clawharness.delivery._coerce import (
    as_record,
    has_non_empty_string,
    is_array,
    is_finite_number,
    is_number,
    js_trim,
    js_truthy,
    normalize_optional_string,
    normalize_status,
    opt_prop,
    safe_parse_json_record,
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
Predicate = Callable[[dict[str, Any], str | None], bool]

#: message ids that a plugin reports when nothing was actually sent
NON_DELIVERY_IDS = frozenset({"skipped", "suppressed"})
NON_DELIVERY_STATUSES = frozenset({"failed", *NON_DELIVERY_IDS})
_FAILURE_STATUSES = frozenset({"error", "incomplete", "partial_failed", "dry_run"})
_NO_OP_STATUSES = frozenset({"noop", "no_op", "not_found"})
_NO_OP_FALSE_FLAGS = ("applied", "changed", "created", "deleted", "sent", "updated")
_ENVELOPE_KEYS = ("details", "payload", "result", "results", "sendResult", "toolResult")
_MAX_DEPTH = 4


def delivery_id(value: Any) -> str | None:
    """A trimmed platform id, unless it is a non-delivery placeholder such as `skipped`."""
    identifier = js_trim(value) if isinstance(value, str) else ""
    if identifier and identifier.lower() not in NON_DELIVERY_IDS:
        return identifier
    return None


def visit_plugin_envelope(value: Any, predicate: Predicate, depth: int = 0) -> bool:
    """True when `predicate` holds for any record reachable through the envelope shapes."""
    if depth > _MAX_DEPTH:
        return False
    if is_array(value):
        return any(visit_plugin_envelope(item, predicate, depth + 1) for item in value)
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
    content = record.get("content")
    if is_array(content) and any(
        visit_plugin_envelope(item, predicate, depth + 1) for item in content
    ):
        return True
    return any(
        visit_plugin_envelope(record.get(key, UNDEFINED), predicate, depth + 1)
        for key in _ENVELOPE_KEYS
    )


def is_strictly(record: dict[str, Any], key: str, expected: bool) -> bool:
    # Strict `=== true/false`: only real booleans count.
    value = record.get(key)
    return isinstance(value, bool) and value is expected


def _dry_run(record: dict[str, Any], status: str | None) -> bool:
    return (
        is_strictly(record, "dryRun", True)
        or status == "dry_run"
        or normalize_status(record.get("status")) == "dry_run"
    )


def _failure(record: dict[str, Any], status: str | None) -> bool:
    if any(is_strictly(record, key, False) for key in ("ok", "success", "delivered", "complete")):
        return True
    if is_strictly(record, "isError", True) or js_truthy(record.get("error", UNDEFINED)):
        return True
    for raw in (record.get("status"), record.get("deliveryStatus")):
        normalized = normalize_status(raw)
        if normalized in _FAILURE_STATUSES or normalized in NON_DELIVERY_STATUSES:
            return True
    return False


def _partial(record: dict[str, Any], status: str | None) -> bool:
    return (
        is_strictly(record, "sentBeforeError", True)
        or is_strictly(record, "visibleReplySent", True)
        or status == "partial_failed"
    )


def _conversation(record: dict[str, Any], status: str | None) -> bool:
    candidates = (
        record.get("topicId"),
        record.get("threadId"),
        record.get("messageThreadId"),
        opt_prop(as_record(record.get("thread")), "id"),
    )
    return any(has_non_empty_string(item) or is_finite_number(item) for item in candidates)


def _non_delivery(record: dict[str, Any], status: str | None) -> bool:
    identifier = normalize_status(record.get("messageId"))
    return identifier in NON_DELIVERY_IDS or status in NON_DELIVERY_STATUSES


def _no_op(record: dict[str, Any], status: str | None) -> bool:
    removed = record.get("removed", UNDEFINED)
    if removed is None or removed is False:
        return True
    if is_number(removed) and removed == 0:
        return True
    if is_array(removed) and len(removed) == 0:
        return True
    if any(is_strictly(record, key, False) for key in _NO_OP_FALSE_FLAGS):
        return True
    return status in _NO_OP_STATUSES


def _delivery_ids(record: dict[str, Any]) -> tuple[Any, Any, Any]:
    return (
        record.get("messageId"),
        record.get("pollId"),
        opt_prop(as_record(record.get("message")), "id"),
    )


def _has_delivery_id(record: dict[str, Any], status: str | None) -> bool:
    for raw in _delivery_ids(record):
        normalized = normalize_status(raw)
        if normalized and normalized not in NON_DELIVERY_IDS:
            return True
    return False


def _delivery(record: dict[str, Any], status: str | None) -> bool:
    return (
        _has_delivery_id(record, status)
        or status == "sent"
        or normalize_status(record.get("text")) == "sent"
    )


def _ok(record: dict[str, Any], status: str | None) -> bool:
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


def plugin_envelope_has(value: Any, signal: PluginSignal) -> bool:
    """True when any record in the envelope carries `signal`."""
    return visit_plugin_envelope(value, _SIGNALS[signal])


def first_delivery_id(record: dict[str, Any]) -> str | None:
    """The first usable platform id among `messageId`, `pollId` and `message.id`."""
    for raw in _delivery_ids(record):
        identifier = delivery_id(raw)
        if identifier is not None:
            return identifier
    return None


def list_receipt_source_targets(value: Any) -> list[str]:
    """Recipients a receipt reports, including every part of an aggregate receipt."""
    targets: dict[str, None] = {}
    seen: set[int] = set()
    pending: list[Any] = [value]
    index = 0
    # The list grows while it is walked, breadth-first, as the original's for-of does.
    while index < len(pending):
        entry = pending[index]
        index += 1
        if not isinstance(entry, (dict, list, tuple)) or id(entry) in seen:
            continue
        seen.add(id(entry))
        if is_array(entry):
            pending.extend(entry)
            continue
        record = as_record(entry)
        if record is None or record.get("outcome") == "not_sent":
            continue
        target = as_record(record.get("target"))
        candidates = [
            opt_prop(target, "id"),
            *(
                record.get(key)
                for key in ("chatId", "channelId", "roomId", "conversationId", "toJid")
            ),
        ]
        for candidate in candidates:
            normalized = normalize_optional_string(candidate)
            if normalized is not None:
                targets[normalized] = None
        pending.extend(
            (
                record.get("receipt", UNDEFINED),
                record.get("raw", UNDEFINED),
                record.get("parts", UNDEFINED),
            )
        )
    return list(targets)
