"""Which text a secret pattern cannot match without: literals found anywhere in a match.

`_literals.required_literal` reads the literal a pattern *starts* with; most field and
vendor shapes start with a boundary group instead (`(^|[^A-Za-z0-9])(AKIA...)`,
`\\b[A-Z0-9_]*(?:KEY|TOKEN|...)`), so they ran over every text the prefilter let
through, about 0.1 ms per pattern per 1,000 characters of tool output. This module
walks the pattern's parse tree (the standard library's own parser) and finds a set of
literals such that every match contains at least one of them, as a code-search index
does: a run of literal characters in a sequence, a group's requirement, the union over
the branches of an alternation (when each branch has one), the body of a repeat that
must occur at least once. The redactor looks for those literals with `in` (C-speed,
once per text for all patterns) and runs a pattern only when one is there. A set is
only used when it is sure: anything the walk does not model gives no requirement, and
the pattern runs as before (`tests/redaction/test_pattern_requirements.py` checks
that the gate never changes what is found).

Comparison: a pattern that can match case-insensitively (`re.IGNORECASE`, or an inline
`(?i`) gets ASCII literals lower-cased, compared with the lower-cased text; the others
are compared with the text as it is.
"""

from __future__ import annotations

import importlib
import re
import zlib
from collections.abc import Iterable
from types import ModuleType
from typing import Any, Final


def _stdlib(name: str) -> ModuleType | None:
    """The regex parser `re.compile` itself uses (CPython 3.11+); elsewhere, None: no
    requirements are known and every pattern runs."""
    try:
        return importlib.import_module(name)
    except ImportError:  # pragma: no cover - another implementation
        return None


_sre: Any = _stdlib("re._constants")
_sre_parse: Any = _stdlib("re._parser")

__all__ = ["Requirement", "needs_table_source", "pattern_checksum", "pattern_requirement"]

#: any one of these must occur in the text (already lower-cased when `folded`)
Requirement = frozenset[str]

#: shorter literals say too little to be worth a look
_MIN_LITERAL: Final = 2
#: more alternatives than this cost more to look for than they save
_MAX_ALTERNATIVES: Final = 128
#: an inline flag group that turns on case-insensitivity (`(?i)`, `(?i:`, `(?ai-s:`)
_INLINE_IGNORECASE: Final = re.compile(r"\(\?[aLmsux]*i[aiLmsux]*(?:-[imsx]+)?[:)]")


def _better(a: Requirement | None, b: Requirement | None) -> Requirement | None:
    """The more selective of two requirements (longer shortest literal, fewer options)."""
    if a is None:
        return b
    if b is None:
        return a
    score_a = (min(map(len, a)), -len(a))
    score_b = (min(map(len, b)), -len(b))
    return a if score_a >= score_b else b


def _run(chars: list[str]) -> Requirement | None:
    text = "".join(chars)
    return frozenset({text}) if len(text) >= _MIN_LITERAL else None


def _sequence(items: Any, fold: bool) -> Requirement | None:
    best: Requirement | None = None
    chars: list[str] = []
    for op, arg in items:
        if op is _sre.LITERAL:
            char = chr(arg)
            if fold and not char.isascii():
                chars = []  # case folding outside ASCII is not modelled
                continue
            chars.append(char.lower() if fold else char)
            continue
        best = _better(best, _run(chars))
        chars = []
        best = _better(best, _node(op, arg, fold))
    return _better(best, _run(chars))


def _node(op: Any, arg: Any, fold: bool) -> Requirement | None:
    if op is _sre.SUBPATTERN:
        return _sequence(arg[-1], fold)
    if op in (_sre.MAX_REPEAT, _sre.MIN_REPEAT) or op is getattr(_sre, "POSSESSIVE_REPEAT", None):
        low, _high, body = arg
        return _sequence(body, fold) if low >= 1 else None
    if op is getattr(_sre, "ATOMIC_GROUP", None):
        return _sequence(arg, fold)
    if op is _sre.ASSERT:  # a lookaround's text is in the text too, consumed or not
        return _sequence(arg[1], fold)
    if op is _sre.BRANCH:
        union: set[str] = set()
        for branch in arg[1]:
            need = _sequence(branch, fold)
            if need is None:
                return None
            union |= need
        return frozenset(union) if len(union) <= _MAX_ALTERNATIVES else None
    return None  # classes, anchors, negative lookarounds, back-references: nothing sure


def pattern_requirement(pattern: str, flags: int) -> tuple[Requirement, bool] | None:
    """(literals, folded) such that every match of `pattern` compiled with `flags`
    contains one of the literals (lower-cased and to be compared with the lower-cased
    text when `folded`); None when no such set is known."""
    if _sre_parse is None:
        return None
    fold = bool(flags & re.IGNORECASE) or _INLINE_IGNORECASE.search(pattern) is not None
    try:
        tree = _sre_parse.parse(pattern, flags)
    except (re.error, AttributeError, TypeError, ValueError):  # pragma: no cover
        return None
    try:
        need = _sequence(list(tree), fold)
    except (AttributeError, TypeError, ValueError, IndexError):  # pragma: no cover
        return None
    return None if need is None else (need, fold)


def pattern_checksum(pattern: str, ignore_case: bool) -> int:
    """What ties a row of the generated table to the pattern it was computed from."""
    return zlib.crc32(f"{int(ignore_case)}:{pattern}".encode())


def needs_table_source(specs: Iterable[tuple[str, str, bool]]) -> str:
    """The source of `_pattern_needs.py` for (name, pattern, ignore_case) rows."""
    lines = ['"""What each secret pattern cannot match without, computed by',
             "`clawharness.redaction._requirements.pattern_requirement` (parsing every pattern",
             "at start-up cost about 0.3 s). Generated: `tests/redaction/",
             "test_pattern_requirements.py` prints it afresh when a pattern changed; a row",
             'whose checksum no longer matches its pattern is ignored (the pattern runs ungated)."""',
             "", "from __future__ import annotations", "", "from typing import Final", "",
             '__all__ = ["PATTERN_NEEDS"]', "",
             "#: name -> (pattern_checksum, literals, compared lower-cased)",
             "PATTERN_NEEDS: Final[dict[str, tuple[int, tuple[str, ...], bool]]] = {"]
    for name, pattern, ignore_case in specs:
        flags = re.ASCII | (re.IGNORECASE if ignore_case else 0)
        found = pattern_requirement(pattern, flags)
        if found is None:
            continue
        literals, folded = found
        lines.append(f"    {name!r}: ({pattern_checksum(pattern, ignore_case)}, "
                     f"{tuple(sorted(literals))!r}, {folded}),")
    lines.append("}")
    return "\n".join(lines) + "\n"
