"""The shell syntax the exec allowlist vouches for, read exactly as bash reads it.

The gate does not try to understand all of bash. It reads a small subset, the way bash
reads it, and refuses everything outside it (fail closed):

- words made of plain characters, `\\x` escapes, `'single'` quotes, and `"double"`
  quotes whose content holds no `$` or backquote;
- simple commands joined by `;`, `&&`, `||`, `|` and newlines, with `#` comments;
- leading `NAME=value` assignments (judged by the analysis).

Refused, with the construct named: every `$` outside single quotes (parameter,
arithmetic and array expansion, `$(...)`, ANSI-C `$'...'` and locale `$"..."` quotes),
backquotes, redirections (`<`, `>`, here-documents, here-strings, `<(...)`), subshells
and groups `( )`, backgrounding `&`, `|&`, a line continuation, a trailing backslash, an
unterminated quote, a reserved word where a command starts (`if`, `{`, `[[`, `!`,
`time`, `function`, ...), a tilde form other than `~` and `~/` (`~user`, `~+`, `~-`), and
characters bash does not treat as the text shows: control characters (NUL included),
invisible format characters (bidirectional overrides, zero-width joiners), surrogates,
unassigned and private-use code points, and any space other than the ASCII space.

What stays is recorded per word: the text bash passes once quotes are removed, and
whether an unquoted glob (`*`, `?`, `[`), brace list (`{a,b}`, `{1..3}`) or tilde would
still be expanded, since those words are not fixed by the text alone. Pure and
synchronous.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Final

__all__ = ["RESERVED_WORDS", "ShellScript", "ShellWord", "SimpleCommand", "SyntaxRefusal",
           "parse_shell_script"]

#: bash's reserved words (`compgen -k`); at a command's start they open syntax the gate
#: does not read
RESERVED_WORDS: Final = frozenset({
    "if", "then", "else", "elif", "fi", "case", "esac", "for", "select", "while", "until",
    "do", "done", "in", "function", "time", "{", "}", "!", "[[", "]]", "coproc"})

#: what ends an unquoted word
_WORD_END: Final = frozenset(" \t\n;&|<>()")
#: a run of characters that need no attention one by one (a fast path)
_PLAIN_RUN: Final = re.compile(r"[^ \t\n;&|<>()$`\\'\"#*?\[{~]+")
_ASCII_FORBIDDEN: Final = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_REFUSED_CATEGORIES: Final = {
    "Cc": "a control character", "Cf": "an invisible format character",
    "Cs": "a lone surrogate", "Co": "a private-use character", "Cn": "an unassigned character",
    "Zl": "a line separator", "Zp": "a paragraph separator",
    "Zs": "a space character bash does not treat as a space"}


@dataclass(frozen=True, slots=True)
class ShellWord:
    """One word: `text` is what bash passes once quotes and escapes are removed.

    `glob`, `brace` and `tilde` say an unquoted pattern, brace list or `~` would still be
    expanded (by the file system, the text, or `$HOME`), so `text` is not the final word.
    """

    text: str
    raw: str
    glob: bool = False
    brace: bool = False
    tilde: bool = False

    @property
    def expands(self) -> bool:
        return self.glob or self.brace or self.tilde


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """The words of one simple command; `piped_input` when a pipe feeds its input."""

    words: tuple[ShellWord, ...]
    piped_input: bool
    offset: int


@dataclass(frozen=True, slots=True)
class ShellScript:
    """Every simple command of a script, in order (the operators between them do not
    change which commands may run)."""

    commands: tuple[SimpleCommand, ...]


@dataclass(frozen=True, slots=True)
class SyntaxRefusal:
    """Why the text is outside what the gate reads, and where (0-based offset)."""

    reason: str
    offset: int

    def describe(self) -> str:
        return f"{self.reason} (at character {self.offset + 1})"


class _Refused(Exception):
    def __init__(self, reason: str, offset: int) -> None:
        super().__init__(reason)
        self.refusal = SyntaxRefusal(reason, offset)


def _forbidden_character(text: str) -> SyntaxRefusal | None:
    found = _ASCII_FORBIDDEN.search(text)
    if found is not None:
        char = found.group(0)
        what = "a NUL character" if char == "\x00" else f"the control character {char!r}"
        return SyntaxRefusal(f"the command contains {what}", found.start())
    if text.isascii():
        return None
    for index, char in enumerate(text):
        if char.isascii():
            continue
        why = _REFUSED_CATEGORIES.get(unicodedata.category(char))
        if why is not None:
            return SyntaxRefusal(
                f"the command contains {why} (U+{ord(char):04X}), which does not read "
                "as it shows", index)
    return None


def _dollar_refusal(text: str, index: int, quoted: bool) -> str:
    after = text[index + 1 : index + 3]
    where = " inside double quotes" if quoted else ""
    if after[:1] == "'" and not quoted:
        return "ANSI-C quoting ($'...')"
    if after[:1] == '"' and not quoted:
        return 'locale quoting ($"...")'
    if after == "((":
        return f"arithmetic expansion ($((...))){where}"
    if after[:1] == "(":
        return f"command substitution ($(...)){where}"
    if after[:1] == "[":
        return f"arithmetic expansion ($[...]){where}"
    if after[:1] == "{":
        return f"parameter expansion (${{...}}){where}"
    return f"parameter expansion ($){where}"


class _Reader:
    """One pass over the text; raises `_Refused` at the first construct outside the
    subset."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.commands: list[SimpleCommand] = []
        self.words: list[ShellWord] = []
        self.command_start = 0
        self.pending: str | None = None  # `|`, `&&` or `||` waiting for its command
        self.piped = False
        self._reset_word()

    def _reset_word(self) -> None:
        self.buf: list[str] = []
        self.started = False
        self.word_start = -1
        self.glob = self.brace_open = self.tilde = False
        self.previous_unquoted: str | None = None  # the last character, if unquoted

    def _begin(self, index: int) -> None:
        if not self.started:
            self.started = True
            self.word_start = index
            if not self.words:
                self.command_start = index

    def end_word(self, index: int) -> None:
        if not self.started:
            return
        text = "".join(self.buf)
        brace = self.brace_open and ("," in text or ".." in text)
        self.words.append(ShellWord(text, self.text[self.word_start:index], self.glob,
                                    brace, self.tilde))
        self._reset_word()

    def end_command(self, operator: str, index: int) -> None:
        """Close the command at an operator (`;`, `&&`, `||`, `|`, newline, end)."""
        if not self.words:
            if operator == "\n":
                return  # a blank line, or a newline after `|`, `&&`, `||`
            raise _Refused(f"{operator!r} has no command before it", index)
        first = self.words[0]
        if first.raw in RESERVED_WORDS:
            raise _Refused(f"the reserved word {first.raw!r} opens shell syntax this gate "
                           "does not read (compound commands, groups, tests, negation, "
                           "time)", self.command_start)
        self.commands.append(SimpleCommand(tuple(self.words), self.piped, self.command_start))
        self.words = []
        self.piped = operator == "|"
        self.pending = operator if operator in ("|", "&&", "||") else None

    def literal(self, char: str, index: int) -> None:
        self._begin(index)
        if char in "*?[":
            self.glob = True
        elif char == "{":
            self.brace_open = True
        elif char == "~" and (len(self.buf) == 0 or self.previous_unquoted in ("=", ":")):
            following = self.text[index + 1 : index + 2]
            if following and following not in _WORD_END and following not in "/:":
                raise _Refused("tilde expansion other than ~ or ~/ (another user's home "
                               "or the directory stack)", index)
            self.tilde = True
        self.buf.append(char)
        self.previous_unquoted = char

    def quoted(self, text: str, index: int) -> None:
        self._begin(index)
        self.buf.append(text)
        self.previous_unquoted = None

    def run(self) -> ShellScript:
        text, n = self.text, len(self.text)
        i = 0
        plain = _PLAIN_RUN.match
        while i < n:
            run = plain(text, i)
            if run is not None:
                self._begin(i)
                self.buf.append(run.group(0))
                self.previous_unquoted = text[run.end() - 1]
                i = run.end()
                continue
            char = text[i]
            if char in " \t":
                self.end_word(i)
                i += 1
            elif char == "\n":
                self.end_word(i)
                self.end_command("\n", i)
                i += 1
            elif char == "#" and not self.started:
                newline = text.find("\n", i)
                i = n if newline == -1 else newline
            elif char == ";":
                self.end_word(i)
                if text.startswith(";;", i) or text.startswith(";&", i):
                    raise _Refused(f"{text[i:i + 2]!r} (a case terminator)", i)
                self.end_command(";", i)
                i += 1
            elif char == "&":
                self.end_word(i)
                if text.startswith("&&", i):
                    self.end_command("&&", i)
                    i += 2
                elif text.startswith("&>", i):
                    raise _Refused("a redirection (&>)", i)
                else:
                    raise _Refused("backgrounding (&)", i)
            elif char == "|":
                self.end_word(i)
                if text.startswith("||", i):
                    self.end_command("||", i)
                    i += 2
                elif text.startswith("|&", i):
                    raise _Refused("a pipe of standard error (|&)", i)
                else:
                    self.end_command("|", i)
                    i += 1
            elif char in "<>":
                raise _Refused(self._redirection(i), i)
            elif char in "()":
                raise _Refused("a subshell, group, function definition or pattern "
                               f"({char})", i)
            elif char == "$":
                raise _Refused(_dollar_refusal(text, i, quoted=False), i)
            elif char == "`":
                raise _Refused("command substitution (`...`)", i)
            elif char == "\\":
                if i + 1 >= n:
                    raise _Refused("a backslash at the end of the command", i)
                if text[i + 1] == "\n":
                    raise _Refused("a line continuation (backslash-newline)", i)
                self.quoted(text[i + 1], i)
                i += 2
            elif char == "'":
                close = text.find("'", i + 1)
                if close == -1:
                    raise _Refused("an unterminated single quote", i)
                self.quoted(text[i + 1 : close], i)
                i = close + 1
            elif char == '"':
                i = self._double_quoted(i)
            else:
                self.literal(char, i)
                i += 1
        self.end_word(n)
        if self.words:
            self.end_command("end", n)
        elif self.pending is not None:
            raise _Refused(f"the command ends with {self.pending!r}", n)
        return ShellScript(tuple(self.commands))

    def _double_quoted(self, start: int) -> int:
        text, n = self.text, len(self.text)
        out: list[str] = []
        i = start + 1
        while i < n:
            char = text[i]
            if char == '"':
                self.quoted("".join(out), start)
                return i + 1
            if char == "$":
                raise _Refused(_dollar_refusal(text, i, quoted=True), i)
            if char == "`":
                raise _Refused("command substitution (`...`) inside double quotes", i)
            if char == "\\" and i + 1 < n:
                following = text[i + 1]
                if following == "\n":
                    raise _Refused("a line continuation (backslash-newline)", i)
                if following in '$`"\\':
                    out.append(following)
                    i += 2
                    continue
            out.append(char)
            i += 1
        raise _Refused("an unterminated double quote", start)

    def _redirection(self, i: int) -> str:
        text = self.text
        if text.startswith("<<<", i):
            return "a here-string (<<<)"
        if text.startswith("<<", i):
            return "a here-document (<<)"
        if text.startswith(("<(", ">("), i):
            return f"process substitution ({text[i:i + 2]}...)"
        return f"a redirection ({text[i]})"


def parse_shell_script(text: str) -> ShellScript | SyntaxRefusal:
    """The simple commands of `text`, or why the gate does not read it."""
    bad = _forbidden_character(text)
    if bad is not None:
        return bad
    try:
        return _Reader(text).run()
    except _Refused as refused:
        return refused.refusal
