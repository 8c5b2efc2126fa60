"""Secret redaction of values by the field they sit under, and of structured values.

A string under a secret-named field (`apiKey`, `DB_PASSWORD`, `Authorization`, ...) is
masked even when no pattern matches it; a number or boolean there becomes `***`.
Structured values (JSON objects and arrays) are walked, each string redacted with the
name of the field it sits under; a container that contains itself becomes `[Circular]`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from functools import lru_cache

from clawharness._json import JsonValue
from clawharness.redaction._matching import replace_matches
from clawharness.redaction.text import (
    SecretPattern,
    could_match_default_patterns,
    default_patterns,
    is_shell_reference_to_key,
    mask_token,
    redact_text,
    tool_payload_patterns,
)

__all__ = [
    "is_sensitive_field_key",
    "redact_model_visible_secrets",
    "redact_model_visible_tool_payload_text",
    "redact_sensitive_field_value",
    "redact_tool_detail",
    "redact_tool_payload_text",
]

_IGNORE_CASE = re.IGNORECASE | re.ASCII
_PAYMENT_ENV = (
    r"CARD[_-]?NUMBER|CARD[_-]?CVC|CARD[_-]?CVV|CVC|CVV|SECURITY[_-]?CODE"
    r"|PAYMENT[_-]?CREDENTIAL|SHARED[_-]?PAYMENT[_-]?TOKEN"
)
_PAYMENT_QUERY = (
    r"card[-_]?number|card[-_]?cvc|card[-_]?cvv|cvc|cvv|security[-_]?code"
    r"|payment[-_]?credential|shared[-_]?payment[-_]?token"
)
_PAYMENT_JSON = (
    r"cardNumber|card_number|cardCvc|card_cvc|cardCvv|card_cvv|cvc|cvv|securityCode"
    r"|security_code|paymentCredential|payment_credential|sharedPaymentToken|shared_payment_token"
)
_AWS_FIELD = r"aws[-_]?secret[-_]?access[-_]?key|awsSecretAccessKey|SecretAccessKey"
_SECRET_FIELD_RE = re.compile(
    r"^(?:api[-_]?key|apiKey|api[-_]?token|apiToken|bearer[-_]?token|bearerToken|token|secret"
    rf"|password|passwd|{_AWS_FIELD}|credential|authorization|private[-_]?key|privateKey"
    r"|access[-_]?token|accessToken|refresh[-_]?token|refreshToken|id[-_]?token|idToken"
    r"|auth[-_]?token|authToken|client[-_]?secret|clientSecret|app[-_]?secret|appSecret"
    r"|secret[-_]?value|secretValue|raw[-_]?secret|rawSecret|secret[-_]?input|secretInput|key"
    r"|key[-_]?material|keyMaterial|jwt|session|signature|cookie|set[-_]?cookie"
    rf"|{_PAYMENT_QUERY}|{_PAYMENT_JSON})\Z",
    _IGNORE_CASE,
)
_SECRET_ENV_FIELD_RE = re.compile(
    r"^(?:(?:[A-Z0-9]+[_-])+(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD)|API[_-]?KEY|TOKEN|SECRET"
    rf"|PASSWORD|PASSWD|{_PAYMENT_ENV})\Z",
    _IGNORE_CASE,
)
_APP_PASSWORD_FIELD_RE = re.compile(
    r"^(?:apple|icloud|app[-_]?specific[-_]?password|appSpecificPassword"
    r"|application[-_]?password|text|content|message|error|errorMessage|detail|details|reason)\Z",
    _IGNORE_CASE,
)
_APP_PASSWORD_RE = re.compile(r"\b([a-z]{4}-[a-z]{4}-[a-z]{4}-[a-z]{4})\b", re.ASCII)
_BENIGN_APP_PASSWORD_WORDS = frozenset(
    {"case", "claw", "demo", "file", "main", "name", "open", "path", "slug", "test"}
)
_INTERNAL_SOURCE_PATH_RE = re.compile(r"\$WORKSPACE_DIR/[A-Za-z0-9._/-]+\.jsonl\Z")
_TRANSPORT_CODE_RES = tuple(
    re.compile(source, _IGNORE_CASE)
    for source in (
        r"\beconnrefused\b",
        r"\beconnreset\b|\beconnaborted\b|\benetreset\b|\bepipe\b",
        r"\benotfound\b|\beai_again\b",
        r"\benetunreach\b|\behostunreach\b|\behostdown\b",
    )
)


@lru_cache(maxsize=4096)
def is_sensitive_field_key(key: str) -> bool:
    """Field names whose string value is a secret (`apiKey`, `DB_PASSWORD`, …); remembered
    (a structure's keys recur)."""
    return bool(_SECRET_FIELD_RE.search(key) or _SECRET_ENV_FIELD_RE.search(key))


def _redact_sensitive_text(text: str, patterns: Callable[[], Sequence[SecretPattern]]) -> str:
    """`text` redacted with `patterns()` (compiled on first use: most texts pass the
    prefilter and need none)."""
    if not text:
        return text
    if not could_match_default_patterns(text):
        return text
    return redact_text(text, patterns())


def redact_tool_payload_text(text: str) -> str:
    """Redact secrets from tool-call text (arguments, details) with every pattern."""
    return _redact_sensitive_text(text, default_patterns)


def redact_tool_detail(detail: str) -> str:
    """Redact a one-line tool detail for progress and transcript display."""
    return redact_tool_payload_text(detail)


def redact_model_visible_tool_payload_text(text: str) -> str:
    """Redact tool output headed back to the model (ambiguous assignments kept)."""
    return _redact_sensitive_text(text, tool_payload_patterns)


def _is_known_transport_code(value: str) -> bool:
    for pattern in _TRANSPORT_CODE_RES:
        found = pattern.search(value)
        if found is not None and found.group(0) == value:
            return True
    return False


def _ends_with(path: Sequence[str], suffix: Sequence[str]) -> bool:
    return len(path) >= len(suffix) and list(path[len(path) - len(suffix) :]) == list(suffix)


def _should_redact_authorization_code(
    normalized_key: str, path: Sequence[str], transport_code: str | None = None
) -> bool:
    """A `code` field is an OAuth authorization code unless it sits where error and
    status codes live, or is a known network error code in a chain of `cause`s."""
    if normalized_key != "code":
        return False
    lowered = [part.lower() for part in path]
    if len(lowered) == 1 or any(
        _ends_with(lowered, [parent, "code"])
        for parent in ("error", "nodeerror", "status", "details", "warnings")
    ):
        return False
    return not (
        transport_code is not None
        and len(lowered) > 1
        and all(part == "cause" for part in lowered[:-1])
        and _is_known_transport_code(transport_code)
    )


def _is_public_share_id_path(path: Sequence[str]) -> bool:
    if not path or path[-1].lower() != "id":
        return False
    return len(path) >= 2 and path[-2].lower().replace("-", "").replace("_", "") == "publicshare"


def _preserves_reference(key: str, value: str) -> bool:
    return (
        key.lower() == "session" and _INTERNAL_SOURCE_PATH_RE.match(value) is not None
    ) or is_shell_reference_to_key(key, value)


def _should_redact_string_field(
    key: str, value: str, path: Sequence[str], object_path: bool
) -> bool:
    code = _should_redact_authorization_code(key.lower(), path, value if object_path else None)
    return code or (is_sensitive_field_key(key) and not _preserves_reference(key, value))


def _redact_app_passwords(text: str) -> str:
    def replace(match: re.Match[str]) -> str:
        token = match.group(1)
        benign = any(part.lower() in _BENIGN_APP_PASSWORD_WORDS for part in token.split("-"))
        return match.group(0) if benign else mask_token(token)

    return replace_matches(_APP_PASSWORD_RE, text, replace)


def redact_sensitive_field_value(
    key: str,
    value: str,
    *,
    model_visible: bool = False,
    path: Sequence[str] | None = None,
    object_path: bool = True,
) -> str:
    """Redact a string stored under `key`: patterns first, then the field name decides."""
    field_path = [key] if path is None else list(path)
    if _is_public_share_id_path(field_path):
        return mask_token(value)
    if model_visible and not is_sensitive_field_key(key):
        patterns = tool_payload_patterns()
    else:
        patterns = default_patterns()
    redacted = redact_text(value, patterns) if could_match_default_patterns(value) else value
    if redacted != value or _APP_PASSWORD_FIELD_RE.search(key):
        app_redacted = _redact_app_passwords(redacted)
        if app_redacted != value:
            return app_redacted
    if redacted != value:
        return redacted
    if _should_redact_string_field(key, value, field_path, object_path):
        return mask_token(value)
    return value


def _redact_structured(
    key: str,
    value: JsonValue,
    seen: set[int],
    path: list[str],
    object_path: bool,
) -> JsonValue:
    if isinstance(value, str):
        return redact_sensitive_field_value(
            key, value, model_visible=True, path=path, object_path=object_path
        )
    if isinstance(value, bool | int | float):
        sensitive = (
            _is_public_share_id_path(path)
            or _should_redact_authorization_code(key.lower(), path)
            or is_sensitive_field_key(key)
        )
        return "***" if sensitive else value
    if not isinstance(value, list | dict):
        # null, and any value that is not JSON, passes through untouched
        return value
    if id(value) in seen:
        return "[Circular]"
    seen.add(id(value))
    if isinstance(value, list):
        out: JsonValue = [_redact_structured(key, entry, seen, path, False) for entry in value]
    else:
        out = {
            name: _redact_structured(name, child, seen, [*path, name], object_path)
            for name, child in value.items()
        }
    seen.discard(id(value))
    return out


def redact_model_visible_secrets(value: JsonValue) -> JsonValue:
    """Deep-redact a structured tool result headed back to the model.

    Strings are redacted by pattern and by the name of the field they sit under;
    numbers and booleans under a secret-named field become `***`; other values pass.
    """
    if isinstance(value, str):
        return redact_model_visible_tool_payload_text(value)
    if not isinstance(value, list | dict):
        return value
    return _redact_structured("", value, set(), [], True)
