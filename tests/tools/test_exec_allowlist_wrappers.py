"""The exec allowlist judges what a command would run: wrappers, shells, interpreters and
programs that start other programs are seen through or refused (issue 14, item 4)."""

from __future__ import annotations

import shlex

import pytest

from clawharness.config.schema import ToolsConfig
from clawharness.errors import ToolPolicyDeniedError
from clawharness.tools.exec_sed import sed_script_problem
from clawharness.tools.policy import EffectiveToolPolicy, analyze_command, match_exec_allowlist

# paths that do not exist, so resolving symlinks leaves them as they are on any machine
BINS = {name: f"/fake/bin/{name}" for name in (
    "ls", "git", "env", "touch", "rm", "find", "xargs", "awk", "sed", "grep", "echo", "cat",
    "sh", "bash", "python3", "node", "perl", "nice", "timeout", "sudo", "tar", "rsync", "ssh",
    "rg", "vim", "make", "sort", "head", "wc")}
ALLOW = ["ls", "git", "env", "find", "xargs", "awk", "sed", "grep", "echo", "cat", "tar",
         "rsync", "ssh", "rg", "sort", "head", "wc"]


def miss(command: str, allow: list[str] = ALLOW) -> str | None:
    return match_exec_allowlist(analyze_command(command, cwd="/ws", which=BINS.get), allow)


def test_the_three_breaks_of_the_audit_are_refused() -> None:
    allow = ["ls", "git", "env"]
    assert miss("env touch /outside/y1", allow) == \
        '"touch" (run by env) is not in tools.exec.allowlist'
    assert "alias" in (miss("git -c alias.x='!touch /outside/y2' x", allow) or "")
    assert "LD_PRELOAD" in (miss("LD_PRELOAD=/x ls", allow) or "")


@pytest.mark.parametrize("command", [
    "ls -la",
    "git status && git log --oneline | head -5",
    "env ls",
    "env -i FOO=1 ls -la",
    "env -u HOME ls",
    "nice -n 10 ls",
    "nice -5 git status",
    "timeout 5 ls",
    "timeout -s KILL -k 1 5 git log",
    "nohup ls",
    "stdbuf -oL grep x file",
    "time -p ls",
    "setsid -f ls",
    "xargs grep foo",
    "ls | xargs -0 -n 2 cat",
    "xargs",  # echo
    "find . -name '*.py' -exec grep -l TODO {} +",
    "find . -type f -execdir wc -l {} ';'",
    "sh -c 'ls; git status'",
    "bash -lc 'git status && ls -la'",
    "bash -e -o pipefail -c 'ls | wc -l'",
    "sh -c 'grep foo \"$@\"' _ a b",
    "env nice timeout 5 sh -c 'ls'",
    "command ls",
    "exec ls",
    "watch -n 1 ls",
    "eval 'ls -la'",
    "awk '{print $1}' file",
    "awk -F: -v OFS=- '$3 > 100 {print $1, $3}' /etc/passwd",
    "sed -n 's/a/b/gp' file",
    "sed -e '1,3d' -e '/^#/d' file",
    "sed -i.bak 's/x/y/' file",
    "git -c color.ui=always log",
    "git -c user.name=me -c user.email=me@x commit -m 'a;b'",
    "git -C sub status",
    "git config --get user.name",
    "git config user.name",
    "git clone https://example.com/repo.git",
    "tar -czf out.tgz dir",
    "tar xzf archive.tgz",
    "rsync -avz src/ dst/",
    "ssh -p 22 host uptime",
    "rg -n TODO",
    "sort -u file",
    "FOO=bar ls",
    "LANG=C sort file",
])
def test_commands_whose_every_program_is_allowed_run(command: str) -> None:
    assert miss(command) is None


@pytest.mark.parametrize(("command", "why"), [
    # dispatch wrappers: judged by the command they run
    ("env touch x", '"touch" (run by env)'),
    ("nice touch x", '"touch" (run by nice)'),
    ("timeout 5 rm -rf x", '"rm" (run by timeout)'),
    ("nohup rm x", '"rm" (run by nohup)'),
    ("stdbuf -o0 rm x", '"rm" (run by stdbuf)'),
    ("time rm x", '"rm" (run by time)'),
    ("setsid rm x", '"rm" (run by setsid)'),
    ("ionice -c3 rm x", '"rm" (run by ionice)'),
    ("taskset 0x1 rm x", '"rm" (run by taskset)'),
    ("flock /tmp/l rm x", '"rm" (run by flock)'),
    ("flock /tmp/l -c 'rm x'", '"rm" (run by flock)'),
    ("watch rm x", '"rm" (run by watch)'),
    ("watch -x rm x", '"rm" (run by watch)'),
    ("command rm x", '"rm" (run by command)'),
    ("exec rm x", '"rm" (run by exec)'),
    ("builtin eval 'rm x'", '"rm" (run by builtin > eval)'),
    ("busybox rm x", '"rm" (run by busybox)'),
    ("env nice timeout 5 rm x", '"rm" (run by env > nice > timeout)'),
    ("env -S 'rm x'", "env -S"),
    ("env -C /tmp ls", "env -C"),
    ("env --frobnicate ls", "option '--frobnicate'"),
    ("nice --frobnicate ls", "option '--frobnicate'"),
    # wrappers that change privilege or root are refused outright
    ("sudo ls", "sudo runs its command as another user"),
    ("doas ls", "doas runs its command as another user"),
    ("su -c ls root", "su runs its command as another user"),
    ("chroot / ls", "chroot runs its command in another root"),
    ("unshare -r ls", "unshare"),
    ("strace ls", "strace runs its command under a tracer"),
    ("parallel rm ::: a b", "parallel runs a command this policy cannot see through"),
    # shells: the script is analysed; stdin is refused; a script file is the shell's own
    ("sh -c 'ls; rm -rf /'", '"rm" (run by sh)'),
    ("bash -lc 'touch /outside/y'", '"touch" (run by bash)'),
    ("bash -c 'ls > out'", "redirection in the script run by bash"),
    ("bash -c 'ls $(rm x)'", "command substitution"),
    ("echo 'rm -rf /' | bash", "bash would read commands from its input"),
    ("bash -s", "would read commands from its input"),
    ("bash", "would read commands from its input"),
    ("bash script.sh", '"bash" is not in tools.exec.allowlist'),
    ("bash --rcfile evil -c ls", "--rcfile"),
    ("sh -c", '"sh" is not in tools.exec.allowlist'),
    # xargs and find: the command is judged; input spliced into code is refused
    ("ls | xargs rm", '"rm" (run by xargs)'),
    ("ls | xargs -I{} rm {}", '"rm" (run by xargs)'),
    ("ls | xargs env", "env would take its command or program from the input"),
    ("ls | xargs nice", "nice would take its command or program from the input"),
    ("ls | xargs awk", "awk would take its command or program from the input"),
    ("ls | xargs -I{} sh -c 'echo {}'", "spliced into its code"),
    ("ls | xargs -I % sh -c 'cat %'", "spliced into its code"),
    ("ls | xargs -I{} {}", "not a literal name"),
    ("ls | xargs -I P P", "take the program to run from its input"),
    ("ls | xargs --process-slot-var=LD_PRELOAD ls", "LD_PRELOAD"),
    ("find . -exec rm {} ';'", '"rm" (run by find)'),
    ("find . -execdir rm {} +", '"rm" (run by find)'),
    ("find . -ok rm {} ';'", '"rm" (run by find)'),
    ("find . -okdir rm {} ';'", '"rm" (run by find)'),
    ("find . -exec sh -c 'echo {}' ';'", "spliced into its code"),
    ("find . -exec awk '{}' ';'", "spliced into its code"),
    ("find . -exec {} ';'", "not a literal name"),
    ("find . -exec grep x {}", "no terminating"),
    # interpreters: inline code and stdin are refused, a script file is the interpreter's
    ("python3 -c 'import os; os.system(\"rm -rf /\")'", "python3 -c runs inline code"),
    ("python3 -Ic 'print(1)'", "python3 -c runs inline code"),
    ("python3 -", "reads code from its input"),
    ("echo 'print(1)' | python3", "would read code from its input"),
    ("python3 script.py", '"python3" is not in tools.exec.allowlist'),
    ("node -e 'require(\"fs\")'", "node -e runs inline code"),
    ("node --eval=1", "node --eval runs inline code"),
    ("perl -e 'system(\"rm\")'", "perl -e runs inline code"),
    ("perl -Mstrict -we 'print 1'", "perl -e runs inline code"),
    # git: settings and subcommands that make git run programs
    ("git -c alias.x='!rm -rf /' x", "shell alias"),
    ("git -c alias.st=status st", "alias"),
    ("git -c core.pager='rm x' log", "-c core.pager"),
    ("git -c core.sshCommand='rm x' fetch", "-c core.sshCommand"),
    ("git -c core.hooksPath=/tmp/h commit -m x", "-c core.hooksPath"),
    ("git -c core.fsmonitor='rm x' status", "-c core.fsmonitor"),
    ("git -c diff.external=rm diff", "-c diff.external"),
    ("git -c filter.x.clean=rm add .", "-c filter.x.clean"),
    ("git -c credential.helper='!rm x' push", "-c credential.helper"),
    ("git --config-env=core.pager=P log", "--config-env"),
    ("git --exec-path=/tmp status", "--exec-path"),
    ("git config core.fsmonitor 'rm x'", "git config would change a setting"),
    ("git config --add alias.x '!rm'", "git config would change a setting"),
    ("git config --global --edit", "git config would change a setting"),
    ("git rebase --exec 'rm x' main", "git rebase --exec"),
    ("git rebase -ix 'rm x' main", "git rebase --exec"),
    ("git bisect run rm x", "git bisect run"),
    ("git submodule foreach 'rm x'", "git submodule foreach"),
    ("git filter-branch --tree-filter 'rm x'", "git filter-branch"),
    ("git difftool -x rm", "git difftool --extcmd"),
    ("git grep -O foo", "git grep -O"),
    ("git clone --upload-pack='rm x' repo", "--upload-pack"),
    ("git clone -u 'rm x' repo", "git clone -u"),
    ("git clone -c core.fsmonitor='rm x' repo", "-c core.fsmonitor"),
    ("git clone --template=/tmp/t repo", "--template"),
    ("git fetch --upload-pack=rm origin", "--upload-pack"),
    ("git push --receive-pack=rm origin", "--receive-pack"),
    ("git clone 'ext::sh -c rm% x' dir", "ext::"),
    # awk and sed programs that run commands or write files
    ("awk 'BEGIN {system(\"rm x\")}'", "calls system()"),
    ("awk '{print | \"sh\"}' f", "pipes to or from a command"),
    ("awk 'BEGIN {\"date\" | getline d}'", "pipes to or from a command"),
    ("awk -f prog.awk f", "awk -f runs a program file"),
    ("gawk -l ext 'BEGIN{}'", "gawk -l"),
    ("sed 's/x/y/e' f", "the e flag"),
    ("sed -n '1e rm x' f", "an e command"),
    ("sed 'w /etc/passwd' f", "a w command"),
    ("sed 's/x/y/w out' f", "the w flag"),
    ("sed -f script.sed f", "sed -f"),
    # other programs with an option that starts a program
    ("tar -I 'rm x' -cf a.tar d", "tar -I"),
    ("tar --to-command='rm x' -xf a.tar", "tar --to-command"),
    ("tar --checkpoint-action=exec='rm x' -cf a d", "tar --checkpoint-action"),
    ("tar cIf 'rm x' a.tar d", "tar -I"),
    ("rsync -e 'rm x' a b", "rsync -e"),
    ("rsync -avze 'rm x' a b", "rsync -e"),
    ("rsync --rsync-path='rm x' a host:b", "rsync --rsync-path"),
    ("ssh -o ProxyCommand='rm x' host", "ssh -o proxycommand"),
    ("ssh -oLocalCommand=rm -oPermitLocalCommand=yes host", "ssh -o localcommand"),
    ("ssh -F ./config host", "ssh -F"),
    ("rg --pre 'rm x' foo", "rg --pre"),
    ("sort --compress-program=rm f", "sort --compress-program"),
])
def test_a_command_that_would_run_something_unallowed_is_refused(command: str, why: str) -> None:
    reason = miss(command)
    assert reason is not None, f"{command!r} was allowed"
    assert why in reason


@pytest.mark.parametrize("assignment", [
    "LD_PRELOAD=/x", "LD_LIBRARY_PATH=/x", "LD_AUDIT=/x", "DYLD_INSERT_LIBRARIES=/x",
    "PYTHONPATH=/x", "PYTHONSTARTUP=/x", "NODE_OPTIONS=--require=/x", "PERL5LIB=/x",
    "PERL5OPT=-Mx", "RUBYOPT=-rx", "BASH_ENV=/x", "ENV=/x", "IFS=/", "PATH=/tmp",
    "GIT_SSH_COMMAND=x", "GIT_CONFIG_COUNT=1", "PAGER=x", "EDITOR=x", "HOME=/tmp",
    "ld_preload=/x",
])
def test_loader_and_interpreter_variables_are_refused_wherever_they_are_set(
        assignment: str) -> None:
    name = assignment.split("=", 1)[0]
    for command in (f"{assignment} ls", f"env {assignment} ls", f"nice env {assignment} ls",
                    f"export {assignment}; ls", f"sh -c '{assignment} ls'"):
        reason = miss(command)
        assert reason is not None and name in reason, command


def test_env_refuses_an_exported_function_whatever_its_name() -> None:
    # bash imports `BASH_FUNC_<name>%%` from the environment as a function
    reason = miss("env 'BASH_FUNC_ls%%=() { rm -rf /; }' bash -c ls")
    assert reason is not None and "BASH_FUNC_ls%%" in reason


@pytest.mark.parametrize(("command", "expansion"), [
    # a file named `-c` and one named `alias.x=!touch y` in the directory make `git *`
    # run `git -c alias.x=... x`: the words the analysis saw are not the words git gets
    ("git *", "*"),
    ("git log {a,b}", "{a,b}"),
    ("find . *", "*"),
    ("find . -name *.py -exec grep x {} +", "*"),
    ("sed -n p *.txt", "*"),  # GNU sed takes options after operands too
    ("nice git *", "*"),
    ("timeout $T ls", "$"),  # T="5 rm" runs rm
    ("nice -n $N ls", "$"),
    ("sh -c \"ls $1\" _ x", "$"),  # the script itself is built at run time
    ("awk \"{print $1}\" f", "$"),
    ("find . -exec sh -c \"echo $X\" ';'", "$"),
])
def test_a_shell_expansion_that_could_change_what_runs_is_refused(command: str,
                                                                  expansion: str) -> None:
    reason = miss(command)
    assert reason is not None and f"unquoted {expansion!r}" in reason and "quote it" in reason


@pytest.mark.parametrize("command", [
    "ls *.py", "grep foo *.py", "nice ls *.py", "timeout 5 grep x *.txt",
    "find . -name '*.py' -exec grep x {} +", "sh -c 'ls *.py'", "sh -c 'ls $1' _ x",
    "git commit -m \"fix $thing\"", "awk '{print $1}' f", "xargs -I{} grep x {}",
    "env ls \"$HOME\"",
])
def test_expansions_that_cannot_change_what_runs_are_fine(command: str) -> None:
    assert miss(command) is None


def test_the_policy_refuses_or_asks_with_the_reason() -> None:
    config = ToolsConfig.model_validate(
        {"exec": {"security": "allowlist", "ask": "off", "allowlist": ["ls", "git", "env"]}})
    policy = EffectiveToolPolicy(config, which=BINS.get)
    with pytest.raises(ToolPolicyDeniedError, match=r'"touch" \(run by env\)'):
        policy.needs_approval("exec", {"command": "env touch y1"})
    asking = EffectiveToolPolicy(ToolsConfig.model_validate(
        {"exec": {"security": "allowlist", "ask": "on-miss", "allowlist": ["ls"]}}),
        which=BINS.get)
    reason = asking.needs_approval("exec", {"command": "LD_PRELOAD=/x ls"})
    assert reason is not None and "LD_PRELOAD" in reason and "on-miss" in reason


def test_a_relative_program_after_cd_is_refused() -> None:
    reason = miss("cd /tmp && ./evil", ["cd", "/ws/**"])
    assert reason is not None and "after cd" in reason
    assert miss("./tool --help", ["/ws/**"]) is None


def test_nesting_is_bounded() -> None:
    assert "nested more than 8 deep" in (miss("env " * 40 + "ls") or "")
    deep = "ls"
    for _ in range(12):
        deep = "sh -c " + shlex.quote(deep)
    assert "nested more than 8 deep" in (miss(deep, ["ls", "sh"]) or "")
    shallow = "ls"
    for _ in range(3):
        shallow = "sh -c " + shlex.quote(shallow)
    assert miss(shallow, ["ls"]) is None


def test_analysis_lists_every_program_with_its_wrappers() -> None:
    analysis = analyze_command("env nice sh -c 'ls | wc -l' && find . -exec grep x {} +",
                               cwd="/ws", which=BINS.get)
    assert analysis.ok
    assert [(s.executable, s.via) for s in analysis.segments] == [
        ("ls", ("env", "nice", "sh")), ("wc", ("env", "nice", "sh")),
        ("find", ()), ("grep", ("find",))]
    assert analysis.segments[0].resolved_path == "/fake/bin/ls"


@pytest.mark.parametrize(("script", "problem"), [
    ("s/a/b/g", None),
    ("1,3d;$!N", None),
    ("/x/{p;d}", None),
    ("/a/I,+2s|x|y|2g", None),
    (":a;N;$!ba;s/\\n/,/g", None),
    ("y/abc/xyz/", None),
    ("a\\\nappended", None),
    ("s/a\\/b/c/", None),
    ("p # a comment", None),
    ("s/x/y/e", "e flag"),
    ("/x/!{s/a/b/e}", "e flag"),
    ("e ls", "e command"),
    ("1e", "e command"),
    ("w /tmp/out", "w command"),
    ("W /tmp/out", "W command"),
    ("s/x/y/w /tmp/out", "w flag"),
    ("s/x/y", "could not be read"),
    ("k", "could not be read"),
])
def test_sed_scripts_are_read_for_commands_that_run_or_write(script: str,
                                                             problem: str | None) -> None:
    found = sed_script_problem(script)
    if problem is None:
        assert found is None
    else:
        assert found is not None and problem in found
