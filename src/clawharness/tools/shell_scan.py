"""Top-level shell structure: heredocs, comments, quotes, stages, pipes and preambles.

`scan_top_level_chars` visits only characters outside quotes, comments, arithmetic and
heredoc bodies, which is what splitting on `;`, `&&`, `||` and `|` needs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from clawharness._text import BLANK, BLANK_CLASS, trim, trim_start
from clawharness.tools.shell_words import binary_name, parse_shell_words

__all__ = [
    "StrippedCommand",
    "has_shell_compound_command",
    "scan_top_level_chars",
    "split_top_level_pipes",
    "split_top_level_stages",
    "strip_shell_preamble",
]

_WS = BLANK


def _at(text: str, index: int) -> str:
    return text[index] if 0 <= index < len(text) else ""


@dataclass(frozen=True, slots=True)
class _Heredoc:
    value: str
    strip_tabs: bool
    operator_index: int


def _heredoc_marker(command: str, index: int) -> _Heredoc | None:
    if (
        _at(command, index) != "<"
        or _at(command, index - 1) == "<"
        or _at(command, index + 1) != "<"
        or _at(command, index + 2) == "<"
    ):
        return None
    strip_tabs = _at(command, index + 2) == "-"
    cursor = index + (3 if strip_tabs else 2)
    while _at(command, cursor) in (" ", "\t") and _at(command, cursor):
        cursor += 1
    value = ""
    quote = ""
    while cursor < len(command):
        char = command[cursor]
        if quote:
            if char == quote:
                quote = ""
                cursor += 1
                continue
            if quote == '"' and char == "\\" and cursor + 1 < len(command):
                cursor += 1
                value += command[cursor]
                cursor += 1
                continue
            value += char
            cursor += 1
            continue
        if char in "\r\n;&|<> \t":
            break
        if char in ("'", '"'):
            quote = char
            cursor += 1
            continue
        if char == "\\" and cursor + 1 < len(command):
            cursor += 1
            value += command[cursor]
            cursor += 1
            continue
        value += char
        cursor += 1
    return _Heredoc(value, strip_tabs, index) if value else None


def _heredoc_body_end(command: str, marker: _Heredoc, body_start: int) -> int | None:
    line_start = body_start
    while line_start <= len(command):
        line_end = command.find("\n", line_start)
        end = len(command) if line_end == -1 else line_end
        raw_line = command[line_start:end]
        if raw_line.endswith("\r"):
            raw_line = raw_line[:-1]
        candidate = raw_line.lstrip("\t") if marker.strip_tabs else raw_line
        if candidate == marker.value:
            return end
        if line_end == -1:
            return None
        line_start = line_end + 1
    return None


def _arithmetic_second_paren(command: str, first: int) -> int | None:
    index = first + 1
    while _at(command, index) == "\\" and _at(command, index + 1) == "\n":
        index += 2
    return index if _at(command, index) == "(" else None


def scan_top_level_chars(
    command: str,
    visit: Callable[[str, int], bool | None],
    visit_heredoc_body: Callable[[int, int, int], None] | None = None,
) -> None:
    """Call `visit(char, index)` for unquoted, uncommented, non-heredoc characters.

    `visit` returning False stops the scan.
    """
    quote = ""
    escaped = False
    at_word_start = True
    arithmetic_depth = 0
    subshell_depth = 0
    pending: list[_Heredoc] = []
    previous_dollar = False
    i = 0
    while i < len(command):
        char = command[i]
        was_dollar = previous_dollar
        previous_dollar = False
        if escaped:
            escaped = False
            if char == "\n":
                previous_dollar = was_dollar
                if visit("", i - 1) is False or visit("", i) is False:
                    return
            else:
                at_word_start = False
            i += 1
            continue
        if quote == "'":
            if char == quote:
                quote = ""
            i += 1
            continue
        if char == "\\":
            previous_dollar = was_dollar
            escaped = True
            i += 1
            continue
        if quote:
            if char == ("'" if quote == "ansi-c" else quote):
                quote = ""
            i += 1
            continue
        if char in ('"', "'"):
            quote = "ansi-c" if char == "'" and was_dollar else char
            at_word_start = False
            i += 1
            continue
        if char == "#" and at_word_start and arithmetic_depth == 0:
            newline = command.find("\n", i + 1)
            if newline == -1:
                return
            i = newline
            continue
        second_paren = (
            _arithmetic_second_paren(command, i)
            if arithmetic_depth == 0 and char == "(" and (was_dollar or at_word_start)
            else None
        )
        starts_arithmetic = second_paren is not None
        in_arithmetic = arithmetic_depth > 0 or starts_arithmetic
        if not in_arithmetic:
            heredoc = _heredoc_marker(command, i)
            if heredoc is not None:
                pending.append(heredoc)
        if char == "\n" and pending:
            body_start = i + 1
            body_end: int | None = None
            bodies: list[tuple[_Heredoc, int, int]] = []
            for marker in pending:
                body_end = _heredoc_body_end(command, marker, body_start)
                if body_end is None:
                    break
                bodies.append((marker, body_start, body_end))
                body_start = body_end + 1
            pending = []
            if body_end is not None:
                if visit_heredoc_body is not None:
                    for marker, start, end in bodies:
                        visit_heredoc_body(marker.operator_index, start, end)
                i = body_end
                continue
        if second_paren is not None:
            if visit(char, i) is False or visit(command[second_paren], second_paren) is False:
                return
        elif not in_arithmetic and visit(char, i) is False:
            return
        if char == "(" and (arithmetic_depth > 0 or starts_arithmetic):
            arithmetic_depth += 1
            i += 1
            continue
        if char == ")" and arithmetic_depth > 0:
            arithmetic_depth -= 1
            i += 1
            continue
        if in_arithmetic:
            i += 1
            continue
        if char in _WS:
            at_word_start = True
        elif char == "(":
            previous = _at(command, i - 1)
            if previous in ("$", "<", ">") and previous:
                at_word_start = True
            elif at_word_start:
                subshell_depth += 1
                at_word_start = True
        elif char == ")":
            if subshell_depth > 0:
                subshell_depth -= 1
                at_word_start = True
            else:
                at_word_start = False
        elif char in ";&|<>":
            at_word_start = True
        else:
            at_word_start = False
        previous_dollar = char == "$"
        i += 1


def _split_top_level(command: str, separator_length: Callable[[str, int], int]) -> list[str]:
    parts: list[str] = []
    state = {"segment_start": 0, "slice_start": 0}
    chunks: list[str] = []

    def visit(char: str, index: int) -> bool:
        length = separator_length(char, index)
        if length == 0:
            return True
        parts.append("".join(chunks) + command[state["slice_start"] : index])
        state["segment_start"] = index + length
        state["slice_start"] = index + length
        chunks.clear()
        return True

    def visit_body(operator_index: int, body_start: int, body_end: int) -> None:
        if operator_index < state["segment_start"]:
            chunks.append(command[state["slice_start"] : body_start])
            state["slice_start"] = body_end

    scan_top_level_chars(command, visit, visit_body)
    parts.append("".join(chunks) + command[state["slice_start"] :])
    return [trim(part) for part in parts if trim(part)]


# The shell's blanks are the original's set (`_text.BLANK`), not Python's `\s`; `\Z`
# is the end of the command (a `$` would also match before a final newline).
_B = BLANK_CLASS
_BC = BLANK_CLASS[1:-1]  # the same set, for use inside another class
_PREFIX = rf"(?:(?:time(?:{_B}+-p)?(?:{_B}+--)?|!)(?:{_B}+|(?=\()))"
_START = rf"(?:^|;|\n|(?<!>)\||(?<![<>])&(?![>&])){_B}*{_PREFIX}*"
_TOKEN_END = rf"(?=\Z|[{_BC};&|()<>])"
_NAMED_COMPOUND = (
    rf"(?:(?:for|while|until|if|case|select|coproc){_TOKEN_END}|(?:\[\[|\{{){_TOKEN_END})"
)
_COMPOUND = rf"(?:{_NAMED_COMPOUND}|\((?!\())"
_FUNCTION_BODY = rf"(?:{_NAMED_COMPOUND}|\()"
_FUNCTION_NAME = rf"[^{_BC};&|()<>]+"
_SUBST_START = rf"(?:\$\((?!\()|[<>]\(){_B}*{_PREFIX}*"
_COMPOUND_RES = tuple(
    re.compile(source, re.ASCII)
    for source in (
        f"{_START}{_COMPOUND}",
        rf"{_START}function{_B}+{_FUNCTION_NAME}(?:{_B}+{_FUNCTION_BODY}|\((?!{_B}*\)))",
        rf"{_START}(?:function{_B}+)?{_FUNCTION_NAME}{_B}*\({_B}*\){_B}*{_FUNCTION_BODY}",
        f"{_SUBST_START}{_COMPOUND}",
        rf"{_SUBST_START}function{_B}+{_FUNCTION_NAME}(?:{_B}+{_FUNCTION_BODY}|\((?!{_B}*\)))",
        rf"{_SUBST_START}(?:function{_B}+)?{_FUNCTION_NAME}{_B}*\({_B}*\){_B}*{_FUNCTION_BODY}",
    )
)


def has_shell_compound_command(command: str) -> bool:
    """True when unquoted syntax opens a loop, conditional, group, subshell or function."""
    syntax = ["\0"] * len(command)

    def visit(char: str, index: int) -> bool:
        # Escaped newlines are visited as "": they vanish from the joined syntax.
        syntax[index] = char
        return True

    scan_top_level_chars(command, visit)
    text = "".join(syntax)
    return any(pattern.search(text) for pattern in _COMPOUND_RES)


def split_top_level_stages(command: str) -> list[str]:
    """Split on top-level `;`, `&&` and `||` (compound commands stay whole)."""
    if has_shell_compound_command(command):
        trimmed = trim(command)
        return [trimmed] if trimmed else []

    def separator(char: str, index: int) -> int:
        if char == ";":
            return 1
        if char in ("&", "|") and _at(command, index + 1) == char:
            return 2
        return 0

    return _split_top_level(command, separator)


def split_top_level_pipes(command: str) -> list[str]:
    """Split on top-level single `|` (not `||` or `>|`)."""

    def separator(char: str, index: int) -> int:
        if (
            char == "|"
            and _at(command, index - 1) not in ("|", ">")
            and _at(command, index + 1) != "|"
        ):
            return 1
        return 0

    return _split_top_level(command, separator)


def _is_chdir(head: str) -> bool:
    return binary_name(_first_word(parse_shell_words(head, 2).words)) in ("cd", "pushd", "popd")


def _first_word(words: list[str]) -> str | None:
    return words[0] if words else None


@dataclass(frozen=True, slots=True)
class StrippedCommand:
    """A command without its setup preamble, and the directory it changed into."""

    command: str
    chdir_path: str | None


def strip_shell_preamble(command: str) -> StrippedCommand:
    """Drop leading `set`/`export`/`unset`/`cd` steps (up to four) from a command."""
    rest = trim(command)
    chdir_path: str | None = None
    for step in range(4):
        first: tuple[int, int, bool] | None = None

        def visit(char: str, index: int, text: str = rest) -> bool | None:
            nonlocal first
            if char == "&" and _at(text, index + 1) == "&":
                first = (index, 2, False)
                return False
            if char == "|" and _at(text, index + 1) == "|":
                first = (index, 2, True)
                return False
            if char in (";", "\n"):
                first = (index, 1, False)
                return False
            return None

        scan_top_level_chars(rest, visit)
        head = trim(rest[: first[0]] if first else rest)
        is_chdir = (not first[2] if first else step > 0) and _is_chdir(head)
        if not (
            head.startswith("set ")
            or head.startswith("export ")
            or head.startswith("unset ")
            or is_chdir
        ):
            break
        if is_chdir:
            words = parse_shell_words(head, 3).words
            if binary_name(_first_word(words)) == "popd":
                chdir_path = None
            elif binary_name(_first_word(words)) in ("cd", "pushd"):
                chdir_path = (words[1] if len(words) > 1 and words[1] else None) or chdir_path
        rest = trim_start(rest[first[0] + first[1] :]) if first else ""
        if not rest:
            break
    return StrippedCommand(trim(rest), chdir_path)
