"""Message delivery facts: what a messaging tool proved it delivered.

A delivery fact is the shared shape that core message tools attach to their results as
`details.messageDelivery`. Only a `settled` fact counts as a sent message; `dryRun`,
`suppressed` and `failed` facts must not suppress a later reply. `partialDelivery`
records that something was sent even though the tool also reported an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, TypeGuard

from clawharness._json import JsonObject, JsonValue
from clawharness.delivery._coerce import as_list, as_record
from clawharness.delivery.envelope import (
    first_delivery_id,
    is_strictly,
    list_receipt_source_targets,
    plugin_envelope_has,
    visit_plugin_envelope,
)

__all__ = [
    "DELIVERY_STATUSES",
    "DeliveryStatus",
    "MessageDeliveryFact",
    "plugin_broadcast_has_delivery",
    "project_plugin_message_delivery_fact",
    "read_embedded_message_delivery_fact",
]

DeliveryStatus = Literal["settled", "suppressed", "dryRun", "failed"]
DELIVERY_STATUSES: frozenset[str] = frozenset({"settled", "suppressed", "dryRun", "failed"})


@dataclass(frozen=True, slots=True)
class MessageDeliveryFact:
    """One messaging tool call's delivery outcome."""

    status: DeliveryStatus
    partial_delivery: bool = False
    created_thread_ids: tuple[str, ...] = ()
    primary_platform_message_id: str | None = None
    #: recipients the transport reported, when it reported any
    delivered_targets: tuple[str, ...] | None = None
    #: the core message tool confirmed the reply reached the current source conversation
    source_reply_delivered: bool = False

    @property
    def delivered(self) -> bool:
        """True when the fact counts as a sent message."""
        return self.status == "settled"


def _is_delivery_status(value: JsonValue) -> TypeGuard[DeliveryStatus]:
    return isinstance(value, str) and value in DELIVERY_STATUSES


def read_embedded_message_delivery_fact(value: JsonValue) -> MessageDeliveryFact | None:
    """Validate a stored `details.messageDelivery`; None unless every field is well formed.

    `primaryPlatformMessageId` may be missing, but when present it must be a string
    (`null` is malformed); an empty id counts as none.
    """
    fact = as_record(value)
    if fact is None:
        return None
    status = fact.get("status")
    partial = fact.get("partialDelivery")
    raw_threads = as_list(fact.get("createdThreadIds"))
    primary = fact.get("primaryPlatformMessageId")
    if not _is_delivery_status(status):
        return None
    if not isinstance(partial, bool) or raw_threads is None:
        return None
    thread_ids = tuple(item for item in raw_threads if isinstance(item, str))
    if len(thread_ids) != len(raw_threads):
        return None
    if "primaryPlatformMessageId" in fact and not isinstance(primary, str):
        return None
    # A source-reply confirmation only stands for a complete, settled delivery.
    confirmed = (
        status == "settled" and not partial and is_strictly(fact, "sourceReplyDelivered", True)
    )
    return MessageDeliveryFact(
        status=status,
        partial_delivery=partial,
        created_thread_ids=thread_ids,
        primary_platform_message_id=primary if isinstance(primary, str) and primary else None,
        source_reply_delivered=confirmed,
    )


def _read_plugin_delivery_identity(value: JsonValue) -> tuple[str | None, tuple[str, ...] | None]:
    primary: list[str] = []
    targets: dict[str, None] = {}

    def collect(record: JsonObject, status: str | None) -> bool:
        if not primary:
            identifier = first_delivery_id(record)
            if identifier is not None:
                primary.append(identifier)
        for target in list_receipt_source_targets(record):
            targets[target] = None
        return False  # keep walking: every reachable record may report recipients

    visit_plugin_envelope(value, collect)
    return (primary[0] if primary else None), (tuple(targets) if targets else None)


def project_plugin_message_delivery_fact(value: JsonValue) -> MessageDeliveryFact | None:
    """Read a legacy plugin result envelope into a delivery fact, or None when it says nothing.

    Precedence follows the original: a dry run wins, then partial delivery (something was
    sent despite an error), then non-delivery placeholders, then no-ops and failures, and
    only then a message id or `ok` counts as a settled send.
    """
    if plugin_envelope_has(value, "dryRun"):
        return MessageDeliveryFact(status="dryRun")
    if plugin_envelope_has(value, "partial"):
        return MessageDeliveryFact(status="settled", partial_delivery=True)
    if plugin_envelope_has(value, "nonDelivery"):
        return MessageDeliveryFact(status="suppressed")
    if plugin_envelope_has(value, "noOp") or plugin_envelope_has(value, "failure"):
        return MessageDeliveryFact(status="failed")
    if not plugin_envelope_has(value, "delivery") and not plugin_envelope_has(value, "ok"):
        return None
    primary, targets = _read_plugin_delivery_identity(value)
    return MessageDeliveryFact(
        status="settled", primary_platform_message_id=primary, delivered_targets=targets
    )


def plugin_broadcast_has_delivery(value: JsonValue) -> bool:
    """True when a broadcast result holds one accepted entry whose payload settled."""

    def has_settled_entry(record: JsonObject, status: str | None) -> bool:
        results = as_list(record.get("results"))
        if results is None:
            return False
        for item in results:
            entry = as_record(item)
            if entry is None or not is_strictly(entry, "ok", True):
                continue
            if plugin_envelope_has(entry, "nonDelivery"):
                continue
            for payload in (entry.get("payload"), entry.get("toolResult")):
                fact = project_plugin_message_delivery_fact(payload)
                if fact is not None and fact.status == "settled":
                    return True
        return False

    return visit_plugin_envelope(value, has_settled_entry)
