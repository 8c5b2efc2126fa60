"""The secret patterns as data, the whitespace secrets end at, field-name rules."""

from __future__ import annotations

import re

from clawharness.redaction import (
    is_sensitive_field_key,
    redact_model_visible_secrets,
    redact_sensitive_field_value,
    redact_tool_payload_text,
)
from clawharness.redaction.patterns import FIELD_PATTERNS, VENDOR_PATTERNS
from clawharness.redaction.text import default_patterns, tool_payload_patterns


def test_every_pattern_has_a_unique_name_and_compiles_or_names_a_scanner() -> None:
    specs = (*FIELD_PATTERNS, *VENDOR_PATTERNS)
    names = [spec.name for spec in specs]
    assert len(names) == len(set(names))
    compiled = default_patterns()
    assert [pattern.name for pattern in compiled] == names
    for pattern in compiled:
        assert (pattern.regex is None) == (pattern.spec.pattern is None)
        assert (pattern.scanner is None) == (pattern.spec.pattern is not None)
        if pattern.regex is not None:
            assert pattern.regex.flags & re.ASCII


def test_pem_blocks_run_after_the_assignment_shapes_and_aws_keys_last() -> None:
    names = [pattern.name for pattern in default_patterns()]
    assert names.index("PEM_BLOCK") == names.index("AWS_SECRET_ACCESS_KEY_FIELD") - 1
    assert names[-1] == "AWS_SECRET_ACCESS_KEY"


def test_model_visible_output_leaves_out_only_the_ambiguous_assignments() -> None:
    left_out = {p.name for p in default_patterns()} - {p.name for p in tool_payload_patterns()}
    assert "ENV_ASSIGNMENT" in left_out
    assert "AUTHORIZATION_BEARER" not in left_out
    assert all(not p.spec.model_visible for p in default_patterns() if p.name in left_out)


def test_a_secret_ends_at_an_ideographic_or_no_break_space() -> None:
    assert redact_tool_payload_text("API_KEY=abcdefghijklmnopqrstuv\u3000rest") == (
        "API_KEY=***\u3000rest"
    )
    assert redact_tool_payload_text("API_KEY=abcdefghijklmnopqrstuv\u00a0rest") == (
        "API_KEY=***\u00a0rest"
    )


def test_an_information_separator_is_not_a_space_for_secrets() -> None:
    # Python's `\s` would stop at U+001C; the redactor's blank set does not.
    assert redact_tool_payload_text("API_KEY=abcdefghijklmnopqrstuv\x1crest") == "API_KEY=***"


def test_a_field_name_followed_by_a_newline_is_not_a_secret_name() -> None:
    assert is_sensitive_field_key("apiKey")
    assert not is_sensitive_field_key("apiKey\n")
    assert is_sensitive_field_key("DB_PASSWORD")
    assert not is_sensitive_field_key("passwordHint")


def test_a_value_under_a_secret_field_is_masked_even_without_a_pattern() -> None:
    assert redact_sensitive_field_value("password", "hunter2") == "***"
    assert redact_sensitive_field_value("note", "hunter2") == "hunter2"


def test_error_codes_are_not_mistaken_for_authorization_codes() -> None:
    value = {"error": {"code": "E_NOT_FOUND"}, "oauth": {"code": "4/0AbCdEf"}}
    assert redact_model_visible_secrets(value) == {
        "error": {"code": "E_NOT_FOUND"},
        "oauth": {"code": "***"},
    }


def test_numbers_and_booleans_under_secret_fields_are_masked_other_values_pass() -> None:
    marker = object()
    redacted = redact_model_visible_secrets(
        {"apiKey": 12345, "token": False, "ok": True, "count": 3, "other": marker}  # type: ignore[dict-item]
    )
    assert redacted == {"apiKey": "***", "token": "***", "ok": True, "count": 3, "other": marker}


def test_a_structure_that_contains_itself_is_cut_at_the_cycle() -> None:
    node: dict[str, object] = {"password": "hunter2"}
    node["self"] = node
    assert redact_model_visible_secrets(node) == {"password": "***", "self": "[Circular]"}  # type: ignore[arg-type]
