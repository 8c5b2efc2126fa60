"""Classify provider error text into a model-failover reason.

A provider failure often reaches the host only as text: an error payload of a run
result, or the error message of an assistant turn that stopped with an error. These
rules decide whether that text is an auth problem, a billing denial, a rate limit, an
overload, a server error or a transport timeout, so model fallback (and isolated
completion's profile loop) can advance.

The message tables are in `providers.failover_patterns`; the HTTP-status precedence is
here. Provider-plugin hooks and the full context-overflow tables are not modelled:
such text classifies as a reason no caller falls back on anyway.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Literal

from clawharness._text import trim
from clawharness.runtime_plan.failover_patterns import (
    API_ERROR_TRANSIENT,
    AUTH,
    AUTH_PERMANENT,
    BILLING,
    BILLING_402_HINTS,
    BILLING_402_PLAN_HINTS,
    BILLING_HEAD,
    CONTEXT_OVERFLOW,
    ERROR_PREFIX,
    FINISH_REASON_ERROR,
    FORMAT,
    HTML_BODY,
    HTML_CLOSE,
    HTTP_5XX,
    LEADING_402_WRAPPER,
    LEADING_STATUS,
    MODEL_NOT_FOUND,
    NO_BODY,
    OVERLOADED,
    PERIODIC_USAGE_LIMIT,
    RATE_LIMIT,
    RAW_402,
    REPLAY_INVALID,
    SERVER_ERROR,
    SESSION_EXPIRED,
    STATUS_ISE,
    STATUS_ISE_500,
    TIMEOUT,
    TRANSIENT_STATUS,
    UNKNOWN_ERROR_ONLY,
    Pattern,
)

__all__ = ["FailoverReason", "classify_failover_reason"]

FailoverReason = Literal[
    "auth", "auth_permanent", "billing", "rate_limit", "overloaded", "server_error", "timeout",
    "format", "context_overflow", "session_expired", "model_not_found", "no_error_details",
]
#: a text holding several markdown sections is a document, not a billing notice
_MARKDOWN_SECTION = re.compile(r"(?:^|\n)##\s+\S")


_KEEP_ON_410 = ("session_expired", "billing", "auth_permanent", "auth")
_KEEP_ON_404 = (
    "context_overflow",
    "session_expired",
    "billing",
    "auth_permanent",
    "auth",
    "format",
)


def _lower(raw: str) -> str:
    return trim(raw).lower()


def _matches(raw: str, patterns: Iterable[Pattern]) -> bool:
    value = _lower(raw)
    if not value:
        return False
    return any((p in value) if isinstance(p, str) else bool(p.search(value)) for p in patterns)


def _is_billing(raw: str) -> bool:
    value = _lower(raw)
    if not value or len(_MARKDOWN_SECTION.findall(raw)) > 1:
        return False
    if _matches(value, BILLING):
        return True
    if not BILLING_HEAD.search(raw):
        return False
    return any(
        hint in value
        for hint in ("upgrade", "credits", "payment", "purchase", "subscription", "plan")
    )


def _is_server_error(raw: str) -> bool:
    value = _lower(raw)
    if not value:
        return False
    if STATUS_ISE_500.search(value) or HTTP_5XX.search(value):
        return True
    scrubbed = trim(STATUS_ISE.sub("", value, count=1))
    return scrubbed == "" or _matches(scrubbed, SERVER_ERROR)


def _leading_status(raw: str) -> tuple[int, str] | None:
    match = LEADING_STATUS.match(raw)
    if not match:
        return None
    return int(match.group(1)), trim(match.group(2) or "")


def _api_error_type(raw: str) -> str | None:
    candidate = ERROR_PREFIX.sub("", trim(raw), count=1)
    if not (candidate.startswith("{") and candidate.endswith("}")):
        return None
    try:
        parsed: object = json.loads(candidate)
    except ValueError:
        return None
    if not isinstance(parsed, dict):
        return None
    error = parsed.get("error")
    kind = error.get("type") if isinstance(error, dict) else parsed.get("type")
    return kind.lower() if isinstance(kind, str) else None


def _classify_402(message: str) -> FailoverReason:
    text = trim(LEADING_402_WRAPPER.sub("", _lower(message), count=1))
    if not text:
        return "billing"
    if "subscription quota limit" in text and (
        "automatic quota refresh" in text or "rolling time window" in text
    ):
        return "rate_limit"
    if (
        any(h in text for h in BILLING_402_HINTS)
        or (any(h in text for h in BILLING_402_PLAN_HINTS) and "limit" in text)
        or "billing hard limit" in text
        or "hard limit reached" in text
        or ("maximum allowed" in text and "limit" in text)
    ):
        return "billing"
    if _matches(text, RATE_LIMIT):
        return "rate_limit"
    periodic = any(h in text for h in ("daily", "weekly", "monthly"))
    spend = "spend limit" in text or "spending limit" in text
    retryable = (
        (
            any(h in text for h in ("try again", "retry", "temporary", "cooldown"))
            and any(h in text for h in ("usage limit", "rate limit", "organization usage"))
        )
        or (periodic and ("usage limit" in text or spend))
        or (periodic and "limit" in text and "reset" in text)
        or (
            any(h in text for h in ("organization", "workspace"))
            and "limit" in text
            and (
                spend
                or any(h in text for h in ("billing period", "exceeded", "reached", "exhausted"))
            )
        )
    )
    return "rate_limit" if retryable else "billing"


def _reason_from_402_text(raw: str) -> FailoverReason | None:
    if RAW_402.search(raw):
        return _classify_402(raw)
    return None


def _classify_message(raw: str) -> FailoverReason | None:
    if SESSION_EXPIRED.search(_lower(raw)):
        return "session_expired"
    if MODEL_NOT_FOUND.search(raw):
        return "model_not_found"
    if CONTEXT_OVERFLOW.search(trim(raw)):
        return "context_overflow"
    if REPLAY_INVALID.search(raw):
        return "format"
    from_402 = _reason_from_402_text(raw)
    if from_402:
        return from_402
    leading = _leading_status(trim(raw))
    if (leading is None or leading[0] != 429) and _is_billing(raw):
        return "billing"
    if PERIODIC_USAGE_LIMIT.search(raw):
        return "billing" if _is_billing(raw) else "rate_limit"
    if _matches(raw, RATE_LIMIT):
        return "rate_limit"
    if _matches(raw, OVERLOADED):
        return "overloaded"
    if _matches(raw, FINISH_REASON_ERROR):
        return "server_error"
    structured_server = _api_error_type(raw) in ("server_error", "upstream_error") or any(
        marker in _lower(raw)
        for marker in (
            '"type":"server_error"',
            '"code":"server_error"',
            '"type":"upstream_error"',
            '"code":"upstream_error"',
        )
    )
    auth_permanent = _matches(raw, AUTH_PERMANENT)
    auth = _matches(raw, AUTH)
    if structured_server and not _is_billing(raw) and not auth_permanent and not auth:
        return "server_error"
    if leading is not None and leading[0] in TRANSIENT_STATUS:
        return "overloaded" if leading[0] == 529 else "timeout"
    if auth_permanent:
        return "auth_permanent"
    if auth:
        return "auth"
    if UNKNOWN_ERROR_ONLY.match(raw):
        return "timeout"
    if _is_server_error(raw):
        return "timeout"
    if '"type":"api_error"' in _lower(raw) and API_ERROR_TRANSIENT.search(raw):
        return "timeout"
    if _matches(raw, FORMAT):
        return "format"
    if _lower(raw) == "unknown error (no error details in response)":
        return "no_error_details"
    if _matches(raw, TIMEOUT):
        return "timeout"
    error_type = _api_error_type(raw)
    if error_type == "invalid_request_error":
        return "format"
    if error_type in ("server_error", "upstream_error"):
        return "server_error"
    if error_type == "overloaded_error":
        return "overloaded"
    return None


def _classify_status(status: int, message: str,
                     message_reason: FailoverReason | None) -> FailoverReason | None:
    if status == 402:
        return _reason_from_402_text(message) or message_reason
    if status == 429:
        return "billing" if message_reason == "billing" else "rate_limit"
    if status in (401, 403):
        if _matches(message, AUTH_PERMANENT):
            return "auth_permanent"
        return "billing" if message_reason == "billing" else "auth"
    if status == 408:
        return "timeout"
    if status == 410:
        return message_reason if message_reason in _KEEP_ON_410 else "timeout"
    if status == 404:
        return message_reason if message_reason in _KEEP_ON_404 else "model_not_found"
    if status in (503, 499):
        return message_reason if message_reason == "overloaded" else "timeout"
    if status in (500, 502, 504):
        return message_reason if message_reason == "server_error" else "timeout"
    if status == 529:
        return "overloaded"
    if status in (400, 422):
        if message_reason and message_reason != "server_error":
            return message_reason
        rest = _leading_status(ERROR_PREFIX.sub("", trim(message), count=1))
        if rest is None or not rest[1] or NO_BODY.match(rest[1]):
            return None
        return "format"
    return None


def classify_failover_reason(raw: str, provider: str | None = None) -> FailoverReason | None:
    """The failover reason a provider error text signals, or None when it is unclassified."""
    del provider  # provider-specific plugin rules are not modelled here
    trimmed = trim(raw)
    if not trimmed:
        return None
    leading = _leading_status(ERROR_PREFIX.sub("", trimmed, count=1))
    status = leading[0] if leading else None
    message_reason = _classify_message(raw)
    if status is not None and (status in (408, 499) or 500 <= status < 600):
        rest = leading[1] if leading else trimmed
        if HTML_BODY.search(rest) and HTML_CLOSE.search(rest):
            return "timeout"
    if status is not None:
        by_status = _classify_status(status, raw, message_reason)
        if by_status:
            return by_status
    return message_reason
