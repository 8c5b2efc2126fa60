"""Lightweight shell word parsing for command display summaries.

Handles quoting, redirects, `env`/assignment prefixes and `sh -c` wrappers well enough
to label a command for a person. It does not validate shell syntax and never decides
what a command may do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from clawharness._text import BLANK, trim

__all__ = [
    "ShellWords",
    "binary_name",
    "first_positional",
    "option_value",
    "parse_shell_options",
    "parse_shell_words",
    "positional_args",
    "strip_outer_quotes",
    "trim_leading_env",
    "unwrap_shell_wrapper",
]

_WS = BLANK
_REDIRECT_FD_RE = re.compile(r"(?:\d+|\{[A-Za-z_][A-Za-z0-9_]*\})\Z", re.ASCII)
_ASSIGNMENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def _at(text: str, index: int) -> str:
    return text[index] if 0 <= index < len(text) else ""


def strip_outer_quotes(value: str | None) -> str | None:
    """Remove one pair of matching outer quotes from a display token."""
    if not value:
        return value
    trimmed = trim(value)
    if len(trimmed) >= 2 and trimmed[0] == trimmed[-1] and trimmed[0] in ("'", '"'):
        return trim(trimmed[1:-1])
    return trimmed


@dataclass(slots=True)
class ShellWords:
    """Words of a command (redirect operands dropped) and what parsing noticed."""

    words: list[str] = field(default_factory=list)
    unsupported: bool = False
    here_input: str | None = None


def parse_shell_words(source: str | None, max_words: int = 48) -> ShellWords:
    """Split a command into words, honouring quotes and skipping redirect targets."""
    text = source or ""
    result = ShellWords()
    current = ""
    quote: str | None = None
    previous_dollar = False
    started = False
    protected = False
    redirect_operand = False

    def flush() -> None:
        nonlocal current, started, protected, redirect_operand
        if started:
            if not redirect_operand:
                result.words.append(current)
            redirect_operand = False
        current = ""
        started = False
        protected = False

    index = 0
    length = len(text)
    while index < length:
        char = text[index]
        nxt = _at(text, index + 1)
        was_dollar = previous_dollar
        previous_dollar = False
        if quote == "'":
            if char == quote:
                quote = None
            else:
                current += char
            index += 1
            continue
        if char == "\\" and (not quote or quote == "ansi-c" or (nxt != "" and nxt in '$`"\\\n')):
            if not nxt:
                result.unsupported = True
                break
            index += 1
            if nxt != "\n":
                current += nxt
                started = protected = True
            else:
                previous_dollar = was_dollar
            index += 1
            continue
        if quote:
            if char == ("'" if quote == "ansi-c" else quote):
                quote = None
            else:
                current += char
            index += 1
            continue
        if char in ('"', "'"):
            quote = "ansi-c" if char == "'" and was_dollar else char
            started = protected = True
            index += 1
            continue
        if char in _WS:
            flush()
            if len(result.words) >= max_words:
                return result
            index += 1
            continue
        if char == "#" and not started:
            break
        if char in ("<", ">") or (char == "&" and nxt == ">"):
            if nxt == "(":
                result.unsupported = True
            if not protected and _REDIRECT_FD_RE.match(current):
                current = ""
                started = False
            flush()
            operator = char
            if char == "&":
                operator += nxt
                index += 1
                if _at(text, index + 1) == ">":
                    operator += ">"
                    index += 1
            elif (
                nxt == char
                or nxt == "&"
                or (char == "<" and nxt == ">")
                or (char == ">" and nxt == "|")
            ):
                operator += nxt
                index += 1
                if operator == "<<" and _at(text, index + 1) in ("-", "<") and _at(text, index + 1):
                    index += 1
                    operator += text[index]
            if operator.startswith("<<"):
                result.here_input = "here-string" if operator == "<<<" else "heredoc"
            redirect_operand = True
            index += 1
            continue
        current += char
        started = True
        previous_dollar = char == "$"
        index += 1
    flush()
    result.unsupported = result.unsupported or quote is not None or redirect_operand
    return result


def binary_name(token: str | None) -> str | None:
    """Lower-cased basename of a command token."""
    if not token:
        return None
    stripped = strip_outer_quotes(token)
    cleaned = stripped if stripped is not None else token
    return trim(cleaned.split("/")[-1]).lower()


@dataclass(slots=True)
class ParsedOptions:
    """Positional words and first-seen option values."""

    positional: list[str]
    options: dict[str, str | None]


def parse_shell_options(
    words: list[str], start: int = 1, options_with_value: list[str] | tuple[str, ...] = ()
) -> ParsedOptions:
    """Separate options (and the values they take) from positional words."""
    positional: list[str] = []
    options: dict[str, str | None] = {}
    takes_value = set(options_with_value)

    def record(name: str, value: str | None = None) -> None:
        if name not in options:
            options[name] = value

    index = start
    while index < len(words):
        token = words[index]
        if token == "--":
            positional.extend(words[index + 1 :])
            break
        if token in takes_value:
            index += 1
            record(token, words[index] if index < len(words) else None)
        elif token.startswith("--"):
            equals = token.find("=")
            record(
                token if equals < 0 else token[:equals], None if equals < 0 else token[equals + 1 :]
            )
        elif token.startswith("-") and len(token) > 1:
            for offset in range(1, len(token)):
                name = f"-{token[offset]}"
                if name in takes_value:
                    inline = token[offset + 1 :]
                    if inline:
                        record(name, inline)
                    else:
                        index += 1
                        record(name, words[index] if index < len(words) else None)
                    break
                record(name)
        else:
            positional.append(token)
        index += 1
    return ParsedOptions(positional, options)


def option_value(words: list[str], names: list[str]) -> str | None:
    """Value of the first matching option (None when absent or valueless)."""
    parsed = parse_shell_options(words, 1, names)
    for name, value in parsed.options.items():
        if name in names:
            return value
    return None


def positional_args(
    words: list[str], start: int = 1, options_with_value: list[str] | tuple[str, ...] = ()
) -> list[str]:
    """Positional words after consuming options and their values."""
    return parse_shell_options(words, start, options_with_value).positional


def first_positional(
    words: list[str], start: int = 1, options_with_value: list[str] | tuple[str, ...] = ()
) -> str | None:
    """The first positional word, if any."""
    positional = positional_args(words, start, options_with_value)
    return positional[0] if positional else None


def trim_leading_env(words: list[str]) -> list[str]:
    """Drop an `env` wrapper (with its flags) and leading `VAR=value` assignments."""
    if not words:
        return words
    index = 0
    if binary_name(words[0]) == "env":
        index = 1
        while index < len(words):
            token = words[index]
            if not token:
                break
            if token.startswith("-") or _ASSIGNMENT_RE.match(token):
                index += 1
                continue
            break
        return words[index:]
    while index < len(words) and _ASSIGNMENT_RE.match(words[index]):
        index += 1
    return words[index:]


def unwrap_shell_wrapper(command: str) -> str:
    """The inner command of `bash -lc "..."` style wrappers, else the command."""
    words = parse_shell_words(command, 10).words
    if len(words) < 3:
        return command
    if binary_name(words[0]) not in ("bash", "sh", "zsh", "fish"):
        return command
    flag_index = next(
        (i for i, token in enumerate(words) if i > 0 and token in ("-c", "-lc", "-ic")), -1
    )
    if flag_index == -1:
        return command
    inner = trim(" ".join(words[flag_index + 1 :]))
    if not inner:
        return command
    stripped = strip_outer_quotes(inner)
    return stripped if stripped is not None else command
