"""Delivery facts: validating stored facts and projecting legacy plugin envelopes."""

from __future__ import annotations

import json

from clawharness.delivery.facts import (
    MessageDeliveryFact,
    plugin_broadcast_has_delivery,
    project_plugin_message_delivery_fact,
    read_embedded_message_delivery_fact,
)


def test_a_settled_complete_fact_keeps_its_source_reply_confirmation() -> None:
    fact = read_embedded_message_delivery_fact(
        {
            "status": "settled",
            "partialDelivery": False,
            "createdThreadIds": ["t1"],
            "sourceReplyDelivered": True,
            "primaryPlatformMessageId": "m1",
        }
    )
    assert fact == MessageDeliveryFact(
        status="settled",
        created_thread_ids=("t1",),
        primary_platform_message_id="m1",
        source_reply_delivered=True,
    )


def test_a_null_message_id_is_malformed_but_a_missing_one_is_fine() -> None:
    base = {"status": "failed", "partialDelivery": False, "createdThreadIds": []}
    assert read_embedded_message_delivery_fact(base) == MessageDeliveryFact(status="failed")
    assert read_embedded_message_delivery_fact({**base, "primaryPlatformMessageId": None}) is None
    empty_id = read_embedded_message_delivery_fact({**base, "primaryPlatformMessageId": ""})
    assert empty_id == MessageDeliveryFact(status="failed")


def test_a_partial_fact_drops_the_source_reply_confirmation() -> None:
    fact = read_embedded_message_delivery_fact(
        {
            "status": "settled",
            "partialDelivery": True,
            "createdThreadIds": [],
            "sourceReplyDelivered": True,
        }
    )
    assert fact == MessageDeliveryFact(status="settled", partial_delivery=True)


def test_a_fact_with_an_unknown_status_is_rejected() -> None:
    assert (
        read_embedded_message_delivery_fact(
            {"status": "sent", "partialDelivery": False, "createdThreadIds": []}
        )
        is None
    )


def test_only_a_settled_fact_counts_as_delivered() -> None:
    assert MessageDeliveryFact(status="settled").delivered
    assert not MessageDeliveryFact(status="dryRun").delivered
    assert not MessageDeliveryFact(status="suppressed").delivered


def test_an_error_takes_precedence_over_a_message_id() -> None:
    fact = project_plugin_message_delivery_fact({"messageId": "m1", "error": "boom"})
    assert fact == MessageDeliveryFact(status="failed")


def test_partial_delivery_wins_over_an_error() -> None:
    fact = project_plugin_message_delivery_fact(
        {"messageId": "m1", "error": "boom", "sentBeforeError": True}
    )
    assert fact == MessageDeliveryFact(status="settled", partial_delivery=True)


def test_reported_recipients_become_delivered_targets() -> None:
    payload = {
        "ok": True,
        "result": {"messageId": " m7 ", "chatId": "C1", "receipt": {"parts": [{"roomId": "R2"}]}},
    }
    assert project_plugin_message_delivery_fact(payload) == MessageDeliveryFact(
        status="settled", primary_platform_message_id="m7", delivered_targets=("C1", "R2")
    )


def test_a_receipt_part_that_was_not_sent_reports_no_recipient() -> None:
    payload = {"messageId": "m1", "receipt": {"parts": [{"outcome": "not_sent", "chatId": "X"}]}}
    fact = project_plugin_message_delivery_fact(payload)
    assert fact is not None
    assert fact.delivered_targets is None


def test_signals_nested_deeper_than_four_levels_are_ignored() -> None:
    shallow = {"details": {"result": {"payload": {"messageId": "m1"}}}}
    assert project_plugin_message_delivery_fact(shallow) is not None
    deep = {"details": {"result": {"payload": {"toolResult": {"details": {"messageId": "m1"}}}}}}
    assert project_plugin_message_delivery_fact(deep) is None


def test_json_text_content_is_read_as_an_envelope() -> None:
    result = {"content": [{"type": "text", "text": json.dumps({"pollId": "p1"})}]}
    fact = project_plugin_message_delivery_fact(result)
    assert fact is not None
    assert fact.primary_platform_message_id == "p1"


def test_json_text_with_nan_is_not_parsed() -> None:
    assert project_plugin_message_delivery_fact({"text": '{"messageId": NaN}'}) is None


def test_an_empty_error_object_still_reports_a_failure() -> None:
    for error in ({}, [], "boom", 1):
        fact = project_plugin_message_delivery_fact({"messageId": "m1", "error": error})
        assert fact == MessageDeliveryFact(status="failed"), error
    for no_error in (None, False, 0, "", float("nan")):
        fact = project_plugin_message_delivery_fact({"messageId": "m1", "error": no_error})
        assert fact == MessageDeliveryFact(status="settled", primary_platform_message_id="m1")


def test_an_explicit_null_removed_is_a_no_op_but_a_missing_one_is_not() -> None:
    assert project_plugin_message_delivery_fact({"removed": None}) == MessageDeliveryFact(
        status="failed"
    )
    assert project_plugin_message_delivery_fact({"removed": 2}) is None


def test_a_broadcast_needs_one_accepted_settled_entry() -> None:
    delivered = {"results": [{"ok": False}, {"ok": True, "payload": {"messageId": "b1"}}]}
    assert plugin_broadcast_has_delivery(delivered)
    skipped = {"results": [{"ok": True, "payload": {"messageId": "skipped"}}]}
    assert not plugin_broadcast_has_delivery(skipped)
