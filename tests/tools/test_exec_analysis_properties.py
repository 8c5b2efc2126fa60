"""The exec analysis and the shell scanners under arbitrary and generated commands.

- Any text: the analysis and the display scanners (`shell_scan`, `shell_words`) return
  without an exception.
- Soundness: a forbidden program inside any chain of wrappers, shells and `find -exec`
  (up to the nesting limit) is never allowed, and a loader variable set anywhere in the
  chain is refused.
- Completeness: the same chains around an allowed program are allowed, so the analysis
  sees through them rather than refusing everything.
"""

from __future__ import annotations

import shlex
import shutil

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from clawharness.tools.exec_analysis import MAX_NESTING
from clawharness.tools.exec_sed import sed_script_problem
from clawharness.tools.policy import analyze_command, match_exec_allowlist
from clawharness.tools.shell_scan import (
    has_shell_compound_command,
    split_top_level_pipes,
    split_top_level_stages,
    strip_shell_preamble,
)
from clawharness.tools.shell_words import (
    parse_shell_options,
    parse_shell_words,
    trim_leading_env,
    unwrap_shell_wrapper,
)

PROPERTY = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

BINS = {name: f"/fake/bin/{name}" for name in (
    "ls", "rm", "env", "nice", "timeout", "nohup", "stdbuf", "setsid", "ionice", "taskset",
    "xargs", "find", "sh", "bash", "watch", "flock", "busybox")}

#: characters that matter to a shell, and a few that do not
_SHELL_CHARS = list("ab lsrm-=/.~*?[]{}$`'\"\\;&|<>()#!\n\t\r%@^,:+01")
_SHELL_TOKENS = ["\x00", "é", "\u202e", "$(", "<<", "<<-", "$((", "${", "'$", "env ",
                 "sh -c ", "find . -exec ", "xargs ", "git -c ", "awk '", "sed '", "-exec",
                 "{}", "';'"]
shell_text = st.lists(st.sampled_from([*_SHELL_CHARS, *_SHELL_TOKENS]),
                      max_size=40).map("".join)


@PROPERTY
@given(shell_text)
def test_the_analysis_answers_any_text(command: str) -> None:
    # the real PATH lookup: what the host runs with
    analysis = analyze_command(command, cwd="/ws", which=shutil.which)
    assert analysis.ok or analysis.reason
    match_exec_allowlist(analysis, ["*"])


def test_a_nul_in_the_command_is_refused_not_a_value_error() -> None:
    # found by the search: os.path.realpath("/\x00") raised ValueError out of the policy
    for command in ("/\x00", "ls\x00 -la", "env /\x00"):
        analysis = analyze_command(command, cwd="/ws", which=shutil.which)
        assert not analysis.ok and analysis.reason == "the command contains a NUL character"


@PROPERTY
@given(shell_text)
def test_the_display_scanners_answer_any_text(command: str) -> None:
    split_top_level_stages(command)
    split_top_level_pipes(command)
    has_shell_compound_command(command)
    strip_shell_preamble(command)
    words = parse_shell_words(command).words
    trim_leading_env(words)
    parse_shell_options(words, 1, ["-c", "-n"])
    unwrap_shell_wrapper(command)


@PROPERTY
@given(st.text(max_size=80))
def test_the_sed_reader_answers_any_script(script: str) -> None:
    problem = sed_script_problem(script)
    assert problem is None or isinstance(problem, str)


def _wrap(inner: str, layer: str) -> str:
    """One more layer around `inner`, a command line."""
    quoted = shlex.quote(inner)
    forms = {
        "env": f"env {inner}", "env-i": f"env -i FOO=1 {inner}", "nice": f"nice -n 5 {inner}",
        "timeout": f"timeout -s KILL 5 {inner}", "nohup": f"nohup {inner}",
        "stdbuf": f"stdbuf -oL {inner}", "setsid": f"setsid -f {inner}",
        "ionice": f"ionice -c3 {inner}", "taskset": f"taskset 0x1 {inner}",
        "time": f"time -p {inner}", "command": f"command {inner}", "exec": f"exec {inner}",
        "busybox": f"busybox {inner}", "xargs": f"xargs -0 {inner}",
        "sh": f"sh -c {quoted}", "bash": f"bash -lc {quoted}", "watch": f"watch {quoted}",
        "flock": f"flock -w 1 /tmp/l -c {quoted}", "eval": f"eval {quoted}",
        "find": f"find . -exec sh -c {quoted} ';'",
    }
    return forms[layer]


def _depth(chain: list[str]) -> int:
    return len(chain) + chain.count("find")  # `find -exec sh -c` is two levels


layers = st.lists(st.sampled_from([
    "env", "env-i", "nice", "timeout", "nohup", "stdbuf", "setsid", "ionice", "taskset", "time",
    "command", "exec", "busybox", "xargs", "sh", "bash", "watch", "flock", "eval", "find"]),
    max_size=MAX_NESTING).filter(lambda chain: _depth(chain) <= MAX_NESTING)
WRAPPERS_ALLOWED = ["ls", "find", "xargs", "sh", "bash", "env", "watch", "busybox"]


def _chain(program: str, chain: list[str]) -> str:
    command = program
    for layer in chain:
        command = _wrap(command, layer)
    return command


@PROPERTY
@given(layers)
def test_a_forbidden_program_is_never_allowed_whatever_wraps_it(chain: list[str]) -> None:
    command = _chain("rm -rf /tmp/victim", chain)
    analysis = analyze_command(command, cwd="/ws", which=BINS.get)
    assert match_exec_allowlist(analysis, WRAPPERS_ALLOWED) is not None, command


@PROPERTY
@given(layers)
def test_an_allowed_program_is_allowed_through_the_same_wrappers(chain: list[str]) -> None:
    command = _chain("ls -la", chain)
    analysis = analyze_command(command, cwd="/ws", which=BINS.get)
    assert match_exec_allowlist(analysis, WRAPPERS_ALLOWED) is None, (command, analysis.reason)


@PROPERTY
@given(layers, st.sampled_from(["LD_PRELOAD", "DYLD_INSERT_LIBRARIES", "PYTHONPATH",
                                "NODE_OPTIONS", "BASH_ENV", "PATH", "IFS", "GIT_SSH_COMMAND"]),
       st.booleans())
def test_a_loader_variable_is_refused_wherever_the_chain_sets_it(
        chain: list[str], name: str, through_env: bool) -> None:
    inner = f"env {name}=/x ls" if through_env else f"{name}=/x ls"
    command = _chain(inner, chain)
    analysis = analyze_command(command, cwd="/ws", which=BINS.get)
    reason = match_exec_allowlist(analysis, ["*"])
    assert reason is not None and name in reason, command


@PROPERTY
@given(st.lists(st.text(alphabet=st.characters(blacklist_categories=["Cs", "Cc"]),
                        min_size=1, max_size=10), min_size=1, max_size=6))
def test_quoting_arguments_does_not_change_what_runs(words: list[str]) -> None:
    command = shlex.join(["ls", *words])
    analysis = analyze_command(command, cwd="/ws", which=BINS.get)
    assert analysis.ok, analysis.reason
    assert [s.argv for s in analysis.segments] == [("ls", *words)]
