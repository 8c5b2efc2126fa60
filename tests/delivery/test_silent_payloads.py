"""Silent replies: the NO_REPLY text forms, and a payload with something else to send."""

from __future__ import annotations

import pytest

from clawharness._json import JsonValue
from clawharness.delivery.reply_content import (
    ReplyPayload,
    has_message_presentation_blocks,
    has_reply_payload_content,
    parse_reply_payload,
)
from clawharness.delivery.silent import (
    is_silent_payload,
    is_silent_reply_payload_text,
    is_silent_reply_text,
)


@pytest.mark.parametrize(
    ("text", "silent"),
    [
        ("NO_REPLY", True),
        (" no_reply ", True),
        ("NO_REPLY NO_REPLY", True),
        ("**NO_REPLY**", True),
        ("\ufeffNO_REPLY\ufeff", True),
        # U+0085 and U+001C are not trimmed (Python's str.strip would trim them).
        ("NO_REPLY\u0085", False),
        ("\x1cNO_REPLY", False),
        ("done. NO_REPLY", False),
        ("NO_REPLY please", False),
        ("", False),
        (None, False),
    ],
)
def test_token_only_text_is_silent(text: str | None, silent: bool) -> None:
    assert is_silent_reply_text(text) is silent


@pytest.mark.parametrize(
    "text",
    [
        '"\\tNO_REPLY"',  # a JSON string whose value trims to the token
        '{"action":"NO_REPLY"}',
        "<thinking>quiet</thinking>NO_REPLY",
        "thinking:\nI will stay quiet. NO_REPLY",
    ],
)
def test_json_and_reasoning_forms_are_silent_payload_text(text: str) -> None:
    assert not is_silent_reply_text(text)
    assert is_silent_reply_payload_text(text)


def test_an_envelope_with_more_than_the_action_is_not_silent() -> None:
    assert not is_silent_reply_payload_text('{"action":"NO_REPLY","x":1}')


def test_parsing_keeps_only_fields_of_the_right_type() -> None:
    raw: dict[str, JsonValue] = {
        "text": 5,
        "mediaUrl": "https://m.test/a.png",
        "mediaUrls": ["a", 3, None, "b"],
        "channelData": {"k": 1},
        "location": 0,
        "unknown": True,
    }
    assert parse_reply_payload(raw) == ReplyPayload(
        media_url="https://m.test/a.png",
        media_urls=("a", "b"),
        channel_data={"k": 1},
        location=0,
    )


@pytest.mark.parametrize(
    ("extra", "sendable"),
    [
        ({}, False),
        ({"media_url": "  "}, False),
        ({"media_url": "https://m.test/a.png"}, True),
        ({"media_urls": (" ",)}, False),
        ({"media_urls": (" ", "x")}, True),
        ({"channel_data": {}}, False),
        ({"channel_data": {"k": 1}}, True),
        ({"channel_data": ["k"]}, False),
        # Any location counts, even a falsy one; only a missing location does not.
        ({"location": 0}, True),
        ({"location": False}, True),
        ({"location": None}, False),
    ],
)
def test_a_silent_text_with_something_sendable_is_delivered(
    extra: dict[str, object], sendable: bool
) -> None:
    payload = ReplyPayload(text="NO_REPLY", **extra)  # type: ignore[arg-type]
    assert is_silent_payload(payload) is not sendable


def test_a_mapping_payload_is_parsed_first() -> None:
    assert is_silent_payload({"text": "NO_REPLY"})
    assert not is_silent_payload({"text": "NO_REPLY", "mediaUrls": ["x"]})
    assert not is_silent_payload({"text": 5})


def test_text_alone_is_content_when_it_is_not_blank() -> None:
    assert has_reply_payload_content(ReplyPayload(text=" hi "))
    assert not has_reply_payload_content(ReplyPayload(text=" \u3000 "))


@pytest.mark.parametrize(
    ("presentation", "valid"),
    [
        ({"title": "T"}, True),
        ({"title": " "}, False),
        ({"blocks": [{"type": "divider"}]}, True),
        ({"blocks": [{"type": "buttons", "buttons": [{"label": "Open"}]}]}, False),
        ({"blocks": [{"type": "buttons", "buttons": [{"label": "Go", "value": "go"}]}]}, True),
        # An action present but invalid spoils the button, even with a value.
        (
            {
                "blocks": [
                    {
                        "type": "buttons",
                        "buttons": [{"label": "Go", "value": "go", "action": {"type": "x"}}],
                    }
                ]
            },
            False,
        ),
        (
            {
                "blocks": [
                    {
                        "type": "chart",
                        "title": "Sales",
                        "chartType": "bar",
                        "categories": ["q1", "q2"],
                        "series": [{"name": "eu", "values": [1, 2]}],
                    }
                ]
            },
            True,
        ),
        (
            {
                "blocks": [
                    {
                        "type": "chart",
                        "title": "Sales",
                        "chartType": "bar",
                        "categories": ["q1", "q2"],
                        "series": [{"name": "eu", "values": [1, True]}],
                    }
                ]
            },
            False,
        ),
        (
            {
                "blocks": [
                    {
                        "type": "table",
                        "caption": "C",
                        "headers": ["a", "b"],
                        "rows": [["x", 1]],
                        "rowHeaderColumnIndex": 1,
                    }
                ]
            },
            True,
        ),
        (
            {
                "blocks": [
                    {
                        "type": "table",
                        "caption": "C",
                        "headers": ["a", "b"],
                        "rows": [["x", 1]],
                        "rowHeaderColumnIndex": None,
                    }
                ]
            },
            False,
        ),
    ],
)
def test_a_presentation_counts_only_with_a_title_or_a_valid_block(
    presentation: JsonValue, valid: bool
) -> None:
    assert has_message_presentation_blocks(presentation) is valid
    assert is_silent_payload(ReplyPayload(text="NO_REPLY", presentation=presentation)) is not valid


def _model_picker(**fields: JsonValue) -> JsonValue:
    action: dict[str, JsonValue] = {
        "type": "model-picker",
        "version": 1,
        "snapshotToken": "snap",
        "intent": "show-providers",
    }
    action.update(fields)
    button = {"label": "Models", "action": action}
    return {"blocks": [{"type": "buttons", "buttons": [button]}]}


def test_a_model_picker_action_must_be_well_formed() -> None:
    assert has_message_presentation_blocks(_model_picker())
    assert has_message_presentation_blocks(_model_picker(cursor="c-1"))
    assert not has_message_presentation_blocks(_model_picker(cursor=None))
    assert not has_message_presentation_blocks(_model_picker(snapshotToken="bad token"))
    assert not has_message_presentation_blocks(_model_picker(intent="choose-model"))
    assert has_message_presentation_blocks(
        _model_picker(intent="choose-model", providerToken="p", modelToken="m")
    )
    # `True == 1` to Python, but a boolean is no version number.
    assert not has_message_presentation_blocks(_model_picker(version=True))
