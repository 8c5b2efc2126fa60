"""Interpreters, interactive programs and editors: programs that run code they are given.

An interpreter counts as allowlisted only for a script file: `python3 tool.py` is
judged as `python3` (allowlisting an interpreter trusts any script it is given, the
model's included). Code that is not a file the policy can name never counts: inline code
(`-c`, `-e`, `--eval`, `-p`, `-r`), a module run by name (`python3 -m ...`,
`perl -M...`), code read from standard input (no script, `-`, `/dev/stdin`,
`/dev/fd/0`, `/proc/self/fd/0`), and any option the interpreter's grammar here does not
list. Programs that take commands from their input or arguments as a matter of course
(`sqlite3`, `psql`, `dc`, `m4`, `ftp`, `sftp`, `mail`, REPLs) and editors (`vim`, `ex`,
`emacs`, `nano`, `ed`, ...: their commands can start any program, and they read
keystrokes from a pipe) are refused outright.

Rules are looked up by the program's name and by the name of the file it resolves to,
so `python` linked to `python3.11`, or Debian's `editor` linked to `vim.basic`, is
recognised.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Final

from clawharness.tools.exec_carried import Carried, Invocation, Rule, refuse
from clawharness.tools.exec_options import Arity, OptionGrammar

__all__ = ["INTERPRETER_RULES", "reads_code_from_input"]

_N, _R, _O = Arity.NONE, Arity.REQUIRED, Arity.OPTIONAL
_INLINE = "runs inline code, which this policy cannot judge; run a script file instead"
_MODULE = "runs code named by a module or library, not a script file"
_STDIN = "reads code from its input, which this policy cannot see"
_INTERACTIVE = "starts an interactive session that reads code from its input"


def reads_code_from_input(path: str) -> bool:
    """Whether a script path names standard input or another open descriptor."""
    return path == "-" or path.startswith(("/dev/", "/proc/"))


def _script_interpreter(grammar: OptionGrammar, *, informational: Sequence[str] = (),
                        script_option: str | None = None) -> Rule:
    """`interp [listed options] script [arguments]`: judged as the interpreter."""

    def rule(inv: Invocation) -> Carried:
        parsed = replace(grammar, program=inv.name).parse(inv.argv)
        if isinstance(parsed, str):
            return refuse(parsed)
        scripts = [inv.argv[i] for i in parsed.operands[:1]]
        if script_option is not None:
            scripts = parsed.values(script_option) or scripts
        for script in scripts:
            if reads_code_from_input(script):
                return refuse(f"{inv.name} {script} {_STDIN}")
        if scripts or parsed.has(*informational):
            return Carried(judge_self=True, input_is_data=bool(scripts))
        return refuse(f"{inv.name} with no script {_STDIN}")

    return rule


_PYTHON = _script_interpreter(OptionGrammar(
    "python", stop_at_operand=True, abbreviations=False,
    shorts={**{letter: _N for letter in "BbdEIOqsSuvxPRVh"}},
    longs={"version": _N, "help": _N},
    refused={"-c": _INLINE, "-m": _MODULE, "-i": _INTERACTIVE, "-X": _MODULE,
             "-W": _MODULE, "--command": _INLINE}),
    informational=("-V", "--version", "-h", "--help"))

_NODE = _script_interpreter(OptionGrammar(
    "node", stop_at_operand=True, abbreviations=False,
    shorts={"v": _N, "h": _N, "c": _N},
    longs={"version": _N, "help": _N, "check": _N, "no-warnings": _N,
           "enable-source-maps": _N, "trace-warnings": _N, "trace-uncaught": _N,
           "test": _N},
    refused={"-e": _INLINE, "--eval": _INLINE, "-p": _INLINE, "--print": _INLINE,
             "-i": _INTERACTIVE, "--interactive": _INTERACTIVE, "-r": _MODULE,
             "--require": _MODULE, "--import": _MODULE, "--loader": _MODULE,
             "--experimental-loader": _MODULE, "--input-type": _INLINE}),
    informational=("-v", "--version", "-h", "--help", "--test"))

_PERL = _script_interpreter(OptionGrammar(
    "perl", stop_at_operand=True, abbreviations=False,
    shorts={**{letter: _N for letter in "wWXTtnpascvVh"}, "l": _O, "0": _O, "i": _O,
            "C": _O},
    refused={"-e": _INLINE, "-E": _INLINE, "-M": _MODULE, "-m": _MODULE, "-I": _MODULE,
             "-x": "extracts a script from other text", "-d": _MODULE, "-D": _MODULE,
             "-F": "turns its split pattern into code"}),
    informational=("-v", "-V", "-h"))

_RUBY = _script_interpreter(OptionGrammar(
    "ruby", stop_at_operand=True, abbreviations=False,
    shorts={**{letter: _N for letter in "wcnpalvh"}, "W": _O},
    longs={"version": _N, "help": _N},
    refused={"-e": _INLINE, "-r": _MODULE, "-I": _MODULE,
             "-x": "extracts a script from other text", "-C": "changes directory first",
             "-S": "looks the script up on PATH"}),
    informational=("-v", "--version", "-h", "--help"))

_PHP = _script_interpreter(OptionGrammar(
    "php", stop_at_operand=True, abbreviations=False,
    shorts={"l": _N, "n": _N, "v": _N, "h": _N, "f": _R},
    refused={"-r": _INLINE, "-R": _INLINE, "-B": _INLINE, "-E": _INLINE, "-F": _INLINE,
             "-a": _INTERACTIVE, "-d": "sets configuration that can load code",
             "-c": "reads configuration that can load code",
             "-z": _MODULE, "-S": "serves and runs the files of a directory",
             "-t": "serves and runs the files of a directory"}),
    informational=("-v", "-h"), script_option="-f")

_LUA = _script_interpreter(OptionGrammar(
    "lua", stop_at_operand=True, abbreviations=False,
    shorts={"v": _N, "E": _N, "W": _N},
    refused={"-e": _INLINE, "-l": _MODULE, "-i": _INTERACTIVE}),
    informational=("-v",))



def _script_only(inv: Invocation) -> Carried:
    """Any option refused: judged only as `program script [arguments]`."""
    return _script_interpreter(OptionGrammar(inv.name, stop_at_operand=True))(inv)


def _runtime(inv: Invocation) -> Carried:
    """bun and deno: a script or a project command, never inline code or a REPL."""
    first = inv.argv[1] if len(inv.argv) > 1 else None
    if first is None or first in ("repl", "-i", "--interactive"):
        return refuse(f"{inv.name} with no script starts a REPL that reads code from its "
                      "input")
    if first in ("-e", "--eval", "-p", "--print", "eval") or first.startswith(
            ("--eval=", "--print=")):
        return refuse(f"{inv.name} {first} {_INLINE}")
    if first in ("x", "dlx") or reads_code_from_input(first):
        return refuse(f"{inv.name} {first} runs code this policy cannot see")
    return Carried(judge_self=True, input_is_data=True)


def _refused(why: str) -> Rule:
    def rule(inv: Invocation) -> Carried:
        return refuse(f"{inv.name} {why}")

    return rule


_REPL = _refused("takes commands or code from its input or arguments, which this policy "
                 "cannot judge")
_EDITOR = _refused("is an editor: its commands can start any program, and it reads them "
                   "from a pipe as keystrokes")

INTERPRETER_RULES: Final[tuple[tuple[re.Pattern[str], Rule], ...]] = tuple(
    (re.compile(pattern), rule) for pattern, rule in (
        (r"(?:python|pypy)[0-9.]*(?:m|d|-dbg)?", _PYTHON),
        (r"node(?:js)?", _NODE),
        (r"bun|deno", _runtime),
        (r"perl[0-9.]*", _PERL),
        (r"ruby[0-9.]*|jruby|truffleruby", _RUBY),
        (r"php[0-9.]*(?:-cli|-cgi)?", _PHP),
        (r"lua(?:jit)?[0-9.]*", _LUA),
        (r"rscript|r|julia|osascript|tclsh[0-9.]*|wish[0-9.]*|guile[0-9.]*|racket|sbcl"
         r"|clisp|ocaml|gnuplot|octave(?:-cli)?|groovy|kotlin|scala|erl|escript|elixir"
         r"|java|jjs", _script_only),
        (r"irb|ghci|jshell|sqlite3?|psql|mysql|mariadb|redis-cli|mongo(?:sh)?|dc"
         r"|ftp|lftp|sftp|tftp|telnet|mail|mailx|bsd-mailx|s-nail|mutt|neomutt"
         r"|ipython[0-9.]*|bpython|ptpython|iex|clojure|clj|swipl|gforth|m4|gm4|cqlsh"
         r"|duckdb|clickhouse(?:-client)?|psysh",
         _REPL),
        (r"(?:g|r|e)?vim?(?:\..+)?|n?vim(?:diff)?|gvimdiff|view|rview|ex|red|ed|editor"
         r"|emacs(?:[-0-9.].*)?|emacsclient|x?emacs|nano|rnano|pico|joe|jed|jmacs|jstar"
         r"|mcedit|micro|kak|hx|helix|vis|vile|elvis|nvi|zile|mg|ne|vipe|vidir|vipw|vigr",
         _EDITOR),
    ))
