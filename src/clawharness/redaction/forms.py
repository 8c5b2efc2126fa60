"""Redaction of `key=value` pairs in URL queries, form bodies and `body: …` contexts.

Keys are matched after stripping invisible characters and `+`, and after percent-
decoding, so `api%5Fkey=` or `to\u200bken=` are recognized like `api_key=`/`token=`.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator
from functools import cache

from clawharness._text import trim
from clawharness.redaction._classes import BLANK, BLANK_MEMBERS, category_members, invisible_members
from clawharness.redaction._matching import find_matches
from clawharness.redaction.mask import mask_token, split_for_mask

__all__ = [
    "form_key_obfuscation_regex",
    "has_obfuscation",
    "is_obfuscation_char",
    "is_sensitive_url_query_param",
    "redact_assignments",
    "redact_form_body",
    "strict_percent_decode",
]

_FLAGS = re.ASCII
#: what the `context` pattern cannot match without (a plain search is C-speed)
_CONTEXT_WORDS = re.compile(r"body|form", re.ASCII | re.IGNORECASE)
#: the non-C characters `invisible_members` adds (Unicode spaces, Hangul fillers)
_INVISIBLE_EXTRA = frozenset(
    "\u00A0\u1680\u202F\u205F\u3000\u115F\u1160\u3164\uFFA0"
    + "".join(chr(code) for code in range(0x2000, 0x200B)))
_VALUE = f"[^&{BLANK_MEMBERS}<>]*"
_URL_VALUE = f"[^&#{BLANK_MEMBERS}<>]*"


def _key() -> str:
    invisible = invisible_members()
    return (
        rf"[{invisible}+]*(?:[A-Za-z_]|%[0-9A-Fa-f]{{2}})"
        rf"(?:[A-Za-z0-9_.-]|%[0-9A-Fa-f]{{2}}|[{invisible}+])*"
    )


def _pair() -> str:
    return f"{_key()}={_VALUE}"


def _separators() -> str:
    return f"{category_members('C')}{category_members('Z')}\\u115F\\u1160\\u3164\\uFFA0+"


#: each form regex's source and flags, built when the regex is first used: the
#: invisible-character class spans the whole of Unicode, so each costs milliseconds to
#: compile and a text needs few of them (a host's start-up none)
_FORM_SOURCES: dict[str, tuple[Callable[[], str], int]] = {
    "obfuscation": (lambda: f"[{invisible_members()}+]", _FLAGS),
    "separator": (lambda: f"[{_separators()}]", _FLAGS),
    "body": (lambda: rf"^{_pair()}(?:&{_pair()})+\Z", _FLAGS),
    "substring": (lambda: rf"(^|[{BLANK_MEMBERS}:({{\[,=\"'`])({_pair()}(?:&{_pair()})+)",
                  _FLAGS),
    "encoded": (lambda: rf"(^|[{BLANK_MEMBERS}:({{\[,=\"'`&])({_key()})=({_VALUE})", _FLAGS),
    "context": (lambda: rf"(\b(?:body|form(?:[-_{BLANK_MEMBERS}]?body)?){BLANK}*[:=]{BLANK}*"
                        rf"([\"'\x60]?))({_key()})=({_VALUE})([\"'\x60]?)",
                _FLAGS | re.IGNORECASE),
    "url": (lambda: rf"([?&])({_key()})=({_URL_VALUE})", _FLAGS),
}


@cache
def _form_regex(name: str) -> re.Pattern[str]:
    source, flags = _FORM_SOURCES[name]
    return re.compile(source(), flags)


_BODY_SECRET_KEYS = frozenset(
    [
        "access_token",
        "auth_token",
        "awssecretaccesskey",
        "aws_secret_access_key",
        "hook_token",
        "refresh_token",
        "id_token",
        "token",
        "api_key",
        "apikey",
        "client_secret",
        "app_secret",
        "password",
        "pass",
        "passwd",
        "auth",
        "jwt",
        "session",
        "code",
        "signature",
        "x_amz_signature",
        "x_amz_security_token",
        "secret",
        "secretaccesskey",
        "credential",
        "private_key",
        "authorization",
        "key",
        "card_number",
        "card_cvc",
        "card_cvv",
        "cvc",
        "cvv",
        "security_code",
        "payment_credential",
        "shared_payment_token",
    ]
)
_URL_SECRET_PARAMS = frozenset(
    [
        "token",
        "key",
        "api_key",
        "apikey",
        "secret",
        "access_token",
        "auth_token",
        "password",
        "pass",
        "passwd",
        "auth",
        "jwt",
        "session",
        "id_token",
        "code",
        "client_secret",
        "app_secret",
        "hook_token",
        "refresh_token",
        "signature",
        "x_amz_signature",
        "x_amz_security_token",
        "private_key",
        "credential",
        "authorization",
        "sig",
        "x_api_key",
        "x_access_token",
        "x_auth_token",
    ]
)
_SCOPED_TOKEN_PARAM_RE = re.compile(r"(?:^|_)token(?:_[a-f0-9]{16,})?\Z")
_PERCENT_RE = re.compile(r"%[0-9A-Fa-f]{2}")


def strict_percent_decode(value: str) -> str:
    """Percent-decode `value` strictly: a malformed `%` escape or bytes that are not
    UTF-8 raise ValueError (`urllib.parse.unquote` would let them through)."""
    if "%" not in value:
        return value
    out: list[str] = []
    index = 0
    length = len(value)
    while index < length:
        char = value[index]
        if char != "%":
            out.append(char)
            index += 1
            continue
        raw = bytearray()
        while index < length and value[index] == "%":
            pair = value[index + 1 : index + 3]
            if len(pair) < 2 or not _PERCENT_RE.fullmatch("%" + pair):
                raise ValueError("URI malformed")
            raw.append(int(pair, 16))
            index += 3
        out.append(raw.decode("utf-8"))
    return "".join(out)


def _url_param_name(name: str) -> tuple[str, bool]:
    separator = _form_regex("separator")
    current = separator.sub("", name)
    for _ in range(9):
        try:
            decoded = separator.sub("", strict_percent_decode(current))
        except (ValueError, UnicodeDecodeError):
            return trim(current).lower().replace("-", "_"), "%" in current
        if decoded == current:
            return trim(current).lower().replace("-", "_"), False
        current = decoded
    return trim(current).lower().replace("-", "_"), "%" in current


def is_sensitive_url_query_param(name: str) -> bool:
    """Query parameter names that carry credentials (token, sig, api_key, …)."""
    value, unresolved = _url_param_name(name)
    return unresolved or value in _URL_SECRET_PARAMS or bool(_SCOPED_TOKEN_PARAM_RE.search(value))


def _normalize_key_name(value: str) -> str:
    separator = _form_regex("separator")
    stripped = separator.sub("", value)
    try:
        decoded = separator.sub("", strict_percent_decode(stripped))
        return decoded.lower().replace("-", "_")
    except (ValueError, UnicodeDecodeError):
        return stripped.lower().replace("-", "_")


def _is_sensitive_body_key(key: str) -> bool:
    return is_sensitive_url_query_param(key) or _normalize_key_name(key) in _BODY_SECRET_KEYS


def _has_encoded_or_invisible_key(key: str) -> bool:
    return bool(_PERCENT_RE.search(key)) or has_obfuscation(key)


def _visit_assignments(text: str, kind: str) -> Iterator[tuple[int, int, str]]:
    """Yield (start, end, maskable) for each sensitive `key=value` of the given kind."""
    if not text or (kind == "url" and "?" not in text):
        return
    if kind == "encoded" and "%" not in text and not has_obfuscation(text):
        return
    if kind == "context" and (("=" not in text and ":" not in text)
                              or _CONTEXT_WORDS.search(text) is None):
        return  # the context pattern starts with `body` or `form`, in any case

    def visit(key: str, token: str, offset: int) -> Iterator[tuple[int, int, str]]:
        if kind == "encoded" and not _has_encoded_or_invisible_key(key):
            return
        if not _is_sensitive_body_key(key):
            return
        split = split_for_mask(token)
        yield offset + split.mask_start, offset + split.mask_end, split.maskable

    if kind == "form":
        cursor = 0
        for pair in text.split("&"):
            equals = pair.find("=")
            if equals >= 0:
                yield from visit(pair[:equals], pair[equals + 1 :], cursor + equals + 1)
            cursor += len(pair) + 1
        return
    pattern = _form_regex(kind)
    key_index = 3 if kind == "context" else 2
    for match in find_matches(pattern, text):
        prefix = match.group(1) or ""
        key = match.group(key_index) or ""
        yield from visit(
            key, match.group(key_index + 1) or "", match.start() + len(prefix) + len(key) + 1
        )


def redact_assignments(text: str, kind: str) -> str:
    parts: list[str] = []
    cursor = 0
    for start, end, maskable in _visit_assignments(text, kind):
        parts.append(text[cursor:start])
        parts.append(mask_token(maskable) if kind == "url" else "***")
        cursor = end
    return "".join(parts) + text[cursor:] if parts else text


def _redact_form_line(text: str) -> str:
    if not text:
        return text
    redacted = redact_assignments(redact_assignments(text, "encoded"), "context")
    if "&" not in redacted:
        return redacted
    if _form_regex("body").search(redacted):
        return redact_assignments(redacted, "form")

    def replace(match: re.Match[str]) -> str:
        prefix, body = match.group(1), match.group(2)
        new_body = redact_assignments(body, "form")
        return match.group(0) if new_body == body else prefix + new_body

    parts: list[str] = []
    cursor = 0
    for match in find_matches(_form_regex("substring"), redacted):
        parts.append(redacted[cursor : match.start()])
        parts.append(replace(match))
        cursor = match.end()
    if parts:
        redacted = "".join(parts) + redacted[cursor:]
    return redact_assignments(redact_assignments(redacted, "encoded"), "context")


_LINE_BREAK_RE = re.compile(r"(\r\n|\r|\n)")


def redact_form_body(text: str) -> str:
    if "=" not in text:
        return text
    if _LINE_BREAK_RE.search(text):
        segments = _LINE_BREAK_RE.split(text)
        return "".join(
            segment if segment in ("\r\n", "\r", "\n") else _redact_form_line(segment)
            for segment in segments
        )
    return _redact_form_line(text)


def form_key_obfuscation_regex() -> re.Pattern[str]:
    """Characters used to obfuscate form keys: invisibles and `+`."""
    return _form_regex("obfuscation")


def is_obfuscation_char(char: str) -> bool:
    """Whether `char` is one `form_key_obfuscation_regex` matches, without compiling it:
    `+`, a code point of general category C, a Unicode space or a Hangul filler."""
    return char == "+" or (not char.isascii() and char in _INVISIBLE_EXTRA) or (
        unicodedata.category(char)[0] == "C")


def has_obfuscation(text: str) -> bool:
    """Whether `text` holds a character `is_obfuscation_char` names."""
    if text.isascii() and text.isprintable():
        return "+" in text
    return any(is_obfuscation_char(char) for char in text)
