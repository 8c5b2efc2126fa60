"""bash's builtins: the few whose arguments cannot run anything, and the rest, refused.

A builtin runs inside the shell, so its arguments can reach the shell's own machinery:
`printf -v 'a[$(cmd)]'`, `read 'a[$(cmd)]'`, `test -v 'a[$(cmd)]'`, `unset`, `declare`,
`let` and `mapfile` evaluate array subscripts (and so run command substitutions hidden
in quoted text); `eval`, `source`, `.`, `trap`, `command`, `builtin`, `exec` run
commands; `alias`, `enable`, `hash`, `set`, `shopt` change what later words mean. The
gate does not model any of that: a builtin is allowed only if it is in `INERT_BUILTINS`
with arguments its check accepts, and every other builtin is a miss, wherever it
appears (under `env` the same name is a program, which may be a script calling the
builtin). An inert builtin still has to match the allowlist by its name.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from clawharness.tools.exec_carried import INERT, Carried, Invocation, Rule, refuse

__all__ = ["BUILTIN_RULES", "CHANGES_DIRECTORY"]

#: bash 5.2's builtins (`compgen -b`) and the POSIX ones dash adds
_ALL_BUILTINS: Final = frozenset({
    ".", ":", "[", "alias", "bg", "bind", "break", "builtin", "caller", "cd", "command",
    "compgen", "complete", "compopt", "continue", "declare", "dirs", "disown", "echo",
    "enable", "eval", "exec", "exit", "export", "false", "fc", "fg", "getopts", "hash",
    "help", "history", "jobs", "kill", "let", "local", "logout", "mapfile", "popd",
    "printf", "pushd", "pwd", "read", "readarray", "readonly", "return", "set", "shift",
    "shopt", "source", "suspend", "test", "times", "trap", "true", "type", "typeset",
    "ulimit", "umask", "unalias", "unset", "wait"})

#: builtins that change the directory later relative program paths resolve from
CHANGES_DIRECTORY: Final = frozenset({"cd", "pushd", "popd"})


def _any_arguments(inv: Invocation) -> Carried:
    return INERT


def _printf(inv: Invocation) -> Carried:
    # `printf -v NAME` assigns, and a NAME such as `a[$(cmd)]` runs cmd; bash reads
    # printf's options only before the format, so a first word that is not an option
    # (or `--`) leaves no place for one
    first = inv.argv[1] if len(inv.argv) > 1 else ""
    if first.startswith("-") and first != "--":
        return refuse("printf with an option (printf -v assigns a variable, and its "
                      "name can run a command)")
    return INERT


def _test(inv: Invocation) -> Carried:
    # `test -v 'a[$(cmd)]'` evaluates the subscript, running cmd; `-R` reads a name too
    for word in inv.argv[1:]:
        if word in ("-v", "-R"):
            return refuse(f"{inv.argv[0]} {word} looks up a variable by a name that can "
                          "run a command")
    return INERT


def _pwd(inv: Invocation) -> Carried:
    if any(word not in ("-L", "-P") for word in inv.argv[1:]):
        return refuse("pwd takes only -L or -P")
    return INERT


def _cd(inv: Invocation) -> Carried:
    operands = [w for w in inv.argv[1:] if w not in ("-L", "-P", "--")]
    if len(operands) > 1 or any(w.startswith("-") and w != "-" for w in operands):
        return refuse("cd with options other than -L/-P, or more than one directory")
    return INERT


def _exit(inv: Invocation) -> Carried:
    if len(inv.argv) > 2 or (len(inv.argv) == 2 and not inv.argv[1].isdigit()):
        return refuse("exit takes at most one status number")
    return INERT


def _refused_builtin(why: str) -> Rule:
    def rule(inv: Invocation) -> Carried:
        return refuse(f"the builtin {inv.argv[0]} {why}")

    return rule


_RUNS = _refused_builtin("runs commands this policy cannot see")
_NAMES = _refused_builtin("assigns or looks up variables by names that can run commands "
                          "(array subscripts are evaluated)")
_STATE = _refused_builtin("changes how the shell reads or runs later commands")
_OTHER = _refused_builtin("is not one this policy reads (only echo, printf, test, [, "
                          "true, false, :, pwd, cd, type, help and exit are)")

_INERT_RULES: Final[Mapping[str, Rule]] = {
    "echo": _any_arguments, "true": _any_arguments, "false": _any_arguments,
    ":": _any_arguments, "type": _any_arguments, "help": _any_arguments,
    "printf": _printf, "test": _test, "[": _test, "pwd": _pwd, "cd": _cd, "exit": _exit,
}

_REFUSED: Final[Mapping[str, Rule]] = {
    **{name: _RUNS for name in ("eval", "source", ".", "exec", "command", "builtin", "trap",
                                "fc", "bind", "complete", "compgen", "compopt", "coproc")},
    **{name: _NAMES for name in ("read", "readarray", "mapfile", "printf", "declare",
                                 "typeset", "local", "export", "readonly", "unset", "let",
                                 "getopts", "wait", "shift")},
    **{name: _STATE for name in ("alias", "unalias", "enable", "hash", "set", "shopt",
                                 "ulimit", "umask")},
}

#: every builtin's rule: inert ones check their arguments, the rest refuse
BUILTIN_RULES: Final[Mapping[str, Rule]] = {
    **{name: _OTHER for name in _ALL_BUILTINS},
    **{name: rule for name, rule in _REFUSED.items() if name not in _INERT_RULES},
    **_INERT_RULES,
}
