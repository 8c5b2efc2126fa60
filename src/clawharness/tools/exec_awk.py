"""Whether an awk program runs a command, writes a file or loads code.

A small reader of awk's tokens: strings, regular expressions (told from division the way
awk's grammar tells them: a `/` where an operand is expected opens one), comments and
braces. In the program it refuses `system`, a `|` that is not `||` (a pipe to or from a
command, or gawk's `|&` coprocess), any `@` (gawk's `@include`, `@load` and indirect
calls such as `@f("cmd")`, which can call `system`), a `>` inside an action (output
redirection to a file; inside an action a comparison is refused too, since telling them
apart needs awk's whole grammar, while a pattern before `{` can only compare), and
gawk's network files (`"/inet/..."`). Where the reader is unsure (a `/` after `++`, or
after a keyword that is not followed by an expression) it refuses: a misread would hide
code inside what it took for a string or a pattern.
"""

from __future__ import annotations

from typing import Final

__all__ = ["awk_program_problem"]

_KEYWORDS: Final = frozenset({
    "BEGIN", "END", "BEGINFILE", "ENDFILE", "function", "func", "if", "else", "while",
    "for", "do", "break", "continue", "next", "nextfile", "exit", "return", "delete", "in",
    "getline", "print", "printf", "switch", "case", "default"})
#: keywords an expression follows, so a `/` after them opens a regular expression
_EXPRESSION_KEYWORDS: Final = frozenset({"print", "printf", "return", "case"})
#: tokens after which an operand is expected: `/` starts a regular expression
_OPERATOR_CHARS: Final = frozenset("(,{};\n!~&|?:=<>+-*%^[")


class _Unsure(Exception):
    pass


def _skip_string(program: str, start: int) -> tuple[int, str]:
    i = start + 1
    out: list[str] = []
    while i < len(program):
        char = program[i]
        if char == "\\":
            out.append(program[i : i + 2])
            i += 2
            continue
        if char == '"':
            return i + 1, "".join(out)
        if char == "\n":
            break
        out.append(char)
        i += 1
    raise _Unsure("a string is not terminated")


def _skip_regex(program: str, start: int) -> int:
    i = start + 1
    in_class = False
    while i < len(program):
        char = program[i]
        if char == "\\":
            i += 2
            continue
        if char == "\n":
            break
        if char == "[":
            in_class = True
        elif char == "]":
            in_class = False
        elif char == "/" and not in_class:
            return i + 1
        i += 1
    raise _Unsure("a regular expression is not terminated")


def _check(program: str) -> str | None:
    depth = 0
    #: per open `(`: whether it is the condition of if/while/for, after which a statement
    #: (and so possibly a regular expression) starts
    parens: list[bool] = []
    previous = ""  # the last significant token: "", an operator char, "word", "operand"
    previous_word = ""
    i = 0
    n = len(program)
    while i < n:
        char = program[i]
        if char in " \t\r\\":
            i += 1
            continue
        if char == "#":
            end = program.find("\n", i)
            i = n if end == -1 else end
            continue
        if char == '"':
            i, text = _skip_string(program, i)
            if "/inet" in text:
                return "its program opens a network connection (/inet)"
            previous = "operand"
            continue
        if char == "/":
            if previous == "word" and previous_word in _KEYWORDS:
                if previous_word not in _EXPRESSION_KEYWORDS:
                    raise _Unsure(f"a '/' after {previous_word!r}")
                i = _skip_regex(program, i)
                previous = "operand"
                continue
            if previous in ("", "operator"):
                i = _skip_regex(program, i)
                previous = "operand"
                continue
            if previous == "increment":
                raise _Unsure("a '/' after ++ or --")
            previous = "operator"  # division
            i += 1
            continue
        if char.isalpha() or char == "_":
            j = i
            while j < n and (program[j].isalnum() or program[j] == "_"):
                j += 1
            word = program[i:j]
            if word == "system":
                return "its program calls system(), which runs a command"
            previous, previous_word = "word", word
            if word not in _KEYWORDS:
                previous = "operand"
            i = j
            continue
        if char.isdigit() or char == ".":
            while i < n and (program[i].isalnum() or program[i] in "._"):
                i += 1
            previous = "operand"
            continue
        if char == "@":
            return "its program uses an @ directive or indirect call (@include, @load, @f())"
        if char == "|":
            if program.startswith("||", i):
                i += 2
                previous = "operator"
                continue
            return "its program pipes to or from a command"
        if char == ">":
            if depth > 0 and not program.startswith(">=", i):
                return ("its program has a > inside an action (output to a file; a "
                        "comparison there is refused too)")
            i += 2 if program.startswith(">=", i) else 1
            previous = "operator"
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth < 0:
                raise _Unsure("a '}' closes nothing")
        if program.startswith(("++", "--"), i):
            i += 2
            previous = "increment"
            continue
        if char == "(":
            parens.append(previous == "word" and previous_word in ("if", "while", "for"))
            previous = "operator"
        elif char == ")":
            if not parens:
                raise _Unsure("a ')' closes nothing")
            previous = "operator" if parens.pop() else "operand"
        elif char in "]":
            previous = "operand"
        elif char in _OPERATOR_CHARS or char == "$":
            previous = "operator"
        else:
            raise _Unsure(f"{char!r} is not awk syntax this policy reads")
        i += 1
    if depth != 0 or parens:
        raise _Unsure("its braces or parentheses do not balance")
    return None


def awk_program_problem(program: str) -> str | None:
    """None when the program only reads and prints; else why it is refused."""
    try:
        return _check(program)
    except _Unsure as exc:
        return f"its program could not be read ({exc})"
