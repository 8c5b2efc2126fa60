"""Secret redaction of tool arguments and tool results (behaviours beyond the vectors)."""

from __future__ import annotations

from clawharness.redaction import (
    mask_token,
    redact_model_visible_tool_payload_text,
    redact_tool_payload_text,
)
from clawharness.tools.sanitize import sanitize_tool_args, sanitize_tool_result


def test_long_secret_keeps_six_leading_and_four_trailing_characters() -> None:
    assert mask_token("abcdefghijklmnopqrstuvwxyz") == "abcdef…wxyz"


def test_short_secret_is_fully_masked() -> None:
    assert mask_token("short-secret") == "***"


def test_pem_private_key_keeps_only_its_armour_lines() -> None:
    text = "x -----BEGIN PRIVATE KEY-----\nabc\ndef\n-----END PRIVATE KEY----- y"
    assert redact_tool_payload_text(text) == (
        "x -----BEGIN PRIVATE KEY-----\n…redacted…\n-----END PRIVATE KEY----- y"
    )


def test_digest_authorization_parameters_are_hidden() -> None:
    text = 'Authorization: Digest username="bob", response="abc"'
    assert redact_tool_payload_text(text) == "Authorization: Digest ***"


def test_url_query_token_is_masked_but_other_params_stay() -> None:
    url = "https://h.test/cb?token=abcdefghijklmnopqrstuvwxyz&x=1"
    assert redact_tool_payload_text(url) == "https://h.test/cb?token=abcdef…wxyz&x=1"


def test_shell_self_reference_is_not_a_secret() -> None:
    assert sanitize_tool_args({"cmd": "FOO_KEY=$FOO_KEY run"}) == {"cmd": "FOO_KEY=$FOO_KEY run"}


def test_aws_key_shape_inside_base64_data_is_left_alone() -> None:
    value = "data;base64,AKIAABCDEFGHIJKLMNOP"
    assert sanitize_tool_args({"blob": value}) == {"blob": value}


def test_forty_character_path_segment_of_public_url_is_not_an_aws_secret() -> None:
    text = "see https://example.com/wJalrXUtnFEMIK7MDENGbPxRfiCYEXAMPLEKEY12 now"
    assert redact_tool_payload_text(text) == text


def test_app_specific_password_in_a_message_field_is_masked() -> None:
    assert sanitize_tool_args({"message": "pw abcd-efgh-wxyz-qrst"}) == {
        "message": "pw abcd-e…qrst"
    }


def test_model_visible_output_keeps_plain_env_assignments() -> None:
    text = "PASSWORD=hunter2hunter2 ok"
    assert redact_model_visible_tool_payload_text(text) == text
    assert sanitize_tool_args({"command": "PASSWORD='hunter2hunter2' ok"}) == {
        "command": "PASSWORD='***' ok"
    }


def test_result_image_data_is_dropped_and_its_size_recorded() -> None:
    result = {
        "content": [
            {"type": "text", "text": "done"},
            {"type": "image", "data": "aGVsbG8=", "mimeType": "image/png"},
        ],
        "details": {"password": "x", "code": 123, "status": {"code": 5}},
    }
    assert sanitize_tool_result(result) == {
        "content": [
            {"type": "text", "text": "done"},
            {"type": "image", "mimeType": "image/png", "bytes": 5, "omitted": True},
        ],
        "details": {"password": "***", "code": 123, "status": {"code": 5}},
    }


def test_result_text_blocks_are_capped_with_a_marker() -> None:
    sanitized = sanitize_tool_result({"content": [{"type": "text", "text": "y" * 9000}]})
    text = sanitized["content"][0]["text"]
    assert text == "y" * 8000 + "\n…(truncated)…"


def test_cyclic_result_is_cut_at_the_cycle() -> None:
    node: dict[str, object] = {"name": "n"}
    node["self"] = node
    assert sanitize_tool_result({"details": node}) == {
        "details": {"name": "n", "self": "[Circular]"}
    }


def test_repeated_argument_object_is_reported_as_circular() -> None:
    shared = {"k": "v"}
    assert sanitize_tool_args({"a": shared, "b": shared}) == {"a": {"k": "v"}, "b": "[Circular]"}
