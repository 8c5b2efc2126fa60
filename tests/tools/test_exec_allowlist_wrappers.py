"""The exec allowlist judges what a command would run: wrappers and `sh -c` are seen
through, and programs that run programs are allowed only with a known-safe set of
arguments (issue 14, item 4; issue 31, section 2). The attack corpus is
`test_exec_gate_corpus.py`; this file holds the scenarios with their exact reasons."""

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
    "rg", "vim", "make", "sort", "head", "wc", "nohup", "stdbuf", "setsid", "less", "zip",
    "wget", "sdiff", "diff", "man", "printf", "test", "true")}
ALLOW = ["ls", "git", "env", "find", "xargs", "awk", "sed", "grep", "echo", "cat", "tar",
         "rsync", "ssh", "rg", "sort", "head", "wc", "less", "zip", "wget", "sdiff", "diff",
         "man", "make", "printf", "test", "true", "python3", "node", "perl", "cd"]


def miss(command: str, allow: list[str] = ALLOW) -> str | None:
    return match_exec_allowlist(analyze_command(command, cwd="/ws", which=BINS.get), allow)


def test_the_three_breaks_of_the_first_audit_are_refused() -> None:
    allow = ["ls", "git", "env"]
    assert miss("env touch /outside/y1", allow) == \
        '"touch" (run by env) is not in tools.exec.allowlist'
    assert "alias" in (miss("git -c alias.x='!touch /outside/y2' x", allow) or "")
    assert "LD_PRELOAD" in (miss("LD_PRELOAD=/x ls", allow) or "")


def test_the_ansi_c_quoting_break_of_the_second_audit_is_refused() -> None:
    # bash reads $'\'' as one quote character, so `touch` is a command of its own
    reason = miss("echo $'\\'' ; touch X ; echo \\'", ["echo"])
    assert reason is not None and "ANSI-C quoting ($'...')" in reason
    # the same text without the `$` is one echo with a quoted argument, as bash reads it
    assert miss("echo '\\'' ; touch X ; echo '\\'", ["echo"]) is None


@pytest.mark.parametrize("command", [
    "ls -la",
    "git status && git log --oneline | head -5",
    "env ls",
    "env -i FOO=1 ls -la",
    "env - ls",
    "env -u HOME ls",
    "env --ignore-env ls",  # an abbreviation of --ignore-environment
    "env --unset=HOME ls",
    "nice -n 10 ls",
    "nice -5 git status",
    "nice --adj=3 ls",
    "timeout 5 ls",
    "timeout -s KILL -k 1 5 git log",
    "timeout --sig=KILL 5 ls",
    "nohup ls",
    "stdbuf -oL grep x file",
    "setsid -w ls",
    "sh -c 'ls; git status'",
    "bash -lc 'git status && ls -la'",
    "bash -e -o pipefail -c 'ls | wc -l'",
    "env nice timeout 5 sh -c 'ls'",
    "awk '{print $1}' file",
    "awk -F: -v OFS=- '$3 > 100 {print $1, $3}' /etc/passwd",
    "sed -n 's/a/b/gp' file",
    "sed -e '1,3d' -e '/^#/d' file",
    "sed -i.bak 's/x/y/' file",
    "find . -name '*.py' -type f",
    "git -c color.ui=always log",
    "git -c user.name=me -c user.email=me@x commit -m 'a;b'",
    "git -C sub status",
    "git config --get user.name",
    "git config user.name",
    "git clone https://example.com/repo.git",
    "git log | git stripspace",
    "tar -czf out.tgz dir",
    "tar xzf archive.tgz",
    "rsync -avz src/ dst/",
    "ssh -p 22 host uptime",
    "rg -n TODO",
    "sort -u file",
    "FOO=bar ls",
    "LANG=C sort file",
    "echo hi # a comment; rm -rf /",
    "echo 'a;b' \"c|d\" e\\;f",
    "printf '%s\\n' a b",
    "test -f x && echo yes",
    "make -j4 test",
    "python3 tool.py --flag",
    "echo data | python3 tool.py",
    "node build.js",
    "perl -w script.pl",
    "man -k printf",
    "cd sub && ls",
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
    ("setsid rm x", '"rm" (run by setsid)'),
    ("env nice timeout 5 rm x", '"rm" (run by env > nice > timeout)'),
    ("timeout 5 -s KILL ls", '"-s" (run by timeout)'),  # options end at the duration
    ("env -S 'rm x'", "env -S re-splits a string"),
    ("env --split-s='rm x'", "env --split-string"),
    ("env --sp='rm x'", "env --split-string"),
    ("env -C /tmp ls", "env -C changes the directory"),
    ("env --ch=/tmp ls", "env --chdir"),
    ("env --argv0=sh busybox", "env --argv0"),
    ("env --frobnicate ls", "option --'frobnicate'"),
    ("nice --frobnicate ls", "option --'frobnicate'"),
    ("env '=x' ls", "a variable with no name"),
    ("Nice ls", "'Nice' is 'nice' only where file names ignore case"),
    ("SH -c ls", "only where file names ignore case"),
    # programs that run commands and are not seen through
    ("xargs grep foo", "xargs runs a command this policy does not see through"),
    ("ls | xargs rm", "xargs runs a command"),
    ("time ls", "the reserved word 'time'"),
    ("watch ls", "watch runs a command"),
    ("flock /tmp/l ls", "flock runs a command"),
    ("busybox ls", "busybox runs a command"),
    ("ionice -c3 ls", "ionice runs its command in another"),
    ("find . -exec grep -l TODO {} +", "find -exec runs a command built from file names"),
    ("find . -execdir rm {} ';'", "find -execdir"),
    ("find . -ok rm {} ';'", "find -ok"),
    # builtins that run, assign or redefine are refused, whatever the allowlist says
    ("command ls", "the builtin command runs commands"),
    ("exec ls", "the builtin exec runs commands"),
    ("builtin echo x", "the builtin builtin runs commands"),
    ("eval 'ls -la'", "the builtin eval runs commands"),
    ("source ./x.sh", "the builtin source runs commands"),
    (". ./x.sh", "the builtin . runs commands"),
    ("printf -v x hi", "printf with an option"),
    ("printf -vx hi", "printf with an option"),
    ("test -v 'a[$(rm x)]'", "test -v looks up a variable"),  # bash runs the `$(...)`
    ("[ -v x ]", "[ -v looks up a variable"),
    ("read x", "the builtin read assigns"),
    ("export FOO=1", "the builtin export assigns"),
    ("alias ls=rm", "the builtin alias changes how the shell"),
    ("enable -n echo", "the builtin enable changes"),
    ("hash -p /bin/rm ls", "the builtin hash changes"),
    ("trap 'rm x' EXIT", "the builtin trap runs commands"),
    ("env command rm x", "the builtin command runs commands"),  # a program under env
    # wrappers that change privilege or root are refused outright
    ("sudo ls", "sudo runs its command as another user"),
    ("doas ls", "doas runs its command as another user"),
    ("su -c ls root", "su runs its command as another user"),
    ("chroot / ls", "chroot runs its command in another root"),
    ("unshare -r ls", "unshare"),
    ("strace ls", "strace runs its command under a tracer"),
    ("parallel rm ::: a b", "parallel runs a command this policy does not see through"),
    # shells: the script is analysed; stdin, arguments and other shells are refused
    ("sh -c 'ls; rm -rf /'", '"rm" (run by sh)'),
    ("bash -lc 'touch /outside/y'", '"touch" (run by bash)'),
    ("bash -c 'ls > out'", "a redirection (>) (at character 4) in the script run by bash"),
    ("bash -c 'ls $(rm x)'", "command substitution"),
    ("sh -c 'grep foo \"$@\"'", "parameter expansion ($) inside double quotes"),
    ("sh -c 'ls' _ a b", "sh -c with arguments after its script"),
    ("echo 'rm -rf /' | bash", "bash would read commands from its input"),
    ("bash -s", "bash -s reads commands from its input"),
    ("bash", "bash would read commands from its input"),
    ("bash /dev/stdin", "bash would read commands from its input"),
    ("bash script.sh", '"bash" is not in tools.exec.allowlist'),
    ("bash --rcfile evil -c ls", "--rcfile"),
    ("bash -x -c ls", "bash -x traces with PS4"),
    ("bash +x -c 'rm x'", "options given with +"),
    ("bash -O extglob -c ls", "option '-O'"),
    ("sh -c", "sh -c is given no command"),
    ("zsh -c ls", "zsh is a shell whose syntax this policy does not read"),
    ("fish -c ls", "fish is a shell"),
    # interpreters: inline code, modules and stdin are refused, a script file is judged
    ("python3 -c 'import os; os.system(\"rm -rf /\")'", "python3 -c runs inline code"),
    ("python3 -Ic 'print(1)'", "python3 -c runs inline code"),
    ("python3 -m http.server", "python3 -m runs code named by a module"),
    ("python3 -mhttp.server", "python3 -m runs code named by a module"),
    ("python3 -", "python3 - reads code from its input"),
    ("python3 /dev/stdin", "python3 /dev/stdin reads code from its input"),
    ("python3 -i x.py", "python3 -i starts an interactive session"),
    ("echo 'print(1)' | python3", "python3 with no script reads code from its input"),
    ("python3 script.py", None),
    ("node -e 'require(\"fs\")'", "node -e runs inline code"),
    ("node --eval=1", "node --eval runs inline code"),
    ("node -p 1", "node -p runs inline code"),
    ("node -r ./x.js y.js", "node -r runs code named by a module"),
    ("perl -e 'system(\"rm\")'", "perl -e runs inline code"),
    ("perl -Mstrict -we 'print 1'", "perl -M runs code named by a module"),
    ("perl -we 'print 1'", "perl -e runs inline code"),
    ("ruby -e 1", "ruby -e runs inline code"),
    ("php -r 1", "php -r runs inline code"),
    ("make --eval='x:;rm y' x", "make --eval runs makefile text"),
    ("make --ev='x:;rm y' x", "make --eval runs makefile text"),
    ("make -E 'x:;rm y' x", "make -E runs makefile text"),
    ("make -f /dev/stdin", "make -f /dev/stdin reads a makefile from its input"),
    ("make 'CC=rm -rf x' all", "overrides a variable"),
    ("sqlite3 db '.shell rm x'", "sqlite3 takes commands or code"),
    ("dc -e '!rm x'", "dc takes commands or code"),
    # editors run commands and read keystrokes from a pipe
    ("vim -es", "vim is an editor"),
    ("ex -c '!rm x' f", "ex is an editor"),
    ("echo ':!rm x' | vi f", "vi is an editor"),
    ("emacs --eval '(shell-command \"rm x\")'", "emacs is an editor"),
    # git: settings, options (any abbreviation) and subcommands that run programs
    ("git -c alias.x='!rm -rf /' x", "shell alias"),
    ("git -c alias.st=status st", "alias"),
    ("git -c Alias.x='!rm' x", "alias"),
    ("git -c core.pager='rm x' log", "-c core.pager"),
    ("git -c core.sshCommand='rm x' fetch", "-c core.sshCommand"),
    ("git -c core.hooksPath=/tmp/h commit -m x", "-c core.hooksPath"),
    ("git -c core.fsmonitor='rm x' status", "-c core.fsmonitor"),
    ("git -c diff.external=rm diff", "-c diff.external"),
    ("git -c filter.x.clean=rm add .", "-c filter.x.clean"),
    ("git -c credential.helper='!rm x' push", "-c credential.helper"),
    ("git \"-c\" 'alias.x=!rm' x", "alias"),  # quoting does not hide it
    ("git -calias.x=!rm x", "option '-calias.x'"),
    ("git --config-env=core.pager=P log", "--config-env"),
    ("git --config-env core.pager=P log", "--config-env"),
    ("git --exec-path=/tmp status", "--exec-path"),
    ("git -p log", "git --paginate starts a pager"),
    ("git --help log", "git --help with a page"),
    ("git log --help", "git log --help starts a manual"),
    ("git help log", "git help with a page"),
    ("git config core.fsmonitor 'rm x'", "git config would change a setting"),
    ("git config --add alias.x '!rm'", "git config would change a setting"),
    ("git config --global --edit", "git config would change a setting"),
    ("git rebase --exec 'rm x' main", "git rebase --exec"),
    ("git rebase --ex='rm x' main", "git rebase --exec"),
    ("git rebase -ix 'rm x' main", "git rebase -i"),
    ("git rebase -x 'rm x' main", "git rebase -x"),
    ("git bisect run rm x", "git bisect run"),
    ("git submodule foreach 'rm x'", "git submodule foreach"),
    ("git filter-branch --tree-filter 'rm x'", "git filter-branch"),
    ("git difftool -x rm", "git difftool runs commands"),
    ("git mergetool --tool=x", "git mergetool runs commands"),
    ("git grep -O foo", "git grep -O"),
    ("git grep --open-files=rm foo", "git grep --open-files-in-pager"),
    ("git clone --upload-pack='rm x' repo", "--upload-pack"),
    ("git clone --upl='rm x' repo", "--upload-pack"),
    ("git clone -u 'rm x' repo", "git clone -u"),
    ("git clone -c core.fsmonitor='rm x' repo", "-c core.fsmonitor"),
    ("git clone --config=core.hooksPath=/x repo", "-c core.hooksPath"),
    ("git clone --template=/tmp/t repo", "--template"),
    ("git init --templ=/tmp/t", "--template"),
    ("git fetch --upload-pack=rm origin", "--upload-pack"),
    ("git ls-remote --upload-p='rm x' origin", "git ls-remote --upload-pack"),
    ("git push --receive-pack=rm origin", "--receive-pack"),
    ("git push --exec=rm origin", "git push --exec"),
    ("git archive --exec=rm --remote=x HEAD", "git archive --exec"),
    ("git clone 'ext::sh -c rm% x' dir", "ext::"),
    ("git clone ssh://-oProxyCommand=rm/x dir", "host starts with '-'"),
    ("git maintenance start", "git maintenance schedules"),
    ("git hook run pre-commit", "git hook runs commands"),
    ("echo ':!rm x' | git commit", "git commit with piped input"),
    ("echo x | sh -c 'git commit'", "git commit with piped input"),
    ("GIT_CONFIG_PARAMETERS=\"'alias.x=!rm'\" git x", "GIT_CONFIG_PARAMETERS"),
    ("GIT_PAGER=rm git log", "GIT_PAGER"),
    ("GIT_DIR=/x git status", "GIT_DIR"),
    # awk and sed programs that run commands or write files
    ("awk 'BEGIN {system(\"rm x\")}'", "calls system()"),
    ("awk '{print | \"sh\"}' f", "pipes to or from a command"),
    ("awk 'BEGIN {\"date\" | getline d}'", "pipes to or from a command"),
    ("awk '{print > \"/tmp/x\"}' f", "a > inside an action"),
    ("awk '@include \"x\"'", "@ directive"),
    ("awk 'BEGIN { if (1) /\"/ ; system(\"rm\") ; x = \"/\" }'", "calls system()"),
    ("awk -f prog.awk f", "awk -f runs a program file"),
    ("awk --fi=prog.awk f", "awk --file runs a program file"),
    ("gawk -l ext 'BEGIN{}'", "gawk -l loads an extension"),
    ("sed 's/x/y/e' f", "the e flag"),
    ("sed -n '1e rm x' f", "an e command"),
    ("sed 'w /etc/passwd' f", "a w command"),
    ("sed 's/x/y/w out' f", "the w flag"),
    ("sed -f script.sed f", "sed -f runs a script file"),
    ("sed p f -f script.sed", "sed -f runs a script file"),  # GNU options follow operands
    ("sed --fi=script.sed f", "sed --file"),
    # other programs with an option that starts a program, in any abbreviation
    ("tar -I 'rm x' -cf a.tar d", "tar -I"),
    ("tar --to-command='rm x' -xf a.tar", "tar --to-command"),
    ("tar --to-c='rm x' -xf a.tar", "tar --to-command"),
    ("tar --checkpoint-action=exec='rm x' -cf a d", "tar --checkpoint-action"),
    ("tar --checkpoint-a=exec='rm x' -cf a d", "tar --checkpoint-action"),
    ("tar --use-comp='rm x' -cf a d", "tar --use-compress-program"),
    ("tar cIf 'rm x' a.tar d", "tar -I"),
    ("tar -cf host:a.tar d", "names a remote archive"),
    ("rsync -e 'rm x' a b", "rsync -e"),
    ("rsync -avze 'rm x' a b", "rsync -e"),
    ("rsync --rsync-path='rm x' a host:b", "rsync --rsync-path"),
    ("rsync --rsh='rm x' a host:b", "rsync --rsh"),
    ("ssh -o ProxyCommand='rm x' host", "ssh -o proxycommand"),
    ("ssh -oLocalCommand=rm -oPermitLocalCommand=yes host", "ssh -o localcommand"),
    ("ssh -F ./config host", "ssh -F"),
    ("rg --pre 'rm x' foo", "rg --pre"),
    ("rg -z foo", "rg -z"),
    ("sort --compress-program=rm f", "sort --compress-program"),
    ("sort --compress-prog=rm f", "sort --compress-program"),
    ("zip -TT 'rm x' a.zip f", "zip -T"),
    ("zip --unzip-command='rm x' -T a.zip f", "zip --unzip-command"),
    ("wget --use-askpass=rm http://x", "wget --use-askpass"),
    ("wget --use-a=rm http://x", "wget --use-askpass"),
    ("wget -e use_askpass=rm http://x", "wget -e"),
    ("sdiff --diff-program=rm a b", "sdiff --diff-program"),
    ("sdiff --diff-p=rm a b", "sdiff --diff-program"),
    ("sdiff -o out a b", "sdiff -o merges interactively"),
    ("diff -l a b", "diff -l pipes its output through pr"),
    ("less --lesskey-src=k f", "less --lesskey-src"),
    ("less --lesskey-s=k f", "less --lesskey-src"),
    ("less '+!rm x' f", "less +cmd"),
    ("man -P 'rm x' ls", "man: option '-P'"),
    ("man ./page.1", "man given a file path"),
])
def test_a_command_that_would_run_something_unallowed_is_refused(command: str,
                                                                why: str | None) -> None:
    reason = miss(command)
    if why is None:
        reason = miss(command, [entry for entry in ALLOW if entry != "python3"])
        assert reason == '"python3" is not in tools.exec.allowlist'
        return
    assert reason is not None, f"{command!r} was allowed"
    assert why in reason


@pytest.mark.parametrize("assignment", [
    "LD_PRELOAD=/x", "LD_LIBRARY_PATH=/x", "LD_AUDIT=/x", "DYLD_INSERT_LIBRARIES=/x",
    "PYTHONPATH=/x", "PYTHONSTARTUP=/x", "NODE_OPTIONS=--require=/x", "PERL5LIB=/x",
    "PERL5OPT=-Mx", "RUBYOPT=-rx", "BASH_ENV=/x", "ENV=/x", "IFS=/", "PATH=/tmp",
    "GIT_SSH_COMMAND=x", "GIT_CONFIG_COUNT=1", "PAGER=x", "EDITOR=x", "HOME=/tmp",
    "ld_preload=/x", "TAR_OPTIONS=--to-command=sh", "LESSOPEN=|x", "VIMINIT=x",
    "BASH_XTRACEFD=3", "PS4=x", "POSIXLY_CORRECT=1",
])
def test_loader_and_interpreter_variables_are_refused_wherever_they_are_set(
        assignment: str) -> None:
    name = assignment.split("=", 1)[0]
    quoted = shlex.quote(assignment)
    for command in (f"{quoted} ls", f"env {quoted} ls", f"nice env {quoted} ls",
                    f"sh -c {shlex.quote(quoted + ' ls')}", f"{quoted}; ls"):
        reason = miss(command)
        assert reason is not None and name in reason, command
    plus = assignment.replace("=", "+=", 1)
    assert name in (miss(f"{shlex.quote(plus)} ls") or ""), plus


def test_env_refuses_an_exported_function_whatever_its_name() -> None:
    # bash imports `BASH_FUNC_<name>%%` from the environment as a function
    reason = miss("env 'BASH_FUNC_ls%%=() { rm -rf /; }' bash -c ls")
    assert reason is not None and "BASH_FUNC_ls%%" in reason


@pytest.mark.parametrize(("command", "word"), [
    # a file named `-c` and one named `alias.x=!touch y` in the directory make `git *`
    # run `git -c alias.x=... x`: the words the analysis saw are not the words git gets
    ("git *", "*"),
    ("git log {a,b}", "{a,b}"),
    ("find . *", "*"),
    ("sed -n p *.txt", "*.txt"),
    ("nice git *", "*"),
    ("tar cf x.tar *", "*"),
    ("env -u * ls", "*"),
    ("unknown-tool *.py", "*.py"),  # a program the policy knows nothing about
])
def test_a_shell_expansion_that_could_change_what_runs_is_refused(command: str,
                                                                  word: str) -> None:
    reason = miss(command, [*ALLOW, "unknown-tool"])
    assert reason is not None and f"the word {word!r} is a" in reason and "quote it" in reason


@pytest.mark.parametrize("command", [
    "ls *.py", "grep foo *.py", "nice ls *.py", "timeout 5 grep x *.txt", "cat {a,b}.txt",
    "sh -c 'ls *.py'", "awk '{print $1}' f", "ls ~", "ls ~/src", "git -C ~/repo status",
    "echo *", "wc -l [ab].txt",
])
def test_expansions_that_cannot_change_what_runs_are_fine(command: str) -> None:
    assert miss(command) is None


@pytest.mark.parametrize(("command", "why"), [
    ("timeout $T ls", "parameter expansion ($)"),
    ("echo \"$HOME\"", "parameter expansion ($) inside double quotes"),
    ("git ${X:--c} alias.x='!rm' x", "parameter expansion (${...})"),
    ("echo $((1+1))", "arithmetic expansion ($((...)))"),
    ("echo $[1]", "arithmetic expansion ($[...])"),
    ("echo $\"x\"", 'locale quoting ($"...")'),
    ("echo `rm x`", "command substitution (`...`)"),
    ("ls ~root", "tilde expansion other than ~ or ~/"),
    ("ls ~+", "tilde expansion other than ~ or ~/"),
    ("{rm,x}", "not a literal name"),
    ("*", "not a literal name"),
])
def test_expansions_the_policy_does_not_read_are_refused(command: str, why: str) -> None:
    reason = miss(command)
    assert reason is not None and why in reason


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


@pytest.mark.parametrize("search_path", ["/usr/bin:.", "/usr/bin::/bin", "bin:/usr/bin", ""])
def test_a_relative_path_entry_makes_bare_names_a_miss(search_path: str) -> None:
    analysis = analyze_command("ls -la", cwd="/ws", which=BINS.get, search_path=search_path)
    if search_path:
        assert not analysis.ok and "make PATH absolute" in (analysis.reason or "")
    else:  # no PATH at all: bash searches its default, absolute path
        assert analysis.ok
    assert analyze_command("./tool", cwd="/ws", which=BINS.get, search_path=search_path).ok


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
    analysis = analyze_command("env nice sh -c 'ls | wc -l' && find . -name x",
                               cwd="/ws", which=BINS.get)
    assert analysis.ok
    assert [(s.executable, s.via) for s in analysis.segments] == [
        ("ls", ("env", "nice", "sh")), ("wc", ("env", "nice", "sh")), ("find", ())]
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
