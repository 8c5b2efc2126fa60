"""Provider error text classifies into the failover reason model fallback acts on."""

from __future__ import annotations

import pytest

from clawharness.runtime_plan.failover import classify_failover_reason


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("429 Too Many Requests", "rate_limit"),
        ("Error: rate limit exceeded, retry later", "rate_limit"),
        ('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}',
         "overloaded"),
        ("401 Unauthorized", "auth"),
        ("Your API key has been revoked", "auth_permanent"),
        ("402 Payment Required: insufficient credits", "billing"),
        ("402 Payment Required: daily usage limit reached, try again later", "rate_limit"),
        ("503 Service Unavailable", "overloaded"),
        ("503 the upstream went away", "timeout"),
        ("529 overloaded", "overloaded"),
        ("fetch failed", "timeout"),
        ("ECONNRESET", "timeout"),
        ("context_length_exceeded: prompt is too long", "context_overflow"),
        ("model not found: gpt-9", "model_not_found"),
        ("404 no such session", "session_expired"),
        ("invalid request format", "format"),
        ("Unknown error (no error details in response)", "no_error_details"),
        ("账户余额不足", "billing"),
    ],
)
def test_known_provider_texts_classify(text: str, reason: str) -> None:
    assert classify_failover_reason(text) == reason


def test_blank_or_unknown_text_is_unclassified() -> None:
    assert classify_failover_reason("  \ufeff ") is None
    assert classify_failover_reason("the tool wrote a file") is None


def test_an_html_error_page_behind_a_5xx_is_a_timeout() -> None:
    page = "502 <!DOCTYPE html><html><body>Bad gateway</body></html>"
    assert classify_failover_reason(page) == "timeout"


def test_a_pattern_does_not_cross_a_line_separator() -> None:
    # `could not authenticate ... api key` must sit on one line; U+2028 ends a line too.
    assert classify_failover_reason("could not authenticate with api key") == "auth"
    assert classify_failover_reason("could not authenticate\u2028the api key") is None


def test_the_end_anchor_does_not_accept_a_trailing_newline() -> None:
    assert classify_failover_reason("terminated") == "timeout"
    assert classify_failover_reason("request failed") == "timeout"
    assert classify_failover_reason("request failed\nand more") is None
