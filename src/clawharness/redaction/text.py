"""Pattern-driven secret redaction of free text.

Applies, in order: structured Authorization parameters, sensitive URL query values,
form-body pairs, then every secret pattern of `patterns`. A matched secret keeps its
first six and last four characters (`sk-abc…wxyz`) when it is long enough to stay
unguessable, otherwise it becomes `***`; PEM private keys keep only their armour lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Final

from clawharness._utf16 import utf16_len
from clawharness.redaction._classes import BLANK, invisible_members
from clawharness.redaction._literals import required_literal
from clawharness.redaction._matching import find_matches
from clawharness.redaction._pattern_needs import PATTERN_NEEDS
from clawharness.redaction._requirements import (
    Requirement,
    pattern_checksum,
    pattern_requirement,
)
from clawharness.redaction.auth_headers import redact_structured_auth_headers
from clawharness.redaction.forms import (
    is_obfuscation_char,
    redact_assignments,
    redact_form_body,
)
from clawharness.redaction.mask import (
    mask_secret_value,
    mask_token,
    split_for_mask,
    split_form_aware,
)
from clawharness.redaction.patterns import FIELD_PATTERNS, VENDOR_PATTERNS, SecretPatternSpec
from clawharness.redaction.scanners import (
    RedactMatch,
    could_match_aws_secret_access_key,
    match_aws_secret_access_keys,
    match_pem_blocks,
)

__all__ = [
    "SecretPattern",
    "could_match_default_patterns",
    "default_patterns",
    "is_shell_reference_to_key",
    "mask_token",
    "redact_text",
    "tool_payload_patterns",
]

#: texts longer than this (UTF-16 units) are redacted chunk by chunk ...
_CHUNK_THRESHOLD: Final = 32768
#: ... of this many characters, except by `whole_text_only` patterns
_CHUNK_SIZE: Final = 16384
_BASE64_RUN_CHARS: Final = frozenset(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/="
)
_SCANNERS: Final[dict[str, Callable[[str], Iterator[RedactMatch]]]] = {
    "PEM_BLOCK": match_pem_blocks,
    "AWS_SECRET_ACCESS_KEY": match_aws_secret_access_keys,
}


@cache
def _compiled(source: str, flags: int) -> re.Pattern[str]:
    return re.compile(source, flags)


@dataclass(frozen=True, slots=True)
class SecretPattern:
    """One secret shape ready to apply: its spec and its pattern (compiled on first use:
    a text whose literal test rules a shape out never needs it) or scanner."""

    spec: SecretPatternSpec
    scanner: Callable[[str], Iterator[RedactMatch]] | None = None
    #: lower-cased text every match starts with (`_literals`), None when there is none
    literal: str | None = None
    #: one of these occurs in every match (`_requirements`), None when none is known ...
    needs: Requirement | None = None
    #: ... compared lower-cased with the lower-cased text
    needs_folded: bool = False

    @property
    def name(self) -> str:
        return self.spec.name

    @property
    def regex(self) -> re.Pattern[str] | None:
        """The compiled pattern (None for a scanner's shape)."""
        source = self.spec.pattern
        if source is None:
            return None
        return _compiled(source, re.ASCII | (re.IGNORECASE if self.spec.ignore_case else 0))


#: what the scanners cannot match without (a PEM block opens with `-----BEGIN`)
_SCANNER_NEEDS: Final[dict[str, Requirement]] = {"PEM_BLOCK": frozenset({"-----begin"})}


def _compile(spec: SecretPatternSpec) -> SecretPattern:
    if spec.pattern is None:
        needs = _SCANNER_NEEDS.get(spec.name)
        return SecretPattern(spec, scanner=_SCANNERS[spec.name], needs=needs,
                             needs_folded=needs is not None)
    literal = required_literal(spec.pattern)
    # read from the generated table: parsing 120 patterns at start-up costs ~0.3 s
    known = PATTERN_NEEDS.get(spec.name)
    if known is not None and known[0] != pattern_checksum(spec.pattern, spec.ignore_case):
        known = None  # the shape changed since the table was made: run it ungated
    return SecretPattern(spec,
                         literal=None if literal is None else (
                             literal.lower() if spec.ignore_case else literal),
                         needs=None if known is None else frozenset(known[1]),
                         needs_folded=known is not None and known[2])


@cache
def default_patterns() -> tuple[SecretPattern, ...]:
    """Every built-in secret shape, in the order they are applied."""
    return tuple(_compile(spec) for spec in (*FIELD_PATTERNS, *VENDOR_PATTERNS))


@cache
def tool_payload_patterns() -> tuple[SecretPattern, ...]:
    """The shapes for model-visible tool output: ambiguous assignments are left alone."""
    return tuple(p for p in default_patterns() if p.spec.model_visible)


# -- applying one pattern ----------------------------------------------------------------

_ENV_KEY_RE: Final = re.compile(rf"\b([A-Z_][A-Z0-9_]*)\b{BLANK}*[=:]", re.ASCII)
_BARE_REF_RE: Final = re.compile(r"\$([A-Z_][A-Z0-9_]*)\Z")
_BRACED_REF_RE: Final = re.compile(r"\$\{([A-Z_][A-Z0-9_]*)(?::[-=?+])?\}\Z")
_KEY_NAME_RE: Final = re.compile(r"[A-Z_][A-Z0-9_]*\Z")
_EMPTY_EXPANSION_TAIL_RE: Final = re.compile(r"[-=?+]\}\Z")


def is_shell_reference_to_key(key: str, value: str) -> bool:
    """True for `KEY=$KEY` / `KEY=${KEY}`: a reference, not a secret."""
    if not _KEY_NAME_RE.match(key):
        return False
    bare = _BARE_REF_RE.match(value)
    if bare:
        return bare.group(1) == key
    braced = _BRACED_REF_RE.match(value)
    return braced is not None and braced.group(1) == key


def _preserve_shell_reference(match: str, token: str) -> bool:
    found = _ENV_KEY_RE.search(match)
    key = found.group(1) if found else None
    return is_shell_reference_to_key(key, token) if key else False


def _redact_pem_block(block: str) -> str:
    lines = [line for line in re.split(r"\r?\n", block) if line]
    if len(lines) < 2:
        return "***"
    return f"{lines[0]}\n…redacted…\n{lines[-1]}"


def _redact_one(found: RedactMatch, spec: SecretPatternSpec, token_start: int | None) -> str:
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
    secret, suffix = split_form_aware(token) if spec.value_may_run_into_form_pair else (token, "")
    if split_for_mask(secret).maskable == "***":
        return whole
    if spec.keeps_shell_references and (
        _preserve_shell_reference(whole, token) or _EMPTY_EXPANSION_TAIL_RE.match(token)
    ):
        return whole
    if spec.keeps_shell_references:
        masked = mask_token(token)
    else:
        masked = mask_secret_value(secret, hinted=True) + suffix
    return whole[:start] + masked + whole[start + len(token) :]


def _not_after_base64_data(text: str, match: re.Match[str]) -> bool:
    """False when the token (after the boundary group) continues a `;base64,` run."""
    position = match.start() + len(match.group(1) or "")
    run = position
    while run > 0 and text[run - 1] in _BASE64_RUN_CHARS:
        run -= 1
    return text[max(0, run - 8) : run].lower() != ";base64,"


def _apply_regex(text: str, pattern: SecretPattern) -> str:
    regex = pattern.regex
    assert regex is not None
    accept = (
        (lambda m: _not_after_base64_data(text, m)) if pattern.spec.skips_base64_data else None
    )
    parts: list[str] = []
    cursor = 0
    for match in find_matches(regex, text, accept):
        groups = tuple(g or "" for g in match.groups())
        last = -1
        for index, group in enumerate(groups):
            if group:
                last = index
        token_start = match.start(last + 1) - match.start() if last >= 0 else None
        found = RedactMatch(match.group(0), groups, match.start())
        parts.append(text[cursor : match.start()])
        parts.append(_redact_one(found, pattern.spec, token_start))
        cursor = match.end()
    return "".join(parts) + text[cursor:] if parts else text


def _apply_pattern(text: str, pattern: SecretPattern) -> str:
    if pattern.scanner is not None:
        parts: list[str] = []
        end = 0
        for found in pattern.scanner(text):
            parts.append(text[end : found.offset])
            parts.append(_redact_one(found, pattern.spec, None))
            end = found.offset + len(found.match)
        return "".join(parts) + text[end:] if parts else text
    if pattern.spec.whole_text_only or utf16_len(text) <= _CHUNK_THRESHOLD:
        return _apply_regex(text, pattern)
    output: str | None = None
    for index in range(0, len(text), _CHUNK_SIZE):
        chunk = text[index : index + _CHUNK_SIZE]
        replaced = _apply_regex(chunk, pattern)
        if output is not None:
            output += replaced
        elif replaced != chunk:
            output = text[:index] + replaced
    return output if output is not None else text


class _Presence:
    """Which literals occur in the text being redacted, each looked for once (`in`, a
    C-speed search) and remembered until the text changes."""

    __slots__ = ("found", "lowered", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.lowered: str | None = None
        self.found: dict[tuple[str, bool], bool] = {}

    def reset(self, text: str) -> None:
        if text is not self.text:
            self.text, self.lowered = text, None
            self.found.clear()

    def has(self, literal: str, folded: bool) -> bool:
        key = (literal, folded)
        seen = self.found.get(key)
        if seen is None:
            if folded:
                if self.lowered is None:
                    self.lowered = self.text.lower()
                seen = literal in self.lowered
            else:
                seen = literal in self.text
            self.found[key] = seen
        return seen

    def may_match(self, pattern: SecretPattern) -> bool:
        literal = pattern.literal
        if literal is not None and not self.has(literal, pattern.spec.ignore_case):
            return False
        needs = pattern.needs
        return needs is None or any(self.has(n, pattern.needs_folded) for n in needs)


def redact_text(text: str, patterns: Sequence[SecretPattern]) -> str:
    """Run the full redaction pipeline over `text` with the given patterns."""
    result = redact_structured_auth_headers(text, "***")
    result = redact_form_body(redact_assignments(result, "url"))
    # a pattern runs only where the literals it needs occur (`_literals`, `_requirements`);
    # what was found is remembered until a pattern changes the text
    presence = _Presence(result)
    for pattern in patterns:
        presence.reset(result)
        if presence.may_match(pattern):
            result = _apply_pattern(result, pattern)
    return result


# -- the cheap prefilter -------------------------------------------------------------------

_TELEGRAM_PART: Final = r"\bbot\d{6,}:|\b\d{6,}:[A-Za-z0-9_-]{20,}"
_PREFILTER_PARTS: Final = (
    r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|AUTH|COOKIE|SIGNATURE|CREDENTIAL|CARD|CVC|CVV|PAYMENT"
    r"|PRIVATE KEY",
    rf"security[-_]?code|\bpass{BLANK}*[=:]|\bpassphrase{BLANK}*[=:]"
    rf"|_(?:password|pass|passphrase|passwd){BLANK}*[=:]|jwt{BLANK}*[=:]|session=|code="
    rf"|\bsig{BLANK}*=",
    rf"\bBearer{BLANK}+",
    r"://[^/" + BLANK[1:-1] + r":@]*:[^" + BLANK[1:-1] + r"@]+@",
    r"sk-|gh[opsur]_|github_pat_|glpat-|gloas-|gldt-|glcbt-|glptt-|glft-|glimt-|glagent-|glwt-"
    r"|glsoat-|glffct-|glrt-|glrtr-|GR1348941|_gitlab_session=|xox[baprs]-|xapp-"
    r"|hooks\.slack\.com|discord|gsk_|AIza|ya29\.|1//0|eyJ|pplx-|fal_|fc-|bb_live_|gAAAA"
    r"|[sr]k_(?:live|test)_|SG\.|npm_|pypi-|do[opr]_v1_|dp\.(?:ct|pt|sa|st|scim|audit)\.|dckr_"
    r"|bkua_|CCIPAT_|sbp_|dapi[0-9a-f]|dd[pw]_|glsa_|nfp_|CFPAT-|ATCTT3|ATATT|ATBB|BBDC-|HRKU-"
    r"|pat-(?:eu|na)1-|apify_api_|FlyV1|fio-u-|tvly-|exa_|syt_|retaindb_|mem0_|brv_|xai-|fw-"
    r"|fw_|fpk_",
    r"(?:^|[^A-Za-z0-9_])(?:am_|sk_)",
    r"A[KS]IA[A-Z0-9]|AKID|LTAI|hf_|api_org_|r8_",
    _TELEGRAM_PART,
)

#: requirements the parse-tree walk does not find (it takes no single characters): every
#: match of the Telegram token part has a `:` after its digits, in both branches
_HAND_NEEDS: Final[dict[str, Requirement]] = {_TELEGRAM_PART: frozenset({":"})}


@cache
def _prefilter() -> tuple[tuple[str, Requirement | None], ...]:
    """The prefilter's parts, each with the literals it cannot match without.

    As one alternation of ~100 case-insensitive branches, Python's `re` tried every
    branch at every position (about 1.5 ms per 1,000 characters, the whole cost of
    redacting a text with nothing in it); as parts, each is searched only where one of
    its literals occurs (an `in` test), which gives the same answer. Each part is
    compiled the first time a text gets that far."""
    parts = []
    for source in _PREFILTER_PARTS:
        found = pattern_requirement(source, re.ASCII | re.IGNORECASE)
        parts.append((source, _HAND_NEEDS.get(source) if found is None else found[0]))
    return tuple(parts)


#: texts up to this long look the parts' literals up by their first two characters
_INDEXED_TEXT_CHARS: Final = 128
#: (an enum `|` is a Python call: done once)
_PREFILTER_FLAGS: Final = re.ASCII | re.IGNORECASE


@cache
def _prefilter_index() -> tuple[dict[str, tuple[tuple[int, str], ...]], frozenset[str],
                                tuple[tuple[int, str], ...], tuple[int, ...]]:
    """The prefilter's literals for a short text: (two-character start -> (part, literal)
    pairs, those starts, the one-character literals as (part, literal), the parts
    without a requirement)."""
    by_start: dict[str, list[tuple[int, str]]] = {}
    single: list[tuple[int, str]] = []
    unconditional: list[int] = []
    for index, (_source, needs) in enumerate(_prefilter()):
        if needs is None:
            unconditional.append(index)
            continue
        for need in sorted(needs):
            if len(need) < 2:
                single.append((index, need))
            else:
                by_start.setdefault(need[:2], []).append((index, need))
    return ({k: tuple(v) for k, v in by_start.items()}, frozenset(by_start), tuple(single),
            tuple(unconditional))


@cache
def _any_literal() -> re.Pattern[str]:
    """Any literal of any part of the prefilter (they are lower-case): a short text with
    none of them hits no part, which this tells without cutting it into pieces (a new
    string each, about half the cost of the rest)."""
    by_start, _starts, single, _unconditional = _prefilter_index()
    literals = {need for pairs in by_start.values() for _, need in pairs}
    literals.update(need for _, need in single)
    # a literal holding another one is found where that one is: only the others are
    # looked for, as a trie (one branch per first character, not one per literal: as a
    # flat alternation of ~100 literals `re` tried each at every position, ~5 us for a
    # ten-character text)
    least = [need for need in literals
             if not any(other != need and other in need for other in literals)]
    return re.compile(_trie_source(least))


#: a trie of literals: each character's node, by the character
_Trie = dict[str, "_Trie"]


def _trie_source(literals: Sequence[str]) -> str:
    """A regex source matching where any of `literals` starts (none a prefix of another)."""
    tree: _Trie = {}
    for literal in literals:
        node = tree
        for char in literal:
            node = node.setdefault(char, {})

    def source(node: _Trie) -> str:
        branches = [re.escape(char) + source(below) for char, below in sorted(node.items())]
        if len(branches) <= 1:
            return "".join(branches)
        return "(?:" + "|".join(branches) + ")"

    return source(tree)


def _prefilter_matches(text: str) -> bool:
    lowered = text.lower()
    parts = _prefilter()
    flags = _PREFILTER_FLAGS
    if len(lowered) > _INDEXED_TEXT_CHARS:
        for source, needs in parts:
            if needs is not None and not any(n in lowered for n in needs):
                continue
            if _compiled(source, flags).search(text) is not None:
                return True
        return False
    # a short text is cut into its two-character pieces once; only the literals starting
    # with one of them are looked for (about 100 `in` tests otherwise): the parts with
    # one of their literals in the text are the same, and so is the answer
    by_start, starts, single, unconditional = _prefilter_index()
    if not unconditional and _any_literal().search(lowered) is None:
        return False  # (no literal of any part in it: no part is hit; most short texts)
    hit = set(unconditional)
    for start in {lowered[i:i + 2] for i in range(len(lowered) - 1)} & starts:
        for index, need in by_start[start]:
            if need in lowered:
                hit.add(index)
    for index, need in single:
        if need in lowered:
            hit.add(index)
    return any(_compiled(parts[index][0], flags).search(text) is not None
               for index in sorted(hit))


@cache
def _obfuscated_key_prefilter() -> re.Pattern[str]:
    # Built on first use, and only for a text with a `%`: the invisible-character class
    # spans the whole of Unicode
    return re.compile(r"%[0-9A-Fa-f]{2}[" + invisible_members() + r"+A-Za-z0-9_%.-]*=",
                      re.ASCII | re.IGNORECASE)


def _is_key_char(char: str) -> bool:
    return char.isascii() and (char.isalnum() or char in "_%.-")


def _obfuscated_key_before_equals(text: str) -> bool:
    """An `=` after a key name obfuscated with `+` or invisible characters."""
    index = text.find("=")
    while index >= 0:
        cursor = index
        index = text.find("=", index + 1)
        seen_key_after_obfuscation = False
        trailing_obfuscation = 0
        in_trailing = True
        while cursor > 0:
            previous = text[cursor - 1]
            if is_obfuscation_char(previous):
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
        _prefilter_matches(text)
        or ("%" in text and _obfuscated_key_prefilter().search(text) is not None)
        or _obfuscated_key_before_equals(text)
        or could_match_aws_secret_access_key(text)
    )
