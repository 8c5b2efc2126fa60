"""Programs with an option or form that runs another program: each judged or refused.

`git` (config that runs programs: `-c alias.*`, `-c core.*`, hooks paths, pagers,
`config` writes, `rebase --exec`, `bisect run`, `submodule foreach`, upload-pack and
ext:: transports), `find -exec/-execdir/-ok/-okdir` (the command is judged), `awk`
programs that call `system()` or pipes, `sed` scripts with `e`/`w`, and the options of
`tar`, `rsync`, `ssh`/`scp`/`sftp`, `rg`, `vim`, `emacs`, `man`, `sort`, `wget` and `zip`
that name a program to start.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final

from clawharness.tools.exec_carried import PLAIN, Carried, refuse, scan_options
from clawharness.tools.exec_sed import sed_script_problem

__all__ = ["PROGRAM_RULES"]


# --- git --------------------------------------------------------------------------------

_GIT_VALUED_GLOBALS: Final = frozenset({
    "-C", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--list-cmds",
    "--attr-source"})
_GIT_FLAG_GLOBALS: Final = frozenset({
    "-p", "--paginate", "-P", "--no-pager", "--bare", "--no-replace-objects",
    "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs",
    "--no-optional-locks", "--no-advice", "--html-path", "--man-path", "--info-path",
    "--version", "-v", "--help", "-h", "--exec-path"})
#: settings a command line may change: presentation and identity, nothing that names a
#: program, a hook, a helper or a transport
_GIT_SAFE_KEYS: Final = frozenset({
    "user.name", "user.email", "core.quotepath", "init.defaultbranch", "column.ui",
    "log.decorate", "log.date", "pull.rebase", "pull.ff", "merge.ff", "fetch.prune",
    "status.short", "status.branch", "diff.noprefix", "diff.renames", "push.default",
    "core.autocrlf", "rebase.autosquash", "commit.verbose", "core.abbrev"})
_GIT_SAFE_PREFIXES: Final = ("color.", "advice.", "i18n.")
_GIT_TRANSPORT_OPTIONS: Final = ("--upload-pack", "--receive-pack", "--exec")


def _git_config_problem(assignment: str) -> str | None:
    key, _, value = assignment.partition("=")
    lowered = key.strip().lower()
    if lowered.startswith("alias."):
        kind = "a shell alias" if value.lstrip().startswith("!") else "an alias"
        return f"-c {key} defines {kind}, which can run any command"
    if lowered in _GIT_SAFE_KEYS or lowered.startswith(_GIT_SAFE_PREFIXES):
        return None
    return (f"-c {key} is a setting this policy does not let a command change (settings "
            "such as core.*, pager.*, diff.*, filter.* and credential.* make git run "
            "programs)")


def _has_short(tokens: Sequence[str], letter: str) -> bool:
    return any(t.startswith("-") and not t.startswith("--") and letter in t[1:]
               for t in tokens)


def _has_long(tokens: Sequence[str], *names: str) -> str | None:
    for token in tokens:
        option = token.split("=", 1)[0]
        if option in names:
            return option
    return None


def _git_config_subcommand(rest: Sequence[str]) -> str | None:
    reads = {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color",
             "--get-colorbool", "-l", "--list"}
    writes = {"--add", "--replace-all", "--unset", "--unset-all", "--rename-section",
              "--remove-section", "-e", "--edit", "set", "unset", "rename-section",
              "remove-section", "edit"}
    if rest[:1] in (["get"], ["list"]) or any(t in reads for t in rest):
        return None
    if any(t.split("=", 1)[0] in writes for t in rest):
        return "git config would change a setting, which can make git run programs later"
    valued = {"-f", "--file", "--blob", "--type", "--default", "--comment"}
    positional = 0
    skip = False
    for token in rest:
        if skip:
            skip = False
        elif token in valued:
            skip = True
        elif not token.startswith("-"):
            positional += 1
    if positional >= 2:
        return "git config would change a setting, which can make git run programs later"
    return None


def _git_subcommand_problem(sub: str, rest: Sequence[str]) -> str | None:
    if sub == "config":
        return _git_config_subcommand(rest)
    if sub in ("filter-branch", "instaweb", "web--browse", "send-email"):
        return f"git {sub} runs commands or programs given to it"
    if sub == "rebase" and (_has_long(rest, "--exec") or _has_short(rest, "x")):
        return "git rebase --exec runs a command"
    if sub == "bisect" and rest[:1] == ["run"]:
        return "git bisect run runs a command"
    if sub == "submodule" and "foreach" in rest:
        return "git submodule foreach runs a command"
    if sub == "difftool" and (_has_long(rest, "--extcmd") or _has_short(rest, "x")):
        return "git difftool --extcmd runs a command"
    if sub == "grep" and (_has_long(rest, "--open-files-in-pager") or _has_short(rest, "O")):
        return "git grep -O starts a pager program"
    if sub == "help" and (_has_long(rest, "--web") or _has_short(rest, "w")):
        return "git help --web starts a browser"
    transport = _has_long(rest, *_GIT_TRANSPORT_OPTIONS)
    if transport:
        return f"git {sub} {transport} names a program to run"
    if sub in ("clone", "init"):
        if _has_long(rest, "--template"):
            return f"git {sub} --template installs hooks, which run programs"
        if sub == "clone" and _has_short(rest, "u"):
            return "git clone -u names a program to run"
        for index, token in enumerate(rest):
            if sub != "clone":
                break
            if token in ("-c", "--config") and index + 1 < len(rest):
                problem = _git_config_problem(rest[index + 1])
            elif token.startswith("--config="):
                problem = _git_config_problem(token.split("=", 1)[1])
            else:
                continue
            if problem:
                return problem
    return None


def _git(argv: Sequence[str]) -> Carried:
    i = 1
    while i < len(argv) and argv[i].startswith("-"):
        token = argv[i]
        option, eq, _ = token.partition("=")
        if token == "-c" or (token.startswith("-c") and not token.startswith("--")):
            setting = token[2:] or (argv[i + 1] if i + 1 < len(argv) else "")
            problem = _git_config_problem(setting)
            if problem:
                return refuse(f"git {problem}")
            i += 1 if token[2:] else 2
        elif option == "--config-env":
            return refuse("git --config-env sets config from the environment, which this "
                          "policy does not let a command do")
        elif option == "--exec-path" and eq:
            return refuse("git --exec-path= changes where git finds the programs it runs")
        elif option in _GIT_VALUED_GLOBALS:
            i += 1 if eq else 2
        elif token in _GIT_FLAG_GLOBALS:
            i += 1
        else:
            return refuse(f"git: option {option!r} is not one this policy can see through")
    if any("ext::" in token for token in argv[i:]):
        return refuse("git: an ext:: URL runs a command as its transport")
    if i >= len(argv):
        return PLAIN
    problem = _git_subcommand_problem(argv[i], argv[i + 1 :])
    return refuse(problem) if problem else PLAIN


# --- find, awk, sed ---------------------------------------------------------------------

_FIND_EXEC: Final = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def _find(argv: Sequence[str]) -> Carried:
    commands: list[tuple[str, ...]] = []
    i = 1
    while i < len(argv):
        if argv[i] not in _FIND_EXEC:
            i += 1
            continue
        start = i + 1
        end = start
        while end < len(argv) and argv[end] not in (";", "+"):
            end += 1
        if end >= len(argv):
            return refuse(f"find {argv[i]} has no terminating ';' or '+'")
        if end == start:
            return refuse(f"find {argv[i]} names no command")
        commands.append(tuple(argv[start:end]))
        i = end + 1
    return Carried(judge_self=True, commands=tuple(commands))


_AWK_SANDBOX: Final = ("-S", "--sandbox")


def _awk_program_problem(program: str) -> str | None:
    text = program.replace("||", "")
    for marker, why in (("system", "calls system(), which runs a command"),
                        ("|", "pipes to or from a command"),
                        ("@load", "loads an extension"), ("@include", "includes a file"),
                        ("/inet", "opens a network connection")):
        if marker in text:
            return f"its program {why}"
    return None


def _awk(argv: Sequence[str]) -> Carried:
    name = argv[0].rsplit("/", 1)[-1]
    programs: list[str] = []
    sandbox = False
    i = 1
    while i < len(argv):
        token = argv[i]
        option = token.split("=", 1)[0]
        if token == "--":
            i += 1
            break
        if not token.startswith("-") or token == "-":
            break
        if option in ("-f", "--file", "-E", "--exec", "-i", "--include", "-l", "--load"):
            return refuse(f"{name} {option} runs a program file this policy cannot see")
        if token.startswith("-W"):
            return refuse(f"{name} -W options are not ones this policy can see through")
        if token in _AWK_SANDBOX:
            sandbox = True
            i += 1
            continue
        if option in ("-e", "--source"):
            if "=" in token:
                programs.append(token.split("=", 1)[1])
                i += 1
            elif i + 1 < len(argv):
                programs.append(argv[i + 1])
                i += 2
            else:
                return Carried(incomplete=True)
            continue
        if token in ("-F", "-v", "--field-separator", "--assign"):
            i += 2
            continue
        i += 1  # -F: / -vname=value / other flags
    if not programs:
        if i >= len(argv):
            return Carried(incomplete=True)
        programs.append(argv[i])
    if not sandbox:
        for program in programs:
            problem = _awk_program_problem(program)
            if problem:
                return refuse(f"{name}: {problem}")
    return Carried(judge_self=True, code=tuple(programs))


def _sed(argv: Sequence[str]) -> Carried:
    scan = scan_options(argv, program="sed",
                        flags=("-n", "--quiet", "--silent", "-E", "-r", "--regexp-extended",
                               "-s", "--separate", "-u", "--unbuffered", "-z", "--null-data",
                               "--posix", "--debug", "--follow-symlinks", "-b", "--binary",
                               "--sandbox", "--help", "--version"),
                        valued=("-e", "--expression", "-f", "--file", "-l", "--line-length"),
                        optional_attached=("-i", "--in-place"))
    if scan.refusal:
        return refuse(scan.refusal)
    if scan.has("-f", "--file"):
        return refuse("sed -f runs a script file this policy cannot see")
    scripts = scan.values("-e", "--expression")
    if not scripts:
        if scan.operand_index >= len(argv):
            return Carried(incomplete=True)
        scripts = [argv[scan.operand_index]]
    if not scan.has("--sandbox"):
        for script in scripts:
            problem = sed_script_problem(script)
            if problem:
                return refuse(f"sed: {problem}")
    return Carried(judge_self=True, code=tuple(scripts))


# --- programs with an option that names another program --------------------------------


def _options_refused(program: str, long_options: tuple[str, ...], short_letters: str = "",
                     *, first_word_cluster: bool = False) -> Callable[[Sequence[str]], Carried]:
    """Refuse when one of the options that name a program to start appears."""

    def rule(argv: Sequence[str]) -> Carried:
        for index, token in enumerate(argv[1:], start=1):
            option = token.split("=", 1)[0]
            if option in long_options:
                return refuse(f"{program} {option} names a program to run")
            is_cluster = token.startswith("-") and not token.startswith("--")
            if first_word_cluster and index == 1 and not token.startswith("-"):
                is_cluster = True  # `tar xIf ...`: the old-style option letters
            letters = token[1:] if token.startswith("-") else token
            if is_cluster and short_letters and any(c in short_letters for c in letters):
                letter = next(c for c in letters if c in short_letters)
                return refuse(f"{program} -{letter} names a program to run")
        return PLAIN

    return rule


def _ssh_setting_problem(program: str, setting: str) -> str | None:
    lowered = setting.strip().lower()
    if "command" in lowered or lowered.startswith(("match", "include")):
        name = lowered.replace("=", " ").split(" ", 1)[0]
        return f"{program} -o {name} runs a local command or reads more settings"
    return None


def _ssh_like(program: str, short_letters: str) -> Callable[[Sequence[str]], Carried]:
    def rule(argv: Sequence[str]) -> Carried:
        for index, token in enumerate(argv[1:], start=1):
            if not token.startswith("-") or token.startswith("--"):
                continue
            letters = token[1:]
            for k, letter in enumerate(letters):
                if letter == "o":
                    setting = letters[k + 1 :] or (
                        argv[index + 1] if index + 1 < len(argv) else "")
                    problem = _ssh_setting_problem(program, setting)
                    if problem:
                        return refuse(problem)
                    break
                if letter in short_letters:
                    return refuse(f"{program} -{letter} names a program, or a config file "
                                  "that can run one")
        return PLAIN

    return rule


def _editor(program: str, long_options: tuple[str, ...],
            short: tuple[str, ...]) -> Callable[[Sequence[str]], Carried]:
    def rule(argv: Sequence[str]) -> Carried:
        for token in argv[1:]:
            option = token.split("=", 1)[0]
            if option in long_options or option in short or (
                    token.startswith("+") and program != "emacs"):
                return refuse(f"{program} {option} runs editor commands, which can start "
                              "programs")
        return PLAIN

    return rule


_VIM = _editor("vim", ("--cmd",), ("-c", "-S", "-u", "-s", "-U"))

PROGRAM_RULES: Final[dict[str, Callable[[Sequence[str]], Carried]]] = {
    "git": _git,
    "find": _find,
    "awk": _awk, "gawk": _awk, "mawk": _awk, "nawk": _awk,
    "sed": _sed, "gsed": _sed,
    "tar": _options_refused("tar", ("--to-command", "--use-compress-program", "-I",
                                    "--checkpoint-action", "--info-script",
                                    "--new-volume-script", "--rsh-command", "--rmt-command",
                                    "-F"), "IF", first_word_cluster=True),
    "rsync": _options_refused("rsync", ("--rsh", "--rsync-path", "-e"), "e"),
    "ssh": _ssh_like("ssh", "F"),
    "scp": _ssh_like("scp", "FS"),
    "sftp": _ssh_like("sftp", "FSD"),
    "rg": _options_refused("rg", ("--pre",)),
    "vim": _VIM, "vi": _VIM, "nvim": _VIM, "view": _VIM, "ex": _VIM, "gvim": _VIM,
    "emacs": _editor("emacs", ("--eval", "--load", "--funcall", "--script", "-x"),
                     ("-l", "-f")),
    "man": _options_refused("man", ("--pager", "--html", "--browser", "-P", "-H"), "PH"),
    "sort": _options_refused("sort", ("--compress-program",)),
    "wget": _options_refused("wget", ("--use-askpass", "--execute", "-e")),
    "zip": _options_refused("zip", ("--unzip-command", "-TT")),
}

