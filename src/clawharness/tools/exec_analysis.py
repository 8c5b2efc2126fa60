"""What a shell command would run, for the exec allowlist: every program, wrappers seen
through, or why the command cannot be vouched for.

The rule is fail closed: a command is vouched for only if every word is understood.

1. The text is read by `exec_shell_syntax`, which reads a small subset of bash exactly
   as bash does (plain, quoted and escaped words; `;`, `&&`, `||`, `|`, newlines,
   comments) and refuses everything else: any `$` (expansions, `$'...'`, `$"..."`,
   `$(...)`), backquotes, redirections, here-documents and here-strings, process
   substitution, subshells, backgrounding, line continuations, reserved words, and
   characters that do not read as they show.
2. Each simple command: leading `NAME=value` assignments of loader and interpreter
   variables are refused (`exec_env_names`); the program word must be literal (no glob,
   brace list or `~user`); after `cd`, a relative program path cannot be resolved.
3. The program's rule (`exec_program_rules.rule_for`, looked up by the word's name and by
   the name of the file it resolves to) decides: a wrapper's command or a shell's `-c`
   script is judged in turn; a builtin, interpreter, editor or program with an option
   that runs something is allowed only with a known-safe set of arguments.
4. Words the shell still expands (`*.py`, `{a,b}`) are allowed only as arguments of
   programs known to have no option that runs anything; piped input only for programs
   known to read it as data (not an editor started by `git commit`, not a REPL).

The result lists every program that would run, each with the wrappers it came through,
for `match_exec_allowlist`. Pure and synchronous, except the injectable PATH lookup.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from clawharness.tools.exec_builtins import CHANGES_DIRECTORY
from clawharness.tools.exec_carried import PLAIN, Invocation, Rule
from clawharness.tools.exec_env_names import is_loader_or_interpreter_variable
from clawharness.tools.exec_program_rules import MULTI_CALL, rule_for
from clawharness.tools.exec_shell_syntax import (
    RESERVED_WORDS,
    ShellWord,
    SyntaxRefusal,
    parse_shell_script,
)

__all__ = ["MAX_NESTING", "CommandAnalysis", "CommandSegment", "analyze_command",
           "describe_programs", "program_name"]

#: wrappers and shell scripts inside each other, at most (`env nice sh -c "timeout ..."`)
MAX_NESTING = 8

_ASSIGNMENT = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\+?=")


def program_name(word: str) -> str:
    """The lower-cased basename a rule is looked up by (`/usr/bin/Env` -> `env`)."""
    return word.rsplit("/", 1)[-1].lower()


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


def _expansion_kind(word: ShellWord) -> str:
    return "a glob" if word.glob else "a brace list"


@dataclass(slots=True)
class _Walk:
    """The state of one analysis: where it resolves, what it found."""

    cwd: str | None
    which: Callable[[str], str | None]
    #: an empty or relative PATH entry, which makes every bare name a miss
    relative_path: str | None = None
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

    def rule(self, name: str, resolved: str | None) -> Rule | str | None:
        """The program's rule by its name and by the file it resolves to; a refusal
        when the two disagree (`./ls` linked to `python3`)."""
        by_word = rule_for(name)
        if resolved is None:
            return by_word
        file_name = program_name(resolved)
        if file_name == name or file_name in MULTI_CALL:
            return by_word
        by_file = rule_for(file_name)
        if by_file is None or by_file is by_word:
            return by_word
        if by_word is None:
            return by_file
        return (f"the program {name!r} resolves to {resolved!r}, which this policy judges "
                "by other rules")

    def script(self, text: str, depth: int, via: tuple[str, ...], piped: bool) -> str | None:
        """Analyse shell text (the command, or a script a shell runs); a refusal or None."""
        where = f" in the script run by {via[-1]}" if via else ""
        if depth > MAX_NESTING:
            return f"wrappers and shell scripts are nested more than {MAX_NESTING} deep"
        parsed = parse_shell_script(text)
        if isinstance(parsed, SyntaxRefusal):
            return f"the command uses {parsed.describe()}{where}, which this policy does " \
                "not read"
        for command in parsed.commands:
            words = command.words
            i = 0
            while i < len(words) and (found := _ASSIGNMENT.match(words[i].raw)):
                if is_loader_or_interpreter_variable(found.group(1)):
                    return (f"it sets {found.group(1)}, a variable that changes what a "
                            "program loads or runs")
                i += 1
            if i < len(words):
                problem = self.invocation(words[i:], depth, via,
                                          piped or command.piped_input)
                if problem is not None:
                    return problem
        return None

    def invocation(self, words: Sequence[ShellWord], depth: int, via: tuple[str, ...],
                   piped: bool) -> str | None:
        """Analyse one program run (a simple command, or a wrapper's command)."""
        if depth > MAX_NESTING:
            return f"wrappers and shell scripts are nested more than {MAX_NESTING} deep"
        program = words[0]
        exe = program.text
        if program.raw in RESERVED_WORDS:
            return f"the reserved word {program.raw!r} is not read as a command here"
        if (program.glob and program.raw != "[") or program.brace:
            return (f"the program {program.raw!r} is not a literal name (the shell would "
                    "decide it)")
        if not exe:
            return "the program name is empty"
        if "=" in exe:
            return (f"the program {exe!r} has an '=' (an assignment where a command is "
                    "expected)")
        name = program_name(exe)
        if "/" not in exe and self.relative_path is not None:
            return (f"PATH has the relative entry {self.relative_path!r}, so {exe!r} could "
                    "name a file in the directory the command runs in; make PATH absolute")
        if name in CHANGES_DIRECTORY:
            self.changed_dir = True
        elif "/" in exe and not os.path.isabs(os.path.expanduser(exe)) and self.changed_dir:
            return f"the program {exe!r} is a relative path after cd, which cannot be resolved"
        resolved = self.resolve(exe)
        rule = self.rule(name, resolved)
        if isinstance(rule, str):
            return rule
        argv = tuple(word.text for word in words)
        carried = rule(Invocation(argv, piped)) if rule is not None else PLAIN
        if carried.refusal is not None:
            return carried.refusal
        if not carried.judge_self and exe.rsplit("/", 1)[-1] != name:
            # a wrapper or shell seen through must be that program: `Nice` is `nice` only
            # on a file system that ignores case, and elsewhere some other program
            return (f"the program {exe!r} is {name!r} only where file names ignore case; "
                    f"write {name!r}")
        if not carried.expansions_ok:
            own = words[1 : carried.command_at]
            expanding = next((w for w in own if w.glob or w.brace), None)
            if expanding is not None:
                return (f"{name}: the word {expanding.raw!r} is {_expansion_kind(expanding)} "
                        f"the shell expands into words this policy cannot see ({name} has "
                        "options that could run something, or is not known to have none); "
                        "quote it")
        if piped and not carried.input_is_data:
            return (f"{exe!r} is given piped input, which this policy vouches for only in "
                    "programs known to read it as data (not as commands or keystrokes)")
        if carried.judge_self:
            raw = " ".join(word.raw for word in words)
            self.found.append(CommandSegment(raw, argv, exe, resolved, via))
        inner_via = (*via, name)
        if carried.command_at is not None:
            problem = self.invocation(words[carried.command_at :], depth + 1, inner_via,
                                      piped)
            if problem is not None:
                return problem
        for script in carried.scripts:
            problem = self.script(script, depth + 1, inner_via, piped)
            if problem is not None:
                return problem
        return None


def relative_path_entry(search_path: str) -> str | None:
    """An entry of a PATH value that is empty or relative (so a bare program name could
    mean a file in whatever directory the command runs in), or None."""
    for entry in search_path.split(os.pathsep):
        if not os.path.isabs(entry):
            return entry
    return None


def analyze_command(
    command: str, *, cwd: str | None = None, which: Callable[[str], str | None] = shutil.which,
    search_path: str | None = None,
) -> CommandAnalysis:
    """Every program `command` would run (wrappers seen through), or why it is refused.

    `search_path` is the PATH the command runs with (this process's by default): with an
    empty or relative entry, a bare name is a miss, since it may name a file the model
    wrote into the working directory."""
    path_value = os.environ.get("PATH", "") if search_path is None else search_path
    walk = _Walk(cwd, which, relative_path_entry(path_value) if path_value else None)
    problem = walk.script(command, 0, (), piped=False)
    if problem is not None:
        return CommandAnalysis(False, reason=problem)
    return CommandAnalysis(True, tuple(walk.found))


def describe_programs(segments: Sequence[CommandSegment]) -> str:
    """A short list of the programs, for a person approving the command."""
    return ", ".join(dict.fromkeys(s.resolved_path or s.executable for s in segments))
