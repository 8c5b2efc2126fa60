"""Pattern-driven secret redaction of free text.

Applies, in order: structured Authorization parameters, sensitive URL query values,
form-body pairs, then every secret pattern. A matched secret keeps its first six and
last four characters (`sk-abc…wxyz`) when it is long enough to stay unguessable,
otherwise it becomes `***`; PEM private keys keep only their armour lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from clawharness.tools._js import iter_matches, js_len, js_regex
from clawharness.tools.redact_auth_headers import redact_structured_auth_headers
from clawharness.tools.redact_forms import (
    form_key_obfuscation_regex,
    redact_assignments,
    redact_form_body,
)
from clawharness.tools.redact_mask import (
    mask_secret_value,
    mask_token,
    split_for_mask,
    split_form_aware,
)
from clawharness.tools.redact_matchers import (
    RedactMatch,
    could_match_aws_secret_access_key,
    match_aws_secret_access_keys,
    match_pem_blocks,
)
from clawharness.tools.redact_patterns import (
    AMBIGUOUS_ASSIGNMENT_NAMES,
    CHUNK_UNSAFE_NAMES,
    FIELD_PATTERNS,
    FORM_AWARE_NAMES,
    SHELL_REFERENCE_NAMES,
    VENDOR_PATTERNS,
)

__all__ = [
    "SecretPattern",
    "could_match_default_patterns",
    "default_patterns",
    "mask_token",
    "redact_text",
    "tool_payload_patterns",
]

_CHUNK_THRESHOLD = 32768
_CHUNK_SIZE = 16384
_BASE64_GUARD = "(?<!;base64,[A-Za-z0-9+/=]*)"
_BASE64_BOUNDARY = "(^|[^A-Za-z0-9])" + _BASE64_GUARD
_IDENTIFIER_BOUNDARY = "(^|[^A-Za-z0-9_])"
_BASE64_RUN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")


@dataclass(frozen=True, slots=True)
class SecretPattern:
    """One compiled secret pattern (a regex, or a scanner for PEM/AWS) and its policy."""

    name: str
    regex: re.Pattern[str] | None = None
    scanner: Callable[[str], Iterator[RedactMatch]] | None = None
    base64_guard: bool = False
    shell_reference: bool = False
    source_assignment: bool = False
    form_aware: bool = False
    chunk_unsafe: bool = False


def _compile(name: str, source: str, flags: str) -> SecretPattern:
    guard = _BASE64_GUARD in source
    return SecretPattern(
        name=name,
        regex=js_regex(source.replace(_BASE64_GUARD, ""), flags),
        base64_guard=guard,
        shell_reference=name in SHELL_REFERENCE_NAMES,
        source_assignment=name in AMBIGUOUS_ASSIGNMENT_NAMES,
        form_aware=name in FORM_AWARE_NAMES,
        chunk_unsafe=(
            name in CHUNK_UNSAFE_NAMES
            or source.startswith(_BASE64_BOUNDARY)
            or source.startswith(_IDENTIFIER_BOUNDARY)
            or source.startswith(r"\bbot(\d{6,}:")
            or source.startswith(r"\b(\d{6,}:")
        ),
    )


@cache
def default_patterns() -> tuple[SecretPattern, ...]:
    """Every built-in pattern, field shapes first, AWS keys last."""
    compiled: list[SecretPattern] = []
    for name, source, flags in FIELD_PATTERNS:
        if name == "PEM_BLOCK":
            compiled.append(SecretPattern(name=name, scanner=match_pem_blocks))
        else:
            compiled.append(_compile(name, source, flags))
    for index, (source, flags) in enumerate(VENDOR_PATTERNS):
        compiled.append(_compile(f"VENDOR_{index}", source, flags))
    compiled.append(
        SecretPattern(name="AWS_SECRET_ACCESS_KEY", scanner=match_aws_secret_access_keys)
    )
    return tuple(compiled)


@cache
def tool_payload_patterns() -> tuple[SecretPattern, ...]:
    """Patterns for model-visible tool output: ambiguous assignments are left alone."""
    return tuple(p for p in default_patterns() if p.name not in AMBIGUOUS_ASSIGNMENT_NAMES)


# -- pattern application --------------------------------------------------------------

_ENV_KEY_RE = js_regex(r"\b([A-Z_][A-Z0-9_]*)\b\s*[=:]")
_BARE_REF_RE = re.compile(r"\$([A-Z_][A-Z0-9_]*)\Z")
_BRACED_REF_RE = re.compile(r"\$\{([A-Z_][A-Z0-9_]*)(?::[-=?+])?\}\Z")
_KEY_NAME_RE = re.compile(r"[A-Z_][A-Z0-9_]*\Z")
_EMPTY_EXPANSION_TAIL_RE = re.compile(r"[-=?+]\}\Z")


def is_shell_reference_to_key(key: str, value: str) -> bool:
    """True for `KEY=$KEY` / `KEY=${KEY}`: a reference, not a secret."""
    if not _KEY_NAME_RE.match(key):
        return False
    bare = _BARE_REF_RE.match(value)
    if bare:
        return bare.group(1) == key
    braced = _BRACED_REF_RE.match(value)
    return bool(braced) and braced is not None and braced.group(1) == key


def _preserve_shell_reference(match: str, token: str) -> bool:
    found = _ENV_KEY_RE.search(match)
    key = found.group(1) if found else None
    return is_shell_reference_to_key(key, token) if key else False


def _redact_pem_block(block: str) -> str:
    lines = [line for line in re.split(r"\r?\n", block) if line]
    if len(lines) < 2:
        return "***"
    return f"{lines[0]}\n…redacted…\n{lines[-1]}"


def _redact_one(found: RedactMatch, pattern: SecretPattern, token_start: int | None) -> str:
    whole = found.match
    if "PRIVATE KEY-----" in whole:
        return _redact_pem_block(whole)
    selected = whole
    for group in found.groups:
        if group:
            selected = group
    if selected == "***":
        return whole
    if selected == whole:
        start = 0
    elif token_start is not None:
        start = token_start
    else:
        start = whole.rfind(selected)
    if start < 0:
        return whole
    token = selected
    secret, suffix = split_form_aware(token) if pattern.form_aware else (token, "")
    if split_for_mask(secret).maskable == "***":
        return whole
    if pattern.shell_reference and (
        _preserve_shell_reference(whole, token) or _EMPTY_EXPANSION_TAIL_RE.match(token)
    ):
        return whole
    if pattern.shell_reference:
        masked = mask_token(token)
    else:
        masked = mask_secret_value(secret, hinted=True) + suffix
    return whole[:start] + masked + whole[start + len(token) :]


def _base64_guard_ok(text: str, match: re.Match[str]) -> bool:
    """Emulates `(?<!;base64,[A-Za-z0-9+/=]*)` right after the boundary group."""
    position = match.start() + len(match.group(1) or "")
    run = position
    while run > 0 and text[run - 1] in _BASE64_RUN_CHARS:
        run -= 1
    return text[max(0, run - 8) : run].lower() != ";base64,"


def _apply_regex(text: str, pattern: SecretPattern) -> str:
    regex = pattern.regex
    assert regex is not None
    accept = (lambda m: _base64_guard_ok(text, m)) if pattern.base64_guard else None
    parts: list[str] = []
    cursor = 0
    for match in iter_matches(regex, text, accept):
        groups = tuple(g or "" for g in match.groups())
        last = -1
        for index, group in enumerate(groups):
            if group:
                last = index
        token_start = match.start(last + 1) - match.start() if last >= 0 else None
        found = RedactMatch(match.group(0), groups, match.start())
        parts.append(text[cursor : match.start()])
        parts.append(_redact_one(found, pattern, token_start))
        cursor = match.end()
    return "".join(parts) + text[cursor:] if parts else text


def _apply_pattern(text: str, pattern: SecretPattern) -> str:
    if pattern.scanner is not None:
        parts: list[str] = []
        end = 0
        for found in pattern.scanner(text):
            parts.append(text[end : found.offset])
            parts.append(_redact_one(found, pattern, None))
            end = found.offset + len(found.match)
        return "".join(parts) + text[end:] if parts else text
    if pattern.chunk_unsafe or js_len(text) <= _CHUNK_THRESHOLD:
        return _apply_regex(text, pattern)
    # Long inputs are redacted chunk by chunk, as the original bounds regex work.
    output: str | None = None
    for index in range(0, len(text), _CHUNK_SIZE):
        chunk = text[index : index + _CHUNK_SIZE]
        replaced = _apply_regex(chunk, pattern)
        if output is not None:
            output += replaced
        elif replaced != chunk:
            output = text[:index] + replaced
    return output if output is not None else text


def redact_text(text: str, patterns: Sequence[SecretPattern]) -> str:
    """Run the full redaction pipeline over `text` with the given patterns."""
    result = redact_structured_auth_headers(text, "***")
    result = redact_form_body(redact_assignments(result, "url"))
    for pattern in patterns:
        result = _apply_pattern(result, pattern)
    return result


# -- cheap prefilter ------------------------------------------------------------------

_INVISIBLE = r"\p{C}\u00A0\u1680\u2000-\u200A\u202F\u205F\u3000\u115F\u1160\u3164\uFFA0"
_PREFILTER_SOURCES = (
    r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|AUTH|COOKIE|SIGNATURE|CREDENTIAL|CARD|CVC|CVV|PAYMENT"
    r"|PRIVATE KEY",
    r"security[-_]?code|\bpass\s*[=:]|\bpassphrase\s*[=:]|_(?:password|pass|passphrase|passwd)"
    r"\s*[=:]|jwt\s*[=:]|session=|code=|\bsig\s*=",
    r"\bBearer\s+",
    r":\/\/[^\/\s:@]*:[^\s@]+@",
    r"sk-|gh[opsur]_|github_pat_|glpat-|gloas-|gldt-|glcbt-|glptt-|glft-|glimt-|glagent-|glwt-"
    r"|glsoat-|glffct-|glrt-|glrtr-|GR1348941|_gitlab_session=|xox[baprs]-|xapp-"
    r"|hooks\.slack\.com|discord|gsk_|AIza|ya29\.|1\/\/0|eyJ|pplx-|fal_|fc-|bb_live_|gAAAA"
    r"|[sr]k_(?:live|test)_|SG\.|npm_|pypi-|do[opr]_v1_|dp\.(?:ct|pt|sa|st|scim|audit)\.|dckr_"
    r"|bkua_|CCIPAT_|sbp_|dapi[0-9a-f]|dd[pw]_|glsa_|nfp_|CFPAT-|ATCTT3|ATATT|ATBB|BBDC-|HRKU-"
    r"|pat-(?:eu|na)1-|apify_api_|FlyV1|fio-u-|tvly-|exa_|syt_|retaindb_|mem0_|brv_|xai-|fw-"
    r"|fw_|fpk_",
    r"(?:^|[^A-Za-z0-9_])(?:am_|sk_)",
    r"A[KS]IA[A-Z0-9]|AKID|LTAI|hf_|api_org_|r8_",
    r"\bbot\d{6,}:|\b\d{6,}:[A-Za-z0-9_-]{20,}",
    r"%[0-9A-Fa-f]{2}[" + _INVISIBLE + r"+A-Za-z0-9_%.-]*=",
)


@cache
def _prefilter() -> re.Pattern[str]:
    return js_regex("(?:" + "|".join(_PREFILTER_SOURCES) + ")", "iu")


def _is_key_char(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char in "_%.-")


def _obfuscated_key_before_equals(text: str) -> bool:
    """The prefilter's lookbehind alternatives: `=` after a key obfuscated with `+`/invisibles."""
    obfuscation = form_key_obfuscation_regex()
    for index, char in enumerate(text):
        if char != "=":
            continue
        cursor = index
        seen_key_after_obfuscation = False
        trailing_obfuscation = 0
        in_trailing = True
        while cursor > 0:
            previous = text[cursor - 1]
            if obfuscation.fullmatch(previous):
                if in_trailing:
                    trailing_obfuscation += 1
                elif seen_key_after_obfuscation:
                    return True
            elif _is_key_char(previous):
                if in_trailing and trailing_obfuscation > 0:
                    return True
                in_trailing = False
                seen_key_after_obfuscation = True
            else:
                break
            cursor -= 1
    return False


def could_match_default_patterns(text: str) -> bool:
    """Cheap test: could any built-in pattern match? (False means nothing to redact.)"""
    return (
        _prefilter().search(text) is not None
        or _obfuscated_key_before_equals(text)
        or could_match_aws_secret_access_key(text)
    )
