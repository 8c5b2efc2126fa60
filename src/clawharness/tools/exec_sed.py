"""Whether a sed script runs a command or writes a file (GNU `e`, `s///e`, `w`, `W`).

A small reader of sed's command syntax: addresses, then one command letter and its
arguments, separated by `;` or newlines. It only has to find the commands that run
programs or write files; a script it cannot read is refused (fail closed), and sed
would reject most such scripts itself.
"""

from __future__ import annotations

__all__ = ["sed_script_problem"]

_SIMPLE = frozenset("=dDgGhHlnNpPqQxzFL")
_ENDS = frozenset(";\n}#")
#: what `_command` answers for `{`: no problem, and no separator needed before the next
_GROUP = "{"


class _Unreadable(Exception):
    pass


class _Reader:
    __slots__ = ("i", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        self.i = 0

    def peek(self) -> str:
        return self.text[self.i] if self.i < len(self.text) else ""

    def take(self) -> str:
        char = self.peek()
        if not char:
            raise _Unreadable("the script ends in the middle of a command")
        self.i += 1
        return char

    def skip_blanks(self) -> None:
        while self.peek() in (" ", "\t"):
            self.i += 1

    def to_line_end(self) -> str:
        start = self.i
        end = self.text.find("\n", start)
        self.i = len(self.text) if end == -1 else end
        return self.text[start:self.i]

    def to_command_end(self) -> None:
        while self.peek() and self.peek() not in ";\n}":
            self.i += 1

    def delimited(self, delim: str) -> str:
        """Text up to the next unescaped `delim` (consumed)."""
        out: list[str] = []
        while True:
            char = self.take()
            if char == "\\":
                out.append(char + self.take())
            elif char == delim:
                return "".join(out)
            elif char == "\n" and delim != "\n":
                raise _Unreadable("a pattern runs past the end of its line")
            else:
                out.append(char)


def _address(reader: _Reader) -> None:
    char = reader.peek()
    if char.isdigit():
        while reader.peek().isdigit():
            reader.i += 1
        if reader.peek() == "~":
            reader.i += 1
            while reader.peek().isdigit():
                reader.i += 1
    elif char == "$":
        reader.i += 1
    elif char in ("/", "\\"):
        reader.i += 1
        delim = "/" if char == "/" else reader.take()
        reader.delimited(delim)
        while reader.peek() in ("I", "M"):
            reader.i += 1
    else:
        return
    reader.skip_blanks()
    if reader.peek() == ",":
        reader.i += 1
        reader.skip_blanks()
        if reader.peek() in ("+", "~"):
            reader.i += 1
            while reader.peek().isdigit():
                reader.i += 1
        else:
            _address(reader)


def _substitute_flags(reader: _Reader) -> str | None:
    while True:
        char = reader.peek()
        if char == "e":
            return "its s command has the e flag, which runs the result as a command"
        if char == "w":
            return "its s command has the w flag, which writes a file"
        if char and (char in "gpiImM" or char.isdigit()):
            reader.i += 1
            continue
        return None


def _command(reader: _Reader) -> str | None:
    """Read one command; a reason when it runs a program or writes a file."""
    reader.skip_blanks()
    _address(reader)
    reader.skip_blanks()
    while reader.peek() == "!":
        reader.i += 1
        reader.skip_blanks()
    letter = reader.take()
    if letter == "{":
        return _GROUP
    if letter == "}":
        return None
    if letter == "#":
        reader.to_line_end()
        return None
    if letter == "e":
        return "it has an e command, which runs a command"
    if letter in ("w", "W"):
        return f"it has a {letter} command, which writes a file"
    if letter in ("a", "i", "c"):
        while True:  # text to the end of the line; a trailing backslash continues it
            line = reader.to_line_end()
            if not line.endswith("\\") or not reader.peek():
                return None
            reader.i += 1
    if letter in ("r", "R"):
        reader.to_line_end()
        return None
    if letter in (":", "b", "t", "T", "v"):
        reader.to_command_end()
        return None
    if letter == "s":
        delim = reader.take()
        if delim in ("\n", "\\"):
            raise _Unreadable("an s command needs a delimiter")
        reader.delimited(delim)
        reader.delimited(delim)
        return _substitute_flags(reader)
    if letter == "y":
        delim = reader.take()
        reader.delimited(delim)
        reader.delimited(delim)
        return None
    if letter in _SIMPLE:
        while reader.peek().isdigit():
            reader.i += 1
        return None
    raise _Unreadable(f"{letter!r} is not a sed command this policy knows")


def sed_script_problem(script: str) -> str | None:
    """None when the script only edits text; else why it is refused in allowlist mode."""
    reader = _Reader(script)
    try:
        while reader.peek():
            char = reader.peek()
            if char in (" ", "\t", ";", "\n"):
                reader.i += 1
                continue
            problem = _command(reader)
            if problem == _GROUP:
                continue  # a block's first command may follow `{` directly
            if problem is not None:
                return problem
            reader.skip_blanks()
            if reader.peek() and reader.peek() not in _ENDS:
                raise _Unreadable(f"unexpected {reader.peek()!r} after a command")
    except _Unreadable as exc:
        return f"its script could not be read ({exc})"
    return None
