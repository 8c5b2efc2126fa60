"""Wrappers and shells: programs whose job is to run something else.

- Six dispatch wrappers are seen through — `env`, `nice`, `nohup`, `timeout`, `stdbuf`,
  `setsid` — when every option is one their getopt grammar lists (abbreviations
  expanded): the command they run is judged, the wrapper itself needs no allowlist
  entry. They stop reading options at their first operand, so the command's own words
  are never theirs. `env -S`/`--split-string`, `-C`/`--chdir`, `-a`/`--argv0`,
  `-P` and any option not listed are refused.
- Every other program that runs a command is refused: `xargs` (input would supply the
  words), `watch`, `flock`, `time`, `busybox`/`toybox` (applets with options of their
  own), privilege and containment wrappers (`sudo`, `doas`, `chroot`, `unshare`, ...),
  tracers, schedulers and terminal multiplexers.
- `sh`, `bash` and `dash` with `-c` are judged by the script they run, read by the same
  syntax reader as the command; with more operands after the script (`sh -c '...' _ x`)
  they are refused, as is a shell reading commands from its input or given start-up
  files, and every other shell (`zsh`, `fish`, `ksh`, ... read the same text
  differently). A shell given a script file is judged as itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from clawharness.tools.exec_carried import Carried, Invocation, Rule, refuse
from clawharness.tools.exec_env_names import is_loader_or_interpreter_variable
from clawharness.tools.exec_options import Arity, OptionGrammar, ParsedOptions

__all__ = ["SHELLS", "WRAPPER_RULES"]

_N, _R, _O = Arity.NONE, Arity.REQUIRED, Arity.OPTIONAL
_INFO = {"help": _N, "version": _N}

def _then(inv: Invocation, index: int) -> Carried:
    """Judge `argv[index:]`; a wrapper with nothing after it runs nothing (it prints or
    fails), so it is judged as itself."""
    if index >= len(inv.argv):
        return Carried(judge_self=True, input_is_data=True)
    return Carried(judge_self=False, command_at=index, input_is_data=True)


def _wrapper(grammar: OptionGrammar, *, leading_operands: int = 0) -> Rule:
    def rule(inv: Invocation) -> Carried:
        parsed = grammar.parse(inv.argv)
        if isinstance(parsed, str):
            return refuse(parsed)
        return _then(inv, parsed.first_operand + leading_operands)

    return rule


_ENV_GRAMMAR: Final = OptionGrammar(
    "env", stop_at_operand=True,
    shorts={"i": _N, "0": _N, "u": _R, "v": _N},
    longs={"ignore-environment": _N, "null": _N, "unset": _R, "debug": _N, **_INFO},
    refused={"-S": "re-splits a string into a command, which this policy does not follow",
             "--split-string": "re-splits a string into a command, which this policy does "
                               "not follow",
             "-C": "changes the directory the command runs in",
             "--chdir": "changes the directory the command runs in",
             "-P": "changes where the command is looked up",
             "-a": "changes the name the command is run under (a multi-call program picks "
                   "what to run by it)",
             "--argv0": "changes the name the command is run under (a multi-call program "
                        "picks what to run by it)",
             "--default-signal": "changes signal handling", "--ignore-signal":
             "changes signal handling", "--block-signal": "changes signal handling",
             "--list-signal-handling": "changes signal handling"})


def _env(inv: Invocation) -> Carried:
    argv = inv.argv
    # `env -` is `env -i`; getopt would read `-` as an operand
    start = 1
    while start < len(argv) and argv[start] == "-":
        start += 1
    parsed = _ENV_GRAMMAR.parse(argv, start)
    if isinstance(parsed, str):
        return refuse(parsed)
    i = parsed.first_operand
    # env takes any word with `=` as NAME=VALUE, even a name the shell would not
    # (`BASH_FUNC_ls%%=...`, `=x`)
    while i < len(argv) and "=" in argv[i]:
        name = argv[i].split("=", 1)[0]
        if not name:
            return refuse(f"env: {argv[i]!r} sets a variable with no name")
        if is_loader_or_interpreter_variable(name):
            return refuse(f"env sets {name}, a variable that changes what a program loads "
                          "or runs")
        i += 1
    if i >= len(argv):
        return Carried(judge_self=True, input_is_data=True)  # prints the environment
    return Carried(judge_self=False, command_at=i, input_is_data=True)


def _nice(inv: Invocation) -> Carried:
    argv = inv.argv
    # coreutils reads the old `-N`, `--N` and `-+N` adjustments itself before getopt
    start = 1
    while start < len(argv):
        word = argv[start]
        digit_at = 2 if word[1:2] in ("-", "+") else 1
        if word.startswith("-") and word[digit_at : digit_at + 1] in tuple("0123456789"):
            start += 1
            continue
        break
    parsed = OptionGrammar("nice", stop_at_operand=True, shorts={"n": _R},
                           longs={"adjustment": _R, **_INFO}).parse(argv, start)
    if isinstance(parsed, str):
        return refuse(parsed)
    return _then(inv, parsed.first_operand)


def _refused(why: str) -> Rule:
    def rule(inv: Invocation) -> Carried:
        return refuse(f"{inv.name} {why}")

    return rule


_PRIVILEGE = "runs its command as another user or with other privileges"
_CONTAINED = "runs its command in another root, namespace or sandbox"
_TRACED = "runs its command under a tracer or debugger"
_OPAQUE = "runs a command this policy does not see through"

WRAPPER_RULES: Final[dict[str, Rule]] = {
    "env": _env,
    "nice": _nice,
    "nohup": _wrapper(OptionGrammar("nohup", stop_at_operand=True, longs=_INFO)),
    "stdbuf": _wrapper(OptionGrammar("stdbuf", stop_at_operand=True,
                                     shorts={"i": _R, "o": _R, "e": _R},
                                     longs={"input": _R, "output": _R, "error": _R, **_INFO})),
    "timeout": _wrapper(OptionGrammar(
        "timeout", stop_at_operand=True, shorts={"k": _R, "s": _R, "v": _N},
        longs={"kill-after": _R, "signal": _R, "verbose": _N, "foreground": _N,
               "preserve-status": _N, **_INFO}), leading_operands=1),
    "setsid": _wrapper(OptionGrammar("setsid", stop_at_operand=True,
                                     shorts={"c": _N, "f": _N, "w": _N},
                                     longs={"ctty": _N, "fork": _N, "wait": _N, **_INFO})),
    **{name: _refused(_PRIVILEGE) for name in (
        "sudo", "doas", "su", "runuser", "pkexec", "sg", "newgrp", "setpriv", "capsh",
        "sudoedit", "run0", "setuidgid", "chpst", "start-stop-daemon", "daemonize")},
    **{name: _refused(_CONTAINED) for name in (
        "chroot", "unshare", "nsenter", "systemd-run", "systemd-nspawn", "firejail", "bwrap",
        "fakeroot", "fakechroot", "proot", "sandbox-exec", "nsjail", "chrt", "arch",
        "xcrun", "setarch", "linux32", "linux64", "ionice", "taskset", "cpulimit",
        "prlimit", "numactl", "cgexec", "docker", "podman", "lxc-attach")},
    **{name: _refused(_TRACED) for name in (
        "strace", "ltrace", "gdb", "lldb", "valgrind", "perf", "catchsegv", "rr",
        "uftrace", "bpftrace", "dtrace")},
    **{name: _refused(_OPAQUE) for name in (
        "xargs", "watch", "flock", "time", "busybox", "toybox", "coreutils", "script",
        "unbuffer", "expect", "parallel", "ssh-agent", "dbus-run-session", "dbus-launch",
        "xvfb-run", "torsocks", "proxychains", "proxychains4", "tsocks", "caffeinate",
        "chronic", "entr", "at", "batch", "crontab", "tmux", "screen", "byobu", "dtach",
        "abduco", "nq", "ts", "sem", "rlwrap", "stdbuf64", "sensible-editor",
        "sensible-pager", "sensible-browser", "run-parts", "inotifywait", "find-exec",
        "pexec", "rush", "doit", "nohup64", "socat", "x-terminal-emulator", "xterm",
        "gnome-terminal", "konsole", "open", "xdg-open", "gio", "kioclient", "exo-open")},
}


# --- shells -----------------------------------------------------------------------------

#: shells whose `-c` text the syntax reader reads as they do
SHELLS: Final = frozenset({"sh", "bash", "dash"})
_OTHER_SHELLS: Final = frozenset({
    "zsh", "ksh", "ksh93", "mksh", "ash", "yash", "posh", "rbash", "lksh", "oksh", "pdksh",
    "fish", "csh", "tcsh", "es", "rc", "elvish", "nu", "xonsh", "ion", "pwsh", "powershell",
    "scsh"})

#: `-o` names that change nothing about what runs
_SHELL_SET_OPTIONS: Final = frozenset({"errexit", "nounset", "pipefail", "noglob",
                                       "noclobber", "posix"})


def _shell_grammar(name: str) -> OptionGrammar:
    return OptionGrammar(
        name, stop_at_operand=True, abbreviations=False,
        shorts={"c": _N, "e": _N, "u": _N, "f": _N, "l": _N, "o": _R},
        longs={"login": _N, "noprofile": _N, "norc": _N, "posix": _N, "version": _N,
               "help": _N},
        refused={"-s": "reads commands from its input, which this policy cannot see",
                 "-i": "starts an interactive shell, which reads start-up files and input",
                 "-x": "traces with PS4, which the shell expands (and can run commands)",
                 "--rcfile": "runs a start-up file this policy cannot see",
                 "--init-file": "runs a start-up file this policy cannot see"})


_SHELL_GRAMMARS: Final = {name: _shell_grammar(name) for name in ("sh", "bash", "dash")}


def _shell_options(parsed: ParsedOptions, name: str) -> str | None:
    for option in parsed.values("-o"):
        if option not in _SHELL_SET_OPTIONS:
            return f"{name} -o {option} is not a setting this policy knows to be harmless"
    return None


def _shell(inv: Invocation) -> Carried:
    name = inv.name
    argv: Sequence[str] = inv.argv
    parsed = _SHELL_GRAMMARS.get(name, _SHELL_GRAMMARS["sh"]).parse(argv)
    if isinstance(parsed, str):
        return refuse(parsed)
    problem = _shell_options(parsed, name)
    if problem is not None:
        return refuse(problem)
    operands = [argv[i] for i in parsed.operands]
    if operands and operands[0].startswith("+"):
        return refuse(f"{name}: options given with + ({operands[0]}) are not ones this "
                      "policy reads")
    if parsed.has("-c"):
        if not operands:
            return refuse(f"{name} -c is given no command")
        if len(operands) > 1:
            return refuse(f"{name} -c with arguments after its script (they become $0, $1, "
                          "... which the script could run)")
        return Carried(judge_self=False, scripts=(operands[0],), input_is_data=True)
    if not operands or operands[0] == "-" or operands[0].startswith(("/dev/", "/proc/")):
        return refuse(f"{name} would read commands from its input, which this policy cannot "
                      "see")
    return Carried(judge_self=True, input_is_data=True)  # a script file: the shell's entry


def _other_shell(inv: Invocation) -> Carried:
    return refuse(f"{inv.name} is a shell whose syntax this policy does not read (only sh, "
                  "bash and dash scripts are analysed)")


SHELL_RULES: Final[Mapping[str, Rule]] = {
    **{name: _shell for name in SHELLS},
    **{name: _other_shell for name in _OTHER_SHELLS},
}
WRAPPER_RULES.update(SHELL_RULES)
