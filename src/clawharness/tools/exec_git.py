"""git: the settings, options and subcommands that make it run another program.

git's global options are matched exactly (git reads them exactly); a setting given with
`-c` must be a presentation or identity key (`alias.*` runs commands, `core.*` names
pagers, editors, hooks and `fsmonitor`, `diff.*`/`filter.*`/`credential.*` name
programs), and `--config-env` in any spelling is refused. A subcommand's options go
through git's parse-options, which takes any unambiguous abbreviation, so an option that
is a prefix of one that names a program (`ls-remote --upload-p=...`, `rebase --ex=...`)
is refused. Subcommands that run commands given to them (`filter-branch`,
`bisect run`, `submodule foreach`, `difftool`, `mergetool`, `daemon`, `hook`,
`maintenance`, `help` with a page, ...) are refused, and `ext::` URLs (a command as a
transport) anywhere. With piped input, only subcommands that never start an editor or a
prompt are allowed: an editor started by `git commit` would read the pipe as its
keystrokes (`echo ':!cmd' | git commit`).

What git does by itself is not seen here: the hooks and config of the repository it
runs in, ssh for ssh URLs, gpg for signing. Allowlisting git trusts those.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from clawharness.tools.exec_carried import Carried, Invocation, refuse
from clawharness.tools.exec_options import find_refused_option

__all__ = ["git_rule"]

_GLOBAL_FLAGS: Final = frozenset({
    "-P", "--no-pager", "--bare", "--no-replace-objects", "--no-lazy-fetch",
    "--literal-pathspecs", "--glob-pathspecs", "--noglob-pathspecs", "--icase-pathspecs",
    "--no-optional-locks", "--no-advice", "--html-path", "--man-path", "--info-path",
    "--exec-path", "--version", "-v"})
#: global options whose value is the next word, or attached after `=` (not for `-C`)
_GLOBAL_VALUED: Final = frozenset({"-C", "--git-dir", "--work-tree", "--namespace",
                                   "--attr-source"})
_GLOBAL_ATTACHED_ONLY: Final = frozenset({"--super-prefix", "--list-cmds"})

#: settings a command line may change: presentation and identity, nothing that names a
#: program, a hook, a helper or a transport
_SAFE_KEYS: Final = frozenset({
    "user.name", "user.email", "core.quotepath", "init.defaultbranch", "column.ui",
    "log.decorate", "log.date", "pull.rebase", "pull.ff", "merge.ff", "fetch.prune",
    "status.short", "status.branch", "diff.noprefix", "diff.renames", "push.default",
    "core.autocrlf", "rebase.autosquash", "commit.verbose", "core.abbrev"})
_SAFE_PREFIXES: Final = ("color.", "advice.", "i18n.")

_RUNS_COMMANDS = "runs commands or programs given to it"
_REFUSED_SUBCOMMANDS: Final = {
    **{name: _RUNS_COMMANDS for name in (
        "filter-branch", "filter-repo", "difftool", "mergetool", "instaweb", "web--browse",
        "send-email", "daemon", "upload-pack", "receive-pack", "upload-archive", "shell",
        "remote-ext", "hook", "credential", "credential-store", "credential-cache",
        "citool", "gui", "gitk", "p4", "svn", "cvsimport", "cvsserver", "cvsexportcommit",
        "archimport", "quiltimport", "request-pull", "imap-send")},
    "maintenance": "schedules background jobs (cron, systemd timers) that run git later",
}

#: options (any unambiguous abbreviation) that name a program, a hook directory or
#: config, in every subcommand
_REFUSED_OPTIONS: Final = {
    "--upload-pack": "names a program to run on the other side of the transport",
    "--receive-pack": "names a program to run on the other side of the transport",
    "--exec": "names a program or a command to run",
    "--extcmd": "names a program to run",
    "--open-files-in-pager": "starts a pager program",
    "--template": "installs hooks, which run programs",
    "--config-env": "sets config from the environment",
    "--interactive": "starts an interactive session (an editor, a prompt)",
    "--tool": "starts a diff or merge tool program",
    "--separate-git-dir": "moves the repository's config (and hooks) elsewhere",
    "--output": "writes a file anywhere, such as a config file git would then run "
                "programs from",
}
#: short letters with the same meaning, per subcommand
_REFUSED_SHORTS: Final = {
    "rebase": {"-x": _REFUSED_OPTIONS["--exec"], "-i": _REFUSED_OPTIONS["--interactive"]},
    "clone": {"-u": _REFUSED_OPTIONS["--upload-pack"]},
    "ls-remote": {"-u": _REFUSED_OPTIONS["--upload-pack"]},
    "grep": {"-O": _REFUSED_OPTIONS["--open-files-in-pager"]},
    "add": {"-i": _REFUSED_OPTIONS["--interactive"]},
    "clean": {"-i": _REFUSED_OPTIONS["--interactive"]},
    "am": {"-i": _REFUSED_OPTIONS["--interactive"]},
    "commit": {"-i": "stages interactively chosen files (with --interactive, a prompt)"},
}

#: subcommands that never start an editor, a pager or a prompt: only these may be given
#: piped input
_PIPE_SAFE: Final = frozenset({
    "status", "log", "show", "diff", "diff-tree", "diff-index", "diff-files", "ls-files",
    "ls-tree", "ls-remote", "rev-parse", "rev-list", "grep", "blame", "annotate",
    "shortlog", "describe", "cat-file", "hash-object", "check-ignore", "check-attr",
    "check-mailmap", "check-ref-format", "apply", "patch-id", "stripspace", "mailinfo",
    "mailsplit", "mktree", "mktag", "name-rev", "for-each-ref", "show-ref", "show-branch",
    "count-objects", "version", "whatchanged", "range-diff", "format-patch", "archive",
    "bundle", "verify-pack", "unpack-objects", "index-pack", "pack-objects", "update-ref",
    "symbolic-ref", "fast-export", "commit-tree", "merge-base", "merge-tree",
    "interpret-trailers", "column", "fsck"})


def _config_key_problem(setting: str) -> str | None:
    key, _, value = setting.partition("=")
    lowered = key.strip().lower()
    if lowered.startswith("alias."):
        kind = "a shell alias" if value.lstrip().startswith("!") else "an alias"
        return f"-c {key} defines {kind}, which can run any command"
    if lowered in _SAFE_KEYS or lowered.startswith(_SAFE_PREFIXES):
        return None
    return (f"-c {key} is a setting this policy does not let a command change (settings "
            "such as core.*, pager.*, diff.*, filter.* and credential.* make git run "
            "programs)")


def _config_subcommand(rest: list[str]) -> str | None:
    reads = {"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--get-color",
             "--get-colorbool", "-l", "--list", "--show-origin", "--show-scope"}
    writes = {"--add", "--replace-all", "--unset", "--unset-all", "--rename-section",
              "--remove-section", "-e", "--edit", "set", "unset", "rename-section",
              "remove-section", "edit"}
    if any(word.split("=", 1)[0] in writes for word in rest):
        return "git config would change a setting, which can make git run programs later"
    if rest[:1] in (["get"], ["list"]) or any(word in reads for word in rest):
        return None
    valued = {"-f", "--file", "--blob", "--type", "--default", "--comment"}
    positional = 0
    skip = False
    for word in rest:
        if skip:
            skip = False
        elif word in valued:
            skip = True
        elif not word.startswith("-"):
            positional += 1
    if positional >= 2:
        return "git config would change a setting, which can make git run programs later"
    return None


def _clone_config(rest: Sequence[str]) -> str | None:
    for index, word in enumerate(rest):
        if word in ("-c", "--config") and index + 1 < len(rest):
            setting = rest[index + 1]
        elif word.startswith("--config="):
            setting = word.split("=", 1)[1]
        elif word.startswith("-c") and len(word) > 2:
            setting = word[2:]
        elif word.startswith("-") and not word.startswith("--") and "c" in word:
            return "git clone: -c inside a group of options is not read by this policy"
        else:
            continue
        problem = _config_key_problem(setting)
        if problem is not None:
            return problem
    return None


def _subcommand_problem(sub: str, words: Sequence[str], piped_input: bool) -> str | None:
    rest = list(words)
    if sub in _REFUSED_SUBCOMMANDS:
        return f"git {sub} {_REFUSED_SUBCOMMANDS[sub]}"
    if sub == "help" and rest:
        return "git help with a page starts a manual or browser program"
    if "--help" in rest or any(w.startswith("--help=") for w in rest):
        return f"git {sub} --help starts a manual or browser program"
    if sub == "config":
        return _config_subcommand(rest)
    if sub == "bisect" and rest[:1] == ["run"]:
        return "git bisect run runs a command"
    if sub == "submodule" and "foreach" in rest:
        return "git submodule foreach runs a command"
    if sub == "clone":
        problem = _clone_config(rest)
        if problem is not None:
            return problem
    refused = {**_REFUSED_OPTIONS, **_REFUSED_SHORTS.get(sub, {})}
    problem = find_refused_option(rest, refused, program=f"git {sub}", start=0)
    if problem is not None:
        return problem
    if piped_input and sub not in _PIPE_SAFE:
        return (f"git {sub} with piped input: it may start an editor or a prompt, which "
                "would read the pipe as keystrokes")
    return None


def git_rule(inv: Invocation) -> Carried:
    """The verdict on one `git` invocation."""
    argv = inv.argv
    if any("ext::" in word for word in argv[1:]):
        return refuse("git: an ext:: URL runs a command as its transport")
    if any("://-" in word for word in argv[1:]):
        return refuse("git: a URL whose host starts with '-' is read by ssh as an option")
    i = 1
    while i < len(argv) and argv[i].startswith("-"):
        word = argv[i]
        option, eq, _ = word.partition("=")
        if word == "-c":
            if i + 1 >= len(argv):
                return refuse("git -c needs a setting")
            problem = _config_key_problem(argv[i + 1])
            if problem is not None:
                return refuse(f"git {problem}")
            i += 2
        elif option == "--config-env":
            return refuse("git --config-env sets config from the environment, which this "
                          "policy does not let a command do")
        elif option == "--exec-path" and eq:
            return refuse("git --exec-path= changes where git finds the programs it runs")
        elif word in ("-h", "--help"):
            if i + 1 < len(argv):
                return refuse("git --help with a page starts a manual or browser program")
            return Carried(judge_self=True)
        elif word in ("-p", "--paginate"):
            return refuse("git --paginate starts a pager program")
        elif option in _GLOBAL_VALUED and not (eq and option == "-C"):
            i += 1 if eq else 2
        elif (option in _GLOBAL_ATTACHED_ONLY and eq) or word in _GLOBAL_FLAGS:
            i += 1
        else:
            return refuse(f"git: option {option!r} is not one this policy can see through")
    if i >= len(argv):
        return Carried(judge_self=True, input_is_data=True)
    problem = _subcommand_problem(argv[i].lower(), argv[i + 1 :], inv.piped_input)
    if problem is not None:
        return refuse(problem)
    return Carried(judge_self=True, input_is_data=True)
