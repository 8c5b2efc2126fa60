"""The text a secret pattern cannot match without: a cheap `in` test before the regex.

Python's `re` loses its fast literal-prefix search under `re.IGNORECASE`, so a vendor
shape such as `(hf_[A-Za-z0-9]{10,})` costs a full scan of the text even when `hf_`
appears nowhere in it. `required_literal` reads the literal a pattern must start with
(`hf_`), when it can prove every match starts with it: the pattern has no alternation
at its top level (or in its leading group), and the literal's last character is not
made optional by a quantifier. The redactor then runs the regex only when the literal
occurs in the text, compared case-insensitively, which never changes what is found.
"""

from __future__ import annotations

from typing import Final

__all__ = ["required_literal"]

_META: Final = frozenset("\\^$.|?*+()[]{}")
_ESCAPED_LITERALS: Final = frozenset(".-_/:")
_LITERAL_EXTRA: Final = frozenset("_-:/ .")
_QUANTIFIERS: Final = frozenset("?*{")


def _alternates_near_the_top(pattern: str) -> bool:
    """A `|` outside any group or inside the first level of groups."""
    depth = 0
    escaped = in_class = False
    for char in pattern:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
        elif char == "|" and depth <= 1:
            return True
    return False


def required_literal(pattern: str | None) -> str | None:
    """The literal (2+ characters) every match of `pattern` starts with, else None."""
    if pattern is None or _alternates_near_the_top(pattern):
        return None
    body = pattern[1:] if pattern.startswith("(") and not pattern.startswith("(?") else pattern
    literal: list[str] = []
    index = 0
    while index < len(body):
        char = body[index]
        if char == "\\" and index + 1 < len(body) and body[index + 1] in _ESCAPED_LITERALS:
            literal.append(body[index + 1])
            index += 2
            continue
        if char in _META:
            if char in _QUANTIFIERS and literal:
                literal.pop()  # `ab?`: the b is optional
            break
        if not (char.isascii() and (char.isalnum() or char in _LITERAL_EXTRA)):
            break
        literal.append(char)
        index += 1
    text = "".join(literal)
    return text if len(text) >= 2 else None
