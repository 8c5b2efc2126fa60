"""The delivery adapters: JavaScript values in, the typed core called, the original's shapes out.

Cases here go through the runner in the vectors' marker format, as a recorded vector would,
but with inputs the public vectors do not cover (errors the original throws, `undefined`
where only a member count sees it, `Map`s where the core expects JSON).
"""

from __future__ import annotations

from typing import Any

import pytest

from clawharness.conformance.adapters_delivery import encode_message_delivery_fact
from clawharness.conformance.jsrules import OpaqueJsValue, js_truthy, to_json_keeping_opaque
from clawharness.conformance.jsvalue import UNDEFINED, JsMap, JsSet
from clawharness.conformance.runner import run_case
from clawharness.delivery.facts import MessageDeliveryFact

U = {"$undefined": True}


def _run(fn: str, *args: Any, then: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    case: dict[str, Any] = {"id": "t", "fn": fn, "args": list(args)}
    if then is not None:
        case["then"] = then
    got = run_case(case)
    got.pop("id")
    return got


def _type_error(kind: str, key: str) -> dict[str, Any]:
    message = f"Cannot read properties of {kind} (reading '{key}')"
    return {"ok": False, "error": {"name": "TypeError", "message": message}}


@pytest.mark.parametrize(
    ("fn", "args", "kind", "key"),
    [
        ("isDeliveredMessagingToolResult", [], "undefined", "args"),
        ("isDeliveredMessagingToolResult", [None], "null", "args"),
        ("isDeliveredMessagingToolSendToCurrentSource", [U], "undefined", "send"),
        # The original reads `args.action` before it looks at the tool name.
        ("isMessagingToolSendAction", ["sessions_send"], "undefined", "action"),
        ("isMessagingToolSendAction", ["message", None], "null", "action"),
    ],
)
def test_reading_a_property_of_nothing_throws_the_originals_type_error(
    fn: str, args: list[Any], kind: str, key: str
) -> None:
    assert _run(fn, *args) == _type_error(kind, key)


def test_a_value_that_is_not_an_object_reads_as_having_no_properties() -> None:
    assert _run("isDeliveredMessagingToolResult", "message") == {"ok": True, "result": False}
    assert _run("isMessagingToolSendAction", "sessions_send", "x") == {"ok": True, "result": True}
    assert _run("isMessagingTool", 5) == {"ok": True, "result": False}
    assert _run("isMessagingTool") == {"ok": True, "result": False}


def test_a_missing_tool_name_is_the_message_tool_but_a_non_string_is_none() -> None:
    result = {"details": {"ok": True, "messageId": "m"}}
    for tool_name, delivered in ((U, True), (None, True), (5, False), ("message", True)):
        params = {"toolName": tool_name, "args": {"action": "send"}, "result": result}
        assert _run("isDeliveredMessagingToolResult", params)["result"] is delivered, tool_name


def test_truthy_flags_count_as_javascript_would() -> None:
    base = {"toolName": "message", "args": {"action": "send"}, "result": {"details": {"ok": True}}}
    for flag, hides in (([], True), ("x", True), ({"$number": "NaN"}, False), ("", False)):
        got = _run("isDeliveredMessagingToolResult", {**base, "isError": flag})
        assert got["result"] is not hides, flag


def test_an_undefined_primary_id_is_a_missing_one_but_null_is_malformed() -> None:
    fact = {"status": "settled", "partialDelivery": False, "createdThreadIds": []}
    settled = {"status": "settled", "partialDelivery": False, "createdThreadIds": []}
    assert _run("readEmbeddedMessageDeliveryFact", {**fact, "primaryPlatformMessageId": U}) == {
        "ok": True,
        "result": settled,
    }
    assert _run("readEmbeddedMessageDeliveryFact", {**fact, "primaryPlatformMessageId": None}) == {
        "ok": True,
        "result": U,
    }


def test_a_map_is_not_a_receipt() -> None:
    assert _run("projectPluginMessageDeliveryFact", {"$map": [["ok", True]]}) == {
        "ok": True,
        "result": U,
    }
    # ... but as an `error` it is an object, so truthy: the send failed.
    failed = {"status": "failed", "partialDelivery": False, "createdThreadIds": []}
    got = _run("projectPluginMessageDeliveryFact", {"messageId": "m", "error": {"$map": []}})
    assert got == {"ok": True, "result": failed}


def test_a_fact_encodes_in_the_originals_key_order() -> None:
    fact = MessageDeliveryFact(
        status="settled",
        created_thread_ids=("t1",),
        primary_platform_message_id="m1",
        delivered_targets=("C1",),
        source_reply_delivered=True,
    )
    assert list(encode_message_delivery_fact(fact)) == [
        "status",
        "sourceReplyDelivered",
        "primaryPlatformMessageId",
        "deliveredTargets",
        "partialDelivery",
        "createdThreadIds",
    ]
    assert encode_message_delivery_fact(None) is UNDEFINED


def test_a_source_reply_writes_undefined_tone_style_and_placeholder() -> None:
    presentation = {
        "blocks": [
            {"type": "buttons", "buttons": [{"label": "Go", "value": "go"}]},
            {"type": "select", "options": [{"label": "A", "value": "a"}]},
        ]
    }
    result = {"details": {"sourceReplySink": "internal-ui", "presentation": presentation}}
    assert _run("extractMessagingToolSourceReplyPayload", result) == {
        "ok": True,
        "result": {
            "presentation": {
                "tone": U,
                "blocks": [
                    {"type": "buttons", "buttons": [{"label": "Go", "value": "go", "style": U}]},
                    {"type": "select", "placeholder": U, "options": [{"label": "A", "value": "a"}]},
                ],
            }
        },
    }


def test_channel_data_comes_back_as_given_undefined_members_and_maps_included() -> None:
    channel_data = {"keep": U, "map": {"$map": [["a", 1]]}, "n": None}
    result = {"details": {"sourceReplySink": "internal-ui", "channelData": channel_data}}
    assert _run("extractMessagingToolSourceReplyPayload", result) == {
        "ok": True,
        "result": {"channelData": channel_data},
    }


def _is_silent(payload: Any) -> Any:
    plan = {"provider": "openai", "modelId": "m", "config": {}}
    call = [{"call": "delivery.isSilentPayload", "args": [payload]}]
    return _run("buildAgentRuntimePlan", plan, then=call)["result"]


def test_a_channel_data_member_holding_undefined_still_counts_as_data() -> None:
    assert _is_silent({"text": "NO_REPLY", "channelData": {}}) is True
    assert _is_silent({"text": "NO_REPLY", "channelData": {"k": U}}) is False


def test_undefined_members_of_a_payload_are_absent() -> None:
    assert _is_silent({"text": "NO_REPLY", "location": U, "mediaUrl": U}) is True
    assert _is_silent({"text": "NO_REPLY", "location": None}) is True
    assert _is_silent({"text": "NO_REPLY", "location": 0}) is False


def test_a_payload_that_is_not_a_plain_object_is_not_silent() -> None:
    # A Map has no `text` property, whatever its entries say.
    assert _is_silent({"$map": [["text", "NO_REPLY"]]}) is False
    assert _is_silent("NO_REPLY") is False


def test_an_unaccepted_spawn_is_null_not_undefined() -> None:
    assert _run("normalizeAcceptedSessionSpawnResult", U) == {"ok": True, "result": None}
    accepted = {"details": {"status": "accepted", "runId": " r ", "childSessionKey": "k"}}
    assert _run("normalizeAcceptedSessionSpawnResult", accepted) == {
        "ok": True,
        "result": {"runId": "r", "childSessionKey": "k", "expectsCompletionMessage": False},
    }


# --- the JSON view of JavaScript values -----------------------------------------------


def test_undefined_members_are_dropped_and_undefined_items_become_none() -> None:
    assert to_json_keeping_opaque({"a": UNDEFINED, "b": [UNDEFINED, 1], "c": None}) == {"b": [None, 1], "c": None}
    assert to_json_keeping_opaque(UNDEFINED) is None


def test_values_json_cannot_express_become_opaque() -> None:
    converted = to_json_keeping_opaque({"m": JsMap({"a": 1}), "s": JsSet([1])})
    assert isinstance(converted, dict)
    assert all(isinstance(value, OpaqueJsValue) for value in converted.values())
    assert converted["m"].to_js() == {"a": 1}  # type: ignore[union-attr]


def test_shared_objects_and_cycles_keep_their_shape() -> None:
    shared: dict[str, Any] = {"x": 1}
    cyclic: dict[str, Any] = {"shared": shared, "again": shared}
    cyclic["self"] = cyclic
    converted = to_json_keeping_opaque(cyclic)
    assert isinstance(converted, dict)
    assert converted["self"] is converted
    assert converted["shared"] is converted["again"]


@pytest.mark.parametrize(
    ("value", "truthy"),
    [
        (UNDEFINED, False), (None, False), (0, False), (-0.0, False), (float("nan"), False),
        ("", False), (False, False), ([], True), ({}, True), ("0", True), (JsMap(), True),
    ],
)
def test_javascript_truthiness(value: Any, truthy: bool) -> None:
    assert js_truthy(value) is truthy
