"""Wrappers, shells and interpreters: programs whose job is to run something else.

- Dispatch wrappers (`env`, `nice`, `nohup`, `stdbuf`, `time`, `timeout`, `setsid`,
  `ionice`, `taskset`, `flock`, `xargs`, `watch`, `command`, `exec`, `builtin`,
  `busybox`/`toybox` applets) are seen through: the command they run is judged, the
  wrapper itself needs no allowlist entry. An option the rule does not know is refused,
  since it might change what runs (as in the original, `env -S`, `env -C` are).
- Wrappers that change privilege, root or tracing (`sudo`, `doas`, `su`, `chroot`,
  `unshare`, `strace`, ...) are refused outright in allowlist mode.
- Shells with `-c` are judged by the script they run; a shell reading commands from its
  input is refused; a shell given a script file is judged as itself.
- Interpreters (`python`, `node`, `perl`, `ruby`, `php`, `lua`, ...) are judged as
  themselves when they run a script file; inline code (`-c`, `-e`, `--eval`, ...) and
  code read from standard input are refused, since the policy cannot see what they do.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Final

from clawharness.tools.exec_carried import PLAIN, Carried, refuse, scan_options
from clawharness.tools.exec_env_names import is_loader_or_interpreter_variable

__all__ = ["INTERPRETER_RULES", "SHELLS", "WRAPPER_RULES", "program_name"]

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def program_name(word: str) -> str:
    """The lower-cased basename a rule is looked up by (`/usr/bin/Env` -> `env`)."""
    return word.rsplit("/", 1)[-1].lower()


def _then(argv: Sequence[str], index: int) -> Carried:
    """Judge the command at `argv[index:]`; a wrapper with nothing after it runs nothing
    (it prints or fails), but words appended from input would become its command."""
    inner = tuple(argv[index:])
    if not inner:
        return Carried(judge_self=False, incomplete=True)
    return Carried(judge_self=False, commands=(inner,))


# --- dispatch wrappers ------------------------------------------------------------------


def _env(argv: Sequence[str]) -> Carried:
    i = 1
    while i < len(argv):
        token = argv[i]
        if token in ("-", "-i", "--ignore-environment", "-0", "--null", "-v", "--debug"):
            i += 1
        elif token == "--":
            i += 1
            break
        elif token in ("-u", "--unset"):
            i += 2
        elif token.startswith(("-u", "--unset=")):
            i += 1
        elif token.startswith(("-S", "--split-string")):
            return refuse("env -S re-splits a string into a command, which this policy "
                          "does not follow")
        elif token.startswith(("-C", "--chdir", "-P")):
            return refuse(f"env {token.split('=')[0]} changes where the command is looked "
                          "up or runs")
        elif token.startswith(("--default-signal", "--ignore-signal", "--block-signal",
                               "--list-signal-handling")):
            i += 1
        elif token.startswith("-"):
            return refuse(f"env: option {token!r} is not one this policy can see through")
        else:
            break
    # env takes any NAME=VALUE, even a name the shell would not (`BASH_FUNC_ls%%=...`)
    while i < len(argv) and "=" in argv[i][1:]:
        name = argv[i].split("=", 1)[0]
        if is_loader_or_interpreter_variable(name):
            return refuse(f"env sets {name}, a variable that changes what a program loads "
                          "or runs")
        i += 1
    inner = tuple(argv[i:])
    if not inner:
        return Carried(judge_self=True, incomplete=True)  # `env` alone prints the environment
    return Carried(judge_self=False, commands=(inner,))


def _nice(argv: Sequence[str]) -> Carried:
    i = 1
    while i < len(argv):
        token = argv[i]
        if token == "--":
            i += 1
            break
        if re.fullmatch(r"-\d+", token) or re.fullmatch(r"-n-?\d+", token) \
                or token.startswith("--adjustment="):
            i += 1
        elif token in ("-n", "--adjustment"):
            i += 2
        elif token.startswith("-"):
            return refuse(f"nice: option {token!r} is not one this policy can see through")
        else:
            break
    return _then(argv, i)


def _scanned(program: str, *, flags: tuple[str, ...] = (), valued: tuple[str, ...] = (),
             operands_before: int = 0) -> Callable[[Sequence[str]], Carried]:
    """A wrapper `program [options] [N leading operands] command...`."""

    def rule(argv: Sequence[str]) -> Carried:
        scan = scan_options(argv, flags=flags, valued=valued, program=program)
        if scan.refusal:
            return refuse(scan.refusal)
        return _then(argv, scan.operand_index + operands_before)

    return rule


def _time(argv: Sequence[str]) -> Carried:
    scan = scan_options(argv, program="time",
                        flags=("-p", "-v", "--verbose", "-q", "--quiet", "-l", "-h", "--help",
                               "-V", "--version"),
                        valued=("-f", "--format"))
    if scan.refusal:
        return refuse(scan.refusal + " (time -o writes a file)")
    return _then(argv, scan.operand_index)


def _ionice(argv: Sequence[str]) -> Carried:
    scan = scan_options(argv, program="ionice", flags=("-t", "--ignore", "-h", "--help"),
                        valued=("-c", "--class", "-n", "--classdata", "-p", "--pid", "-P",
                                "--pgid", "-u", "--uid"))
    if scan.refusal:
        return refuse(scan.refusal)
    if scan.has("-p", "--pid", "-P", "--pgid", "-u", "--uid"):
        return PLAIN  # changes a running process; runs nothing
    return _then(argv, scan.operand_index)


def _taskset(argv: Sequence[str]) -> Carried:
    scan = scan_options(argv, program="taskset",
                        flags=("-a", "--all-tasks", "-c", "--cpu-list", "-p", "--pid", "-h",
                               "--help", "-V", "--version"))
    if scan.refusal:
        return refuse(scan.refusal)
    if scan.has("-p", "--pid"):
        return PLAIN
    return _then(argv, scan.operand_index + 1)


def _flock(argv: Sequence[str]) -> Carried:
    scan = scan_options(argv, program="flock",
                        flags=("-s", "--shared", "-x", "-e", "--exclusive", "-u", "--unlock",
                               "-n", "--nb", "--nonblock", "-o", "--close", "-F", "--no-fork",
                               "--verbose", "-h", "--help", "-V", "--version"),
                        valued=("-w", "--wait", "--timeout", "-E", "--conflict-exit-code"))
    if scan.refusal:
        return refuse(scan.refusal)
    rest = list(argv[scan.operand_index + 1 :])  # after the lock file (or descriptor)
    if rest[:1] in (["-c"], ["--command"]):
        if len(rest) < 2:
            return Carried(judge_self=False, incomplete=True)
        return Carried(judge_self=False, scripts=(rest[1],))
    if not rest:
        return PLAIN  # `flock FD`: locks a descriptor, runs nothing
    return Carried(judge_self=False, commands=(tuple(rest),))


def _xargs(argv: Sequence[str]) -> Carried:
    scan = scan_options(argv, program="xargs",
                        flags=("-0", "--null", "-o", "--open-tty", "-p", "--interactive",
                               "-r", "--no-run-if-empty", "-t", "--verbose", "-x", "--exit",
                               "--show-limits", "--version", "--help"),
                        valued=("-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L",
                                "-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars",
                                "--process-slot-var"),
                        optional_attached=("-e", "--eof", "-i", "--replace", "-l",
                                           "--max-lines"))
    if scan.refusal:
        return refuse(scan.refusal)
    for name in scan.values("--process-slot-var"):
        if is_loader_or_interpreter_variable(name):
            return refuse(f"xargs sets {name}, a variable that changes what a program loads "
                          "or runs")
    inner = tuple(argv[scan.operand_index :]) or ("echo",)
    return Carried(judge_self=False, commands=(inner,))


def xargs_input_mode(argv: Sequence[str]) -> str:
    """The placeholder `xargs` splices its input into (`-I R`, `-i`), or "" when it
    appends input words to the command instead."""
    scan = scan_options(argv, program="xargs",
                        flags=("-0", "--null", "-o", "--open-tty", "-p", "--interactive",
                               "-r", "--no-run-if-empty", "-t", "--verbose", "-x", "--exit",
                               "--show-limits", "--version", "--help"),
                        valued=("-a", "--arg-file", "-d", "--delimiter", "-E", "-I", "-L",
                                "-n", "--max-args", "-P", "--max-procs", "-s", "--max-chars",
                                "--process-slot-var"),
                        optional_attached=("-e", "--eof", "-i", "--replace", "-l",
                                           "--max-lines"))
    for name, value in scan.seen:
        if name == "-I" and value:
            return value
        if name in ("-i", "--replace"):
            return value or "{}"
    return ""


def _watch(argv: Sequence[str]) -> Carried:
    scan = scan_options(argv, program="watch",
                        flags=("-b", "--beep", "-c", "--color", "-C", "--no-color", "-e",
                               "--errexit", "-g", "--chgexit", "-p", "--precise", "-r",
                               "--no-rerun", "-t", "--no-title", "-w", "--no-wrap", "-x",
                               "--exec", "-h", "--help", "-v", "--version"),
                        valued=("-n", "--interval", "-q", "--equexit"),
                        optional_attached=("-d", "--differences"))
    if scan.refusal:
        return refuse(scan.refusal)
    rest = argv[scan.operand_index :]
    if not rest:
        return Carried(judge_self=False, incomplete=True)
    if scan.has("-x", "--exec"):
        return Carried(judge_self=False, commands=(tuple(rest),))
    return Carried(judge_self=False, scripts=(" ".join(rest),))  # watch runs `sh -c`


def _command(argv: Sequence[str]) -> Carried:
    scan = scan_options(argv, program="command", flags=("-p", "-v", "-V"))
    if scan.refusal:
        return refuse(scan.refusal)
    if scan.has("-v", "-V"):
        return PLAIN  # describes a command, runs nothing
    return _then(argv, scan.operand_index)


def _eval(argv: Sequence[str]) -> Carried:
    if len(argv) < 2:
        return Carried(judge_self=False, incomplete=True)
    return Carried(judge_self=False, scripts=(" ".join(argv[1:]),))


def _multiplexer(argv: Sequence[str]) -> Carried:
    # `busybox sh -c ...` runs the applet named first
    if len(argv) < 2 or argv[1].startswith("-"):
        return PLAIN
    return Carried(judge_self=False, commands=(tuple(argv[1:]),))


def _refused(why: str) -> Callable[[Sequence[str]], Carried]:
    def rule(argv: Sequence[str]) -> Carried:
        return refuse(f"{program_name(argv[0])} {why}")

    return rule


_PRIVILEGE = "runs its command as another user or with other privileges"
_CONTAINED = "runs its command in another root, namespace or sandbox"
_TRACED = "runs its command under a tracer or debugger"
_OPAQUE = "runs a command this policy cannot see through"

WRAPPER_RULES: Final[dict[str, Callable[[Sequence[str]], Carried]]] = {
    "env": _env,
    "nice": _nice,
    "nohup": _scanned("nohup", flags=("--help", "--version")),
    "stdbuf": _scanned("stdbuf", valued=("-i", "--input", "-o", "--output", "-e", "--error")),
    "time": _time,
    "timeout": _scanned("timeout",
                        flags=("--foreground", "--preserve-status", "-v", "--verbose"),
                        valued=("-k", "--kill-after", "-s", "--signal"), operands_before=1),
    "setsid": _scanned("setsid", flags=("-c", "--ctty", "-f", "--fork", "-w", "--wait")),
    "ionice": _ionice,
    "taskset": _taskset,
    "flock": _flock,
    "xargs": _xargs,
    "watch": _watch,
    "command": _command,
    "exec": _scanned("exec", flags=("-c", "-l"), valued=("-a",)),
    "builtin": lambda argv: _then(argv, 1),
    "eval": _eval,
    "busybox": _multiplexer,
    "toybox": _multiplexer,
    **{name: _refused(_PRIVILEGE) for name in (
        "sudo", "doas", "su", "runuser", "pkexec", "sg", "newgrp", "setpriv", "capsh")},
    **{name: _refused(_CONTAINED) for name in (
        "chroot", "unshare", "nsenter", "systemd-run", "firejail", "bwrap", "fakeroot",
        "fakechroot", "proot", "sandbox-exec", "nsjail", "chrt", "arch", "xcrun")},
    **{name: _refused(_TRACED) for name in (
        "strace", "ltrace", "gdb", "lldb", "valgrind", "perf", "catchsegv")},
    **{name: _refused(_OPAQUE) for name in (
        "script", "unbuffer", "expect", "parallel", "ssh-agent", "dbus-run-session",
        "dbus-launch", "xvfb-run", "torsocks", "proxychains", "proxychains4", "tsocks",
        "caffeinate", "chronic", "entr", "at", "batch", "crontab", "tmux", "screen",
        "source", ".")},
}


# --- shells -----------------------------------------------------------------------------

SHELLS: Final = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh",
                           "rbash", "lksh", "oksh", "fish"})

_SHELL_LONG_FLAGS: Final = frozenset({
    "--login", "--noprofile", "--norc", "--posix", "--restricted", "--verbose",
    "--noediting", "--version", "--help", "--dump-strings", "--dump-po-strings",
    "--no-config", "--private", "--interactive", "--no-execute"})


def _shell(argv: Sequence[str]) -> Carried:
    name = program_name(argv[0])
    command_mode = stdin_mode = False
    i = 1
    while i < len(argv):
        token = argv[i]
        if token in ("--", "-"):
            i += 1
            break
        if token.startswith("--"):
            option, eq, value = token.partition("=")
            if option == "--command":  # fish
                if eq:
                    return Carried(judge_self=False, scripts=(value,))
                command_mode = True
            elif option in ("--rcfile", "--init-file", "--init-command", "--profile"):
                return refuse(f"{name} {option} runs start-up commands this policy cannot see")
            elif option not in _SHELL_LONG_FLAGS:
                return refuse(f"{name}: option {option!r} is not one this policy can see "
                              "through")
            i += 1
            continue
        if token[0] not in "-+" or len(token) < 2:
            break
        letters = token[1:]
        if name == "fish" and "C" in letters:
            return refuse("fish -C runs start-up commands this policy cannot see")
        if "c" in letters:
            command_mode = True
        if "s" in letters:
            stdin_mode = True
        if letters[-1] in "oO":
            i += 1  # `-o option` / `-O shopt` take the option's name
        i += 1
    operands = argv[i:]
    if command_mode:
        if not operands:
            return Carried(judge_self=False, incomplete=True)
        return Carried(judge_self=False, scripts=(operands[0],))
    if stdin_mode or not operands:
        return refuse(f"{name} would read commands from its input, which this policy cannot "
                      "see")
    return PLAIN  # a script file: the shell's own entry decides


# --- interpreters -----------------------------------------------------------------------


def _interpreter(*, inline: tuple[str, ...], cluster_inline: str = "",
                 cluster_valued: str = "", valued: tuple[str, ...] = (),
                 module: str = "",
                 informational: tuple[str, ...] = ("--version", "-V", "--help", "-h"),
                 ) -> Callable[[Sequence[str]], Carried]:
    """An interpreter: inline code flags refuse, a script operand is judged as the
    interpreter, no operand means code from standard input (refused)."""

    def rule(argv: Sequence[str]) -> Carried:
        name = program_name(argv[0])
        i = 1
        informative = False
        while i < len(argv):
            token = argv[i]
            if token == "--":
                i += 1
                break
            if token == "-":
                return refuse(f"{name} - reads code from its input, which this policy "
                              "cannot see")
            if not token.startswith("-"):
                break
            option = token.split("=", 1)[0]
            if option in inline:
                return refuse(f"{name} {option} runs inline code, which this policy cannot "
                              "judge; run a script file instead")
            if token in informational:
                informative = True
                i += 1
                continue
            if option in valued:
                i += 1 if "=" in token else 2
                continue
            if not token.startswith("--"):
                letters = token[1:]
                for k, letter in enumerate(letters):
                    if letter in cluster_inline:
                        return refuse(f"{name} -{letter} runs inline code, which this policy "
                                      "cannot judge; run a script file instead")
                    if module and letter in module:
                        return PLAIN  # runs a module: the interpreter's own entry decides
                    if letter in cluster_valued:
                        if k == len(letters) - 1:
                            i += 1  # the value is the next word
                        break
            i += 1
        if i < len(argv) or informative:
            return PLAIN
        return refuse(f"{name} with no script would read code from its input, which this "
                      "policy cannot see")

    return rule


_PYTHON = _interpreter(inline=("--command",), cluster_inline="c", cluster_valued="WXQ",
                       module="m", valued=("--check-hash-based-pycs",))
_NODE = _interpreter(inline=("-e", "--eval", "-p", "--print"),
                     valued=("-r", "--require", "--import", "--loader",
                             "--experimental-loader", "-C", "--conditions", "--input-type",
                             "--title", "--inspect-port", "--env-file"))
_PERL = _interpreter(inline=(), cluster_inline="eE", cluster_valued="IMmxild0CD")
_RUBY = _interpreter(inline=(), cluster_inline="e", cluster_valued="IrCExFiK0W")
_PHP = _interpreter(inline=("-r", "--run", "-R", "--process-code", "-B", "--process-begin",
                            "-E", "--process-end", "-a", "--interactive"),
                    valued=("-f", "--file", "-d", "--define", "-c", "--php-ini", "-z",
                            "--zend-extension", "-S", "-t"))
_LUA = _interpreter(inline=("-i",), cluster_inline="e", cluster_valued="l")
_EVAL_FLAG = _interpreter(inline=("-e", "--eval", "--expr", "-E", "--print", "-c",
                                  "-command", "-Command", "-EncodedCommand", "-ec"))

INTERPRETER_RULES: Final[tuple[tuple[re.Pattern[str], Callable[[Sequence[str]], Carried]],
                               ...]] = (
    (re.compile(r"(?:python|pypy)[0-9.]*(?:-dbg)?"), _PYTHON),
    (re.compile(r"node(?:js)?|bun"), _NODE),
    (re.compile(r"perl[0-9.]*"), _PERL),
    (re.compile(r"ruby[0-9.]*|jruby"), _RUBY),
    (re.compile(r"php[0-9.]*(?:-cli)?"), _PHP),
    (re.compile(r"lua(?:jit)?[0-9.]*"), _LUA),
    (re.compile(r"rscript|osascript|julia|pwsh|powershell|tclsh[0-9.]*|wish[0-9.]*"),
     _EVAL_FLAG),
    (re.compile(r"deno"), lambda argv: (
        refuse(f"deno {argv[1]} runs inline code, which this policy cannot judge")
        if len(argv) > 1 and argv[1] in ("eval", "repl") else
        refuse("deno with no command starts a REPL that reads code from its input")
        if len(argv) == 1 else PLAIN)),
    (re.compile(r"irb|ghci|jshell"), _refused("is an interactive interpreter that reads "
                                              "code from its input")),
)

WRAPPER_RULES.update({shell: _shell for shell in SHELLS})
