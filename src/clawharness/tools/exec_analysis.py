"""What a shell command would run, for the exec allowlist: every program, wrappers seen
through.

The command is split into simple commands on `;`, `&&`, `||` and `|`; anything the
analysis cannot vouch for (redirections, subshells, command or process substitution,
backgrounding, several lines, an unterminated quote) is a miss. Each simple command then
goes through the rules:

- a leading `VAR=value` (and `env VAR=`, `export VAR=`) of a loader or interpreter
  variable (`LD_*`, `DYLD_*`, `PYTHONPATH`, `NODE_OPTIONS`, `BASH_ENV`, `PATH`, ...) is
  refused (`exec_env_names`);
- a wrapper is seen through and its command judged; a shell's `-c` script is analysed
  like a command of its own; programs with an option that runs something (`find -exec`,
  `git -c alias.*`, `awk` `system()`, ...) have that judged or are refused
  (`exec_wrappers`, `exec_program_rules`);
- the program word must be literal (no `$`, globs, braces or `~user`), since the shell
  would decide what it is; after `cd`, a relative program path cannot be resolved.

The result lists every program that would run, each with the wrappers it came through,
for `match_exec_allowlist`. Pure and synchronous, except the injectable PATH lookup.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from clawharness.tools.exec_carried import Carried
from clawharness.tools.exec_env_names import is_loader_or_interpreter_variable
from clawharness.tools.exec_program_rules import PROGRAM_RULES
from clawharness.tools.exec_wrappers import (
    INTERPRETER_RULES,
    SHELLS,
    WRAPPER_RULES,
    program_name,
    xargs_input_mode,
)

__all__ = ["MAX_NESTING", "CommandAnalysis", "CommandSegment", "analyze_command",
           "what_it_runs"]

#: wrappers and shell scripts inside each other, at most (`env nice sh -c "timeout ..."`)
MAX_NESTING = 8

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")
_DECLARERS = frozenset({"export", "declare", "typeset", "readonly", "local"})
_CHDIRS = frozenset({"cd", "pushd", "popd"})


@dataclass(frozen=True, slots=True)
class CommandSegment:
    """One program the command would run; `via` names the wrappers it runs under."""

    raw: str
    argv: tuple[str, ...]
    executable: str
    resolved_path: str | None
    via: tuple[str, ...] = ()

    def describe(self) -> str:
        """`"touch"`, or `"touch" (run by env)` for one found inside a wrapper."""
        shown = f'"{self.executable}"'
        return f"{shown} (run by {' > '.join(self.via)})" if self.via else shown


@dataclass(frozen=True, slots=True)
class CommandAnalysis:
    """A command's programs, or why it could not be vouched for."""

    ok: bool
    segments: tuple[CommandSegment, ...] = ()
    reason: str | None = None


def what_it_runs(argv: Sequence[str]) -> Carried:
    """The rule's verdict on one argv (a plain program when no rule knows it)."""
    name = program_name(argv[0])
    rule = WRAPPER_RULES.get(name) or PROGRAM_RULES.get(name)
    if rule is None:
        for pattern, interpreter in INTERPRETER_RULES:
            if pattern.fullmatch(name):
                rule = interpreter
                break
    return rule(argv) if rule is not None else Carried()


def split_segments(command: str) -> list[str] | str:
    """Top-level simple commands split on ; && || | (or the construct that is refused)."""
    segments: list[str] = []
    current: list[str] = []
    quote: str | None = None
    i, n = 0, len(command)
    while i < n:
        ch = command[i]
        if quote == "'":
            if ch == "'":
                quote = None
            current.append(ch)
        elif ch == "\\" and i + 1 < n:
            if command[i + 1] == "\n":
                return "line continuation"
            current.append(command[i : i + 2])
            i += 1
        elif quote == '"':
            if ch == "`" or command.startswith("$(", i):
                return "command substitution"
            if ch == '"':
                quote = None
            current.append(ch)
        elif ch in ("'", '"'):
            quote = ch
            current.append(ch)
        elif ch == "`" or command.startswith("$(", i):
            return "command substitution"
        elif ch in "<>":
            return "redirection"
        elif ch in "()":
            return "subshell"
        elif ch in "\n\r":
            return "multiple lines"
        elif ch in ";|&":
            two = command[i : i + 2]
            if ch == "&" and two != "&&":
                return "backgrounding"
            segments.append("".join(current))
            current = []
            if two in ("&&", "||", "|&"):
                i += 1
        else:
            current.append(ch)
        i += 1
    if quote is not None:
        return "an unterminated quote"
    segments.append("".join(current))
    return segments


_BRACE_EXPANSION = re.compile(r"\{[^{}]*(?:,|\.\.)[^{}]*\}")


def unquoted_expansion(raw: str, *, in_double_quotes: bool = False) -> str | None:
    """The first shell expansion outside quotes in `raw` (`*`, `?`, `[`, `$`, a brace
    list), or None. Such an expansion can turn into any words, options included. With
    `in_double_quotes`, a `$` inside double quotes counts too: it still changes the text
    (what matters where the text is code)."""
    unquoted: list[str] = []
    quote = ""
    i = 0
    while i < len(raw):
        char = raw[i]
        if quote:
            if char == quote:
                quote = ""
            elif char == "\\" and quote == '"':
                i += 1
            elif char == "$" and quote == '"' and in_double_quotes:
                return "$"
            unquoted.append(" ")
        elif char == "\\":
            i += 1
            unquoted.append(" ")
        elif char in ("'", '"'):
            quote = char
            unquoted.append(" ")
        else:
            unquoted.append(char)
        i += 1
    text = "".join(unquoted)
    for char in "*?[$":
        if char in text:
            return char
    found = _BRACE_EXPANSION.search(text)
    return found.group(0) if found else None


def has_rule(name: str) -> bool:
    """Whether `name`'s arguments decide what else runs (a wrapper, shell, interpreter or
    a program with an option that starts one)."""
    return name in WRAPPER_RULES or name in PROGRAM_RULES or any(
        pattern.fullmatch(name) for pattern, _ in INTERPRETER_RULES)


def _literal_problem(word: str) -> str | None:
    if any(c in word for c in "$*?[{`") or "~" in word.removeprefix("~/"):
        return f"the program {word!r} is not a literal name (the shell would decide it)"
    return None


@dataclass(slots=True)
class _Walk:
    """The state of one analysis: where it resolves, what it found."""

    cwd: str | None
    which: Callable[[str], str | None]
    found: list[CommandSegment] = field(default_factory=list)
    changed_dir: bool = False

    def resolve(self, exe: str) -> str | None:
        if "/" in exe:
            path = os.path.expanduser(exe)
            if os.path.isabs(path) or self.cwd:
                # with no known cwd a relative program stays unresolved: only `*` fits it
                return os.path.realpath(os.path.join(self.cwd or "/", path))
            return None
        found = self.which(exe)
        return os.path.realpath(found) if found else None

    def text(self, command: str, depth: int, via: tuple[str, ...],
             placeholder: str = "") -> str | None:
        """Analyse shell text (the command, or a script a shell runs); a refusal or None."""
        if depth > MAX_NESTING:
            return f"wrappers and shell scripts are nested more than {MAX_NESTING} deep"
        if placeholder and placeholder in command:
            return (f"{via[-1]} would splice its input ({placeholder}) into shell code"
                    if via else "input would be spliced into shell code")
        parts = split_segments(command)
        where = f" in the script run by {via[-1]}" if via else ""
        if isinstance(parts, str):
            return f"the command uses {parts}{where}"
        for raw in parts:
            try:
                argv = shlex.split(raw)
            except ValueError as exc:
                return f"the command does not parse{where}: {exc}"
            problem = self.words(argv, raw.strip(), depth, via)
            if problem is not None:
                return problem
        return None

    def words(self, argv: Sequence[str], raw: str, depth: int, via: tuple[str, ...],
              *, input_mode: str | None = None) -> str | None:
        """Analyse one simple command's words; `input_mode` is set under `xargs`/`find`:
        "" when input words are appended, else the placeholder input replaces."""
        if depth > MAX_NESTING:
            return f"wrappers and shell scripts are nested more than {MAX_NESTING} deep"
        i = 0
        while i < len(argv) and _ASSIGNMENT.match(argv[i]):
            name = argv[i].split("=", 1)[0]
            if is_loader_or_interpreter_variable(name):
                return f"it sets {name}, a variable that changes what a program loads or runs"
            i += 1
        argv = argv[i:]
        if not argv:
            return "the command has an empty segment" if not via else \
                f"{via[-1]} is given no command"
        exe = argv[0]
        problem = _literal_problem(exe)
        if problem is not None:
            return problem
        if input_mode and input_mode in exe:
            return f"{via[-1]} would take the program to run from its input"
        name = program_name(exe)
        if name in _DECLARERS:
            for word in argv[1:]:
                if _ASSIGNMENT.match(word) and is_loader_or_interpreter_variable(
                        word.split("=", 1)[0]):
                    return (f"it sets {word.split('=', 1)[0]}, a variable that changes what a "
                            "program loads or runs")
        if name in _CHDIRS:
            self.changed_dir = True
        elif "/" in exe and not os.path.isabs(os.path.expanduser(exe)) and self.changed_dir:
            return f"the program {exe!r} is a relative path after cd, which cannot be resolved"
        carried = what_it_runs(argv)
        if carried.refusal is not None:
            return carried.refusal
        problem = _expansion_problem(name, argv, raw, carried)
        if problem is not None:
            return problem
        if input_mode is not None:
            problem = _input_problem(carried, input_mode, name)
            if problem is not None:
                return problem
        runs_something = bool(carried.commands or carried.scripts)
        if carried.judge_self or not runs_something:
            self.found.append(
                CommandSegment(raw, tuple(argv), exe, self.resolve(exe), via))
        inner_via = (*via, name)
        inner_mode = _inner_input_mode(name, argv, input_mode)
        for command in carried.commands:
            problem = self.words(command, raw, depth + 1, inner_via, input_mode=inner_mode)
            if problem is not None:
                return problem
        for script in carried.scripts:
            problem = self.text(script, depth + 1, inner_via, inner_mode or "")
            if problem is not None:
                return problem
        return None


#: programs whose arguments are code: an expansion inside double quotes rewrites it
_CODE_CARRIERS = frozenset({*SHELLS, "eval", "watch", "awk", "gawk", "mawk", "nawk", "sed",
                            "gsed"})
#: wrappers whose options end at their command (getopt "+"): an expansion in the
#: command's own words cannot reach the wrapper's options
_DISPATCHERS = frozenset({"env", "nice", "nohup", "stdbuf", "time", "timeout", "setsid",
                          "ionice", "taskset", "flock", "xargs", "command", "exec", "builtin",
                          "busybox", "toybox"})


def _expansion_problem(name: str, argv: Sequence[str], raw: str,
                       carried: Carried) -> str | None:
    """A shell expansion that could change what a rule-bearing program runs.

    `git *` with a file named `-c` in the directory, or `timeout $T ls` with T="5 rm",
    hand the program words the analysis never saw. A wrapper's own words are checked
    (their quoting is gone, so any expansion character counts); for other programs with
    rules, any unquoted expansion in the command is refused.
    """
    if not has_rule(name):
        return None
    if name in _DISPATCHERS and len(carried.commands) == 1 and not carried.scripts:
        inner = carried.commands[0]
        own = argv[1 : len(argv) - len(inner)] if tuple(argv[-len(inner):]) == inner else argv
        expansion = next((c for word in own for c in "$*?[`" if c in word), None)
        if expansion is None:
            braces = next((b for word in own if (b := _BRACE_EXPANSION.search(word))), None)
            expansion = braces.group(0) if braces else None
    else:
        expansion = unquoted_expansion(raw, in_double_quotes=name in _CODE_CARRIERS
                                        or bool(carried.scripts or carried.code))
    if expansion is None:
        return None
    return (f"{name}: the unquoted {expansion!r} lets the shell expand words into {name}'s "
            "arguments, which decide what it runs; quote it")


def _input_problem(carried: Carried, input_mode: str, name: str) -> str | None:
    if input_mode == "" and carried.incomplete:
        return f"{name} would take its command or program from the input"
    if input_mode:
        for code in (*carried.scripts, *carried.code):
            if input_mode in code:
                return f"{name} would have its input ({input_mode}) spliced into its code"
    return None


def _inner_input_mode(name: str, argv: Sequence[str], current: str | None) -> str | None:
    """How the commands `name` runs receive its input: xargs appends or replaces, find
    replaces `{}`; other wrappers pass on what they were given."""
    if name == "xargs":
        return xargs_input_mode(argv)
    if name == "find":
        return "{}"
    return current


def analyze_command(
    command: str, *, cwd: str | None = None, which: Callable[[str], str | None] = shutil.which
) -> CommandAnalysis:
    """Every program `command` would run (wrappers seen through), or why it is refused."""
    if "\x00" in command:
        # bash drops NUL bytes, so the command would not be the text judged here
        return CommandAnalysis(False, reason="the command contains a NUL character")
    walk = _Walk(cwd, which)
    problem = walk.text(command, 0, ())
    if problem is not None:
        return CommandAnalysis(False, reason=problem)
    return CommandAnalysis(True, tuple(walk.found))


def describe_programs(segments: Sequence[CommandSegment]) -> str:
    """A short list of the programs, for a person approving the command."""
    return ", ".join(dict.fromkeys(s.resolved_path or s.executable for s in segments))
