"""Programs with an option or form that runs another program, and the table of all rules.

Each program here is allowed only with a known-safe set of arguments:

- a full option grammar where the options are few (`awk`, `sed`, `make`, `man`): any
  option not listed is refused, long options matched as getopt matches abbreviations;
- the options that start a program, matched by any abbreviation, where the options are
  many: `tar` (`-I`, `--to-command`, `--checkpoint-action`, `--info-script`, a remote
  `host:archive`), `sort --compress-program`, `zip -T`/`-TT`/`--unzip-command`, `wget
  --use-askpass`/`-e`, `sdiff --diff-program`/`-o` (its merge prompt starts an editor),
  `diff3 --diff-program`, `diff -l`, `less` (`--lesskey-src`, `-k`, log files, `+cmd`),
  `rsync -e`/`--rsh`/`--rsync-path`, `ssh -o ProxyCommand|LocalCommand|...`/`-F`,
  `scp -S`, `rg --pre`/`-z`, `nc -e`/`-c`, `split --filter`, `install --strip-program`,
  `groff -U`;
- `find` with `-exec`, `-execdir`, `-ok` or `-okdir`, and every `xargs`, are refused:
  the policy does not follow commands built from file names or input.

`rule_for` is the one table: bash builtins, wrappers and shells, these programs,
interpreters and editors, and `INERT_PROGRAMS`, the programs known to have no option that
runs anything (they may be given glob words and piped input).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from dataclasses import replace
from typing import Final

from clawharness.tools.exec_awk import awk_program_problem
from clawharness.tools.exec_builtins import BUILTIN_RULES
from clawharness.tools.exec_carried import INERT, Carried, Invocation, Rule, refuse
from clawharness.tools.exec_git import git_rule
from clawharness.tools.exec_interpreters import INTERPRETER_RULES, reads_code_from_input
from clawharness.tools.exec_options import Arity, OptionGrammar, find_refused_option
from clawharness.tools.exec_sed import sed_script_problem
from clawharness.tools.exec_wrappers import WRAPPER_RULES

__all__ = ["INERT_PROGRAMS", "rule_for"]

_N, _R, _O = Arity.NONE, Arity.REQUIRED, Arity.OPTIONAL
_INFO = {"help": _N, "version": _N}
_STARTS = "names a program to run"

#: programs with no option that runs another program or reads code
INERT_PROGRAMS: Final = frozenset({
    "ls", "dir", "vdir", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "cut",
    "tr", "uniq", "nl", "paste", "join", "comm", "fold", "fmt", "expand", "unexpand", "rev",
    "tac", "od", "hexdump", "xxd", "strings", "base64", "base32", "basenc", "md5sum",
    "sha1sum", "sha224sum", "sha256sum", "sha384sum", "sha512sum", "b2sum", "cksum", "sum",
    "stat", "du", "df", "date", "id", "whoami", "groups", "uname", "tee", "seq", "yes",
    "sleep", "true", "false", "pwd", "basename", "dirname", "realpath", "readlink", "touch",
    "mkdir", "rmdir", "cp", "mv", "rm", "ln", "chmod", "chgrp", "truncate", "mktemp",
    "printenv", "nproc", "tree", "column", "jq", "gzip", "gunzip", "zcat", "bzip2",
    "bunzip2", "bzcat", "xz", "unxz", "xzcat", "zstd", "unzstd", "zstdcat", "cmp", "numfmt",
    "shuf", "tsort", "factor", "expr", "echo", "printf", "test", "[", "look", "ptx",
    "csplit", "unlink", "link", "sync", "tty", "logname", "users", "who", "hostid",
    "pathchk", "dircolors"})

_GRAMMAR_TAKES_PROGRAM = "runs a program file this policy cannot see"


def _grammar_rule(grammar: OptionGrammar) -> Rule:
    def rule(inv: Invocation) -> Carried:
        parsed = grammar.parse(inv.argv)
        if isinstance(parsed, str):
            return refuse(parsed)
        return Carried(input_is_data=True)

    return rule


def _refusing(program: str, refused: Mapping[str, str], *, old_style_cluster: bool = False,
              plus_commands: bool = False) -> Rule:
    """Refuse the options (any abbreviation) that start a program; otherwise plain."""
    shorts = {name[1:] for name in refused if len(name) == 2 and name[0] == "-"}

    def rule(inv: Invocation) -> Carried:
        argv = inv.argv
        if old_style_cluster and len(argv) > 1 and not argv[1].startswith("-"):
            for letter in argv[1]:
                if letter in shorts:
                    return refuse(f"{program} -{letter} {refused['-' + letter]}")
        if plus_commands and any(word.startswith("+") for word in argv[1:]):
            return refuse(f"{program} +cmd runs its commands, which can start programs")
        problem = find_refused_option(argv, refused, program=program)
        return refuse(problem) if problem else Carried(input_is_data=True)

    return rule


# --- find, awk, sed, make, man ------------------------------------------------------------

_FIND_RUNS: Final = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def _find(inv: Invocation) -> Carried:
    for word in inv.argv[1:]:
        if word in _FIND_RUNS:
            return refuse(f"find {word} runs a command built from file names, which this "
                          "policy does not follow")
    return Carried(input_is_data=True)


_AWK_GRAMMAR: Final = OptionGrammar(
    "awk", stop_at_operand=True,
    shorts={"F": _R, "v": _R, "e": _R},
    longs={"field-separator": _R, "assign": _R, "source": _R, "sandbox": _N, **_INFO},
    refused={"-f": _GRAMMAR_TAKES_PROGRAM, "--file": _GRAMMAR_TAKES_PROGRAM,
             "-E": _GRAMMAR_TAKES_PROGRAM, "--exec": _GRAMMAR_TAKES_PROGRAM,
             "-i": "includes a source file", "--include": "includes a source file",
             "-l": "loads an extension", "--load": "loads an extension",
             "-W": "takes implementation options this policy does not read"})


def _awk(inv: Invocation) -> Carried:
    parsed = replace(_AWK_GRAMMAR, program=inv.name).parse(inv.argv)
    if isinstance(parsed, str):
        return refuse(parsed)
    programs = parsed.values("-e", "--source")
    if not programs:
        if not parsed.operands:
            return refuse(f"{inv.name} is given no program")
        programs = [inv.argv[parsed.operands[0]]]
    for program in programs:
        problem = awk_program_problem(program)
        if problem is not None:
            return refuse(f"{inv.name}: {problem}")
    return Carried(input_is_data=True)


_SED_GRAMMAR: Final = OptionGrammar(
    "sed",
    shorts={"n": _N, "e": _R, "l": _R, "i": _O, "E": _N, "r": _N, "s": _N, "u": _N, "z": _N,
            "b": _N},
    longs={"quiet": _N, "silent": _N, "expression": _R, "line-length": _R, "in-place": _O,
           "regexp-extended": _N, "separate": _N, "unbuffered": _N, "null-data": _N,
           "zero-terminated": _N, "posix": _N, "debug": _N, "follow-symlinks": _N,
           "sandbox": _N, "binary": _N, **_INFO},
    refused={"-f": "runs a script file this policy cannot see",
             "--file": "runs a script file this policy cannot see"})


def _sed(inv: Invocation) -> Carried:
    parsed = _SED_GRAMMAR.parse(inv.argv)
    if isinstance(parsed, str):
        return refuse(parsed)
    scripts = parsed.values("-e", "--expression")
    if not scripts:
        if not parsed.operands:
            return refuse("sed is given no script")
        scripts = [inv.argv[parsed.operands[0]]]
    for script in scripts:
        problem = sed_script_problem(script)
        if problem:
            return refuse(f"sed: {problem}")
    return Carried(input_is_data=True)


_MAKE_GRAMMAR: Final = OptionGrammar(
    "make",
    shorts={"j": _O, "k": _N, "n": _N, "s": _N, "B": _N, "C": _R, "f": _R, "q": _N, "w": _N,
            "i": _N, "r": _N, "R": _N, "t": _N, "l": _O, "O": _O, "S": _N, "d": _N, "p": _N,
            "v": _N},
    longs={"jobs": _O, "keep-going": _N, "dry-run": _N, "just-print": _N, "recon": _N,
           "silent": _N, "quiet": _N, "always-make": _N, "directory": _R, "file": _R,
           "makefile": _R, "question": _N, "print-directory": _N, "no-print-directory": _N,
           "ignore-errors": _N, "no-builtin-rules": _N, "no-builtin-variables": _N,
           "touch": _N, "output-sync": _O, "load-average": _O, "max-load": _O, "stop": _N,
           "no-keep-going": _N, "debug": _O, "trace": _N, "no-silent": _N,
           "warn-undefined-variables": _N, "check-symlink-times": _N, **_INFO},
    refused={"--eval": "runs makefile text given on the command line",
             "-E": "runs makefile text given on the command line",
             "-e": "lets the environment override the makefile's variables",
             "--environment-overrides": "lets the environment override the makefile's "
                                        "variables",
             "-I": "searches other directories for included makefiles",
             "--include-dir": "searches other directories for included makefiles"})


def _make(inv: Invocation) -> Carried:
    parsed = _MAKE_GRAMMAR.parse(inv.argv)
    if isinstance(parsed, str):
        return refuse(parsed)
    for makefile in parsed.values("-f", "--file", "--makefile"):
        if reads_code_from_input(makefile):
            return refuse(f"make -f {makefile} reads a makefile from its input")
    for index in parsed.operands:
        if "=" in inv.argv[index]:
            return refuse(f"make {inv.argv[index]!r} overrides a variable, which changes "
                          "what its recipes run")
    return Carried(input_is_data=True)


_MAN_GRAMMAR: Final = OptionGrammar(
    "man", shorts={"k": _N, "f": _N, "a": _N, "w": _N, "W": _N},
    longs={"apropos": _N, "whatis": _N, "all": _N, "where": _N, "path": _N, "location": _N,
           "where-cat": _N, "location-cat": _N, **_INFO})


def _man(inv: Invocation) -> Carried:
    parsed = _MAN_GRAMMAR.parse(inv.argv)
    if isinstance(parsed, str):
        return refuse(parsed)
    if any("/" in inv.argv[i] for i in parsed.operands):
        return refuse("man given a file path formats a file this policy cannot see")
    return Carried(input_is_data=True)


def _tar(inv: Invocation) -> Carried:
    verdict = _TAR_OPTIONS(inv)
    if verdict.refusal is not None:
        return verdict
    if "--force-local" not in inv.argv:
        for word in inv.argv[1:]:
            if not word.startswith("-") and ":" in word.split("/", 1)[0]:
                return refuse(f"tar: {word!r} names a remote archive, which tar reaches by "
                              "running a remote shell program (--force-local reads it as a "
                              "file)")
    return verdict


_TAR_OPTIONS = _refusing("tar", {
    "--to-command": _STARTS, "--use-compress-program": _STARTS,
    "--checkpoint-action": "runs an action, which can be a command",
    "--info-script": _STARTS, "--new-volume-script": _STARTS, "--rsh-command": _STARTS,
    "--rmt-command": _STARTS, "-I": _STARTS, "-F": _STARTS}, old_style_cluster=True)


def _ssh_like(program: str, refused_letters: Mapping[str, str]) -> Rule:
    def rule(inv: Invocation) -> Carried:
        argv = inv.argv
        for index, word in enumerate(argv[1:], start=1):
            if not word.startswith("-") or word.startswith("--"):
                continue
            letters = word[1:]
            for k, letter in enumerate(letters):
                if letter == "o":
                    setting = letters[k + 1 :] or (argv[index + 1] if index + 1 < len(argv)
                                                   else "")
                    lowered = setting.strip().lower()
                    key = lowered.replace("=", " ").split(" ", 1)[0]
                    if "command" in key or "provider" in key or key.startswith(
                            ("match", "include", "proxyjump", "identityagent")):
                        return refuse(f"{program} -o {key} runs a local command, loads a "
                                      "library or reads more settings")
                    break
                if letter in refused_letters:
                    return refuse(f"{program} -{letter} {refused_letters[letter]}")
        return Carried(input_is_data=True)

    return rule


_CONFIG = "reads a config file, which can name programs to run"

PROGRAM_RULES: Final[dict[str, Rule]] = {
    "git": git_rule,
    "find": _find,
    **{name: _awk for name in ("awk", "gawk", "mawk", "nawk", "original-awk")},
    "sed": _sed, "gsed": _sed,
    "make": _make, "gmake": _make,
    "man": _man,
    "tar": _tar, "gtar": _tar,
    "sort": _refusing("sort", {"--compress-program": _STARTS}),
    "zip": _refusing("zip", {"--unzip-command": _STARTS, "--test": "runs unzip to test",
                             "-T": "runs unzip (or the program -TT names) to test"}),
    "wget": _refusing("wget", {"--use-askpass": _STARTS,
                               "--execute": "runs wgetrc commands, which can name programs",
                               "-e": "runs wgetrc commands, which can name programs",
                               "--config": _CONFIG}),
    "sdiff": _refusing("sdiff", {"--diff-program": _STARTS,
                                 "--output": "merges interactively; its prompt starts an "
                                             "editor",
                                 "-o": "merges interactively; its prompt starts an editor"}),
    "diff3": _refusing("diff3", {"--diff-program": _STARTS}),
    "diff": _refusing("diff", {"--paginate": "pipes its output through pr",
                               "-l": "pipes its output through pr"}),
    "less": _refusing("less", {
        "--lesskey-file": "reads key bindings, which can set programs to run",
        "--lesskey-src": "reads key bindings, which can set programs to run",
        "--lesskey-content": "reads key bindings, which can set programs to run",
        "-k": "reads key bindings, which can set programs to run",
        "--log-file": "writes a file", "--LOG-FILE": "writes a file",
        "-o": "writes a file", "-O": "writes a file",
        "--tag": "reads a tags file", "-t": "reads a tags file", "-T": "reads a tags file"},
        plus_commands=True),
    "rsync": _refusing("rsync", {"--rsh": _STARTS, "--rsync-path": _STARTS,
                                 "--remote-option": "passes options to the other side",
                                 "--daemon": "runs as a daemon", "--config": _CONFIG,
                                 "--server": "runs the server side", "-e": _STARTS,
                                 "-M": "passes options to the other side"}),
    "ssh": _ssh_like("ssh", {"F": _CONFIG, "I": "loads a PKCS#11 library"}),
    "scp": _ssh_like("scp", {"F": _CONFIG, "S": _STARTS}),
    "rg": _refusing("rg", {"--pre": _STARTS, "--search-zip": "runs decompression programs",
                           "-z": "runs decompression programs"}),
    **{name: _refusing(name, {"-e": _STARTS, "-c": "runs a shell command",
                              "--exec": _STARTS, "--sh-exec": "runs a shell command",
                              "--lua-exec": "runs a script"})
       for name in ("nc", "ncat", "netcat")},
    **{name: _refusing(name, {"-U": "runs in unsafe mode, which lets documents run "
                                    "commands"})
       for name in ("groff", "troff", "nroff", "grog")},
    "split": _refusing("split", {"--filter": "pipes each part to a shell command"}),
    "install": _refusing("install", {"--strip-program": _STARTS}),
}

#: multi-call programs pick what to run by the name they are called by, not their file
MULTI_CALL: Final = frozenset({"busybox", "toybox", "coreutils"})


def _lookup(name: str) -> Rule | None:
    for table in (BUILTIN_RULES, WRAPPER_RULES, PROGRAM_RULES):
        rule = table.get(name)
        if rule is not None:
            return rule
    for pattern, interpreter in INTERPRETER_RULES:
        if pattern.fullmatch(name):
            return interpreter
    if name in INERT_PROGRAMS:
        return _inert
    return None


def _inert(inv: Invocation) -> Carried:
    return INERT


@functools.lru_cache(maxsize=4096)
def rule_for(name: str) -> Rule | None:
    """The rule for a program by its lower-cased basename (`vim.basic` falls back to
    `vim`), or None for a program the policy knows nothing about."""
    rule = _lookup(name)
    if rule is None and "." in name.strip("."):
        rule = _lookup(name.split(".", 1)[0])
    return rule
