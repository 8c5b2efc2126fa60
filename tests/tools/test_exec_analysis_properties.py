"""The exec analysis under arbitrary and generated commands.

- Any text: the analysis and the display scanners (`shell_scan`, `shell_words`) return
  without an exception.
- Soundness against a real bash: a command built from a grammar of shell fragments
  (quoting tricks, expansions, operators, redirections, wrappers, shells, builtins,
  reserved words, odd characters) that the gate allows is one `bash -n` reads, and run by
  bash with a PATH of logging shims it starts only allowlisted programs, with exactly the
  words the analysis found.
- Wrapper chains: a forbidden program inside any chain of wrappers and shells (up to the
  nesting limit) is never allowed, the same chain around an allowed program is, and a
  loader variable set anywhere in the chain is refused.
"""

from __future__ import annotations

import shlex
import shutil
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest
from exec_gate_rig import ShimShell
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from clawharness.tools.exec_analysis import MAX_NESTING
from clawharness.tools.exec_sed import sed_script_problem
from clawharness.tools.exec_shell_syntax import parse_shell_script
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
                    suppress_health_check=[HealthCheck.too_slow,
                                           HealthCheck.function_scoped_fixture])

BINS = {name: f"/fake/bin/{name}" for name in (
    "ls", "rm", "env", "nice", "timeout", "nohup", "stdbuf", "setsid", "sh", "bash")}

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
        assert not analysis.ok and "the command contains a NUL character" in (
            analysis.reason or "")


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


# --- soundness against a real bash ------------------------------------------------------

ALLOWED = ["echo", "ls", "git", "printf", "true", "test", "cat", "["]
FORBIDDEN = ["touch", "rm", "id", "curl"]

#: words: plain, quoted every way, escaped, expanding, and the ones bash reads otherwise
_WORDS = [
    "a", "-n", "--x", "x=1", "'a b'", '"a b"', "a\\ b", "\\;", "';'", '";"', "'\\''",
    "\\'", '\\"', '"\\""', '"it\'s"', "'#'", "#", "a#b", "#x", "*", "?", "[ab]", "{a,b}",
    "{a..c}", "{}", "~", "~/x", "~root", "~+", "!", "}", "{", "=", "--upload-pack=x",
    "-c", "alias.x=!touch", "status", "log", "'touch X'", '"touch X"', "é", "ﬁ",
    "$x", "${x}", '"$x"', "'$x'", "$'\\''", "$'a'", '$"a"', "$(touch X)", "`touch X`",
    '"$(touch X)"', "$((1))", "$[1]", "\\$x", "'\\$x'", "<x", ">x", "2>&1", "&>x", "<<<x",
    "<(touch X)", "(x)", "\\", "'", '"', "\\\n", "\u00a0", "\u202e", "\u200b", "\r", "\x1b",
]
_PROGRAMS = [*ALLOWED, *FORBIDDEN, "'ec'ho", "e\\cho", '"ls"', "\\touch", "./echo",
             "/bin/touch", "ECHO", "eval", "command", "exec", "builtin", "source", ".",
             "xargs", "sudo", "busybox", "time", "if", "!", "{", "[[", "read", "export",
             "printf -v x", "test -v x", "alias", "FOO=1 echo", "IFS=x echo",
             "PATH=/x echo", "echo$x"]
_WRAPPERS = ["", "", "", "env ", "env -- ", "env FOO=1 ", "nice ", "nice -n 3 ",
             "nice -5 ", "timeout 5 ", "timeout -s KILL 5 ", "nohup ", "stdbuf -oL ",
             "env -S ", "nice --adj=2 ", "timeout 5 -s KILL "]
#: words bash reads as they are written, so that generated commands are often allowed
_PLAIN_WORDS = ["a", "b.txt", "-l", "--oneline", "'x y'", '"x y"', "x\\ y", "'a;b'", "."]
_JOINS = ["; ", ";", " && ", "&&", " || ", " | ", "|", "\n", " & ", " |& ", " ;; ", "\n\n",
          " # ", " \\\n "]


#: pieces of quoting and structure run together with no spaces: where a reader
#: misjudges where a quote, a word or a command ends, `touch X` becomes a command
_SOUP = ["'", '"', "\\", "$", ";", " ", " ; touch X ; ", "touch X", "a", "#", "\\'",
         "$'", '$"', "\\\n", " && ", "|", "\n", "\\\\", "`", "'\\''", "\\;"]
soup = st.lists(st.sampled_from(_SOUP), min_size=1, max_size=10).map("".join)


@st.composite
def simple_commands(draw: st.DrawFn) -> str:
    wrapper = draw(st.sampled_from(_WRAPPERS))
    program = draw(st.sampled_from(draw(st.sampled_from([ALLOWED, ALLOWED, _PROGRAMS]))))
    pool = draw(st.sampled_from([_WORDS, _PLAIN_WORDS]))
    words = draw(st.lists(st.one_of(st.sampled_from(pool), soup), max_size=4))
    glue = draw(st.sampled_from([" ", " ", " ", "\t", ""]))
    return wrapper + program + "".join(glue + word for word in words)


def _double_quoted(text: str) -> str:
    return '"' + "".join("\\" + c if c in '"\\$`' else c for c in text) + '"'


@st.composite
def command_lines(draw: st.DrawFn, depth: int = 0) -> str:
    parts = draw(st.lists(simple_commands(), min_size=1, max_size=3))
    line = parts[0]
    for part in parts[1:]:
        joins = draw(st.sampled_from([_JOINS, ["; ", " && ", " | ", "\n"]]))
        line += draw(st.sampled_from(joins)) + part
    if depth < 2 and draw(st.integers(0, 4)) == 0:
        shell = draw(st.sampled_from(["sh -c ", "bash -c ", "bash -lc ", "dash -c ",
                                      "sh -ec ", "zsh -c "]))
        quote = draw(st.sampled_from([shlex.quote, _double_quoted]))
        inner = draw(command_lines(depth + 1))
        line = draw(st.sampled_from(["", "echo a; ", "echo a | "])) + shell + quote(inner)
    return line


@pytest.fixture(scope="module")
def shims(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShimShell]:
    shell = ShimShell(tmp_path_factory.mktemp("shims"), [*ALLOWED, *FORBIDDEN, "ECHO"])
    yield shell
    shell.cleanup()


def _expands(command: str) -> bool:
    return any(char in command for char in "*?[{~")


@settings(max_examples=400, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(command_lines())
def test_an_allowed_command_runs_only_allowed_programs_in_a_real_bash(
        shims: ShimShell, command: str) -> None:
    analysis = analyze_command(command, cwd=str(shims.cwd), which=shims.which)
    verdict = match_exec_allowlist(analysis, ALLOWED)
    event("allowed" if verdict is None else "refused")
    if verdict is not None:
        return
    assert shims.syntax_ok(command), f"bash -n rejects {command!r}, which the gate allowed"
    started = shims.started(command)
    for argv in started:
        assert argv[0] in ALLOWED, f"{command!r} was allowed and started {argv}"
    found = {segment.argv for segment in analysis.segments}
    if _expands(command):
        # a glob or brace list: the words come from the directory; the programs must not
        started, found = {argv[:1] for argv in started}, {argv[:1] for argv in found}
    assert started <= found, f"{command!r}: bash started {started}, the gate saw {found}"
    if "-ec" not in command:  # with errexit a failing shim ends the script early
        assert started == found, f"{command!r}: the gate saw {found - started} too"


#: quoting alone: any word the gate allows must reach the program exactly as bash
#: passes it
_QUOTING = ["'", '"', "\\", "$", "a", " ", "\t", "#", "$'", '$"', "\\'", "'\\''", '\\"',
            '"\\""', "\\\\", '"\\\\"', "\\$", '"\\$"', "é", "\\n", "'\\n'",
            '"\\n"', "!", "=", "-"]


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.lists(st.sampled_from(_QUOTING), min_size=1, max_size=12).map("".join))
def test_quoted_words_reach_the_program_as_bash_passes_them(shims: ShimShell,
                                                            words: str) -> None:
    command = "echo " + words
    analysis = analyze_command(command, cwd=str(shims.cwd), which=shims.which)
    event("allowed" if analysis.ok else "refused")
    if analysis.ok:
        assert shims.run(command) == [segment.argv for segment in analysis.segments], \
            command


@pytest.mark.parametrize("command", [
    "echo a 'b c' \"d e\" f\\ g", "echo '\\'' ; touch X ; echo '\\'", "e'ch'o \"a;b\"",
    "ls -l | git log --oneline && echo done || true", "env nice -n 3 timeout 5 echo x",
    "sh -c 'echo in; ls' && bash -c \"git status\"", "echo hi # ; touch X", "[ -f x ]",
    "printf '%s\\n' a b", "echo a\n\necho b", "git log |\n  cat",
])
def test_the_gate_reads_words_as_bash_does(shims: ShimShell, command: str) -> None:
    analysis = analyze_command(command, cwd=str(shims.cwd), which=shims.which)
    assert match_exec_allowlist(analysis, ALLOWED) is None, analysis.reason
    assert shims.started(command) == {segment.argv for segment in analysis.segments}


@pytest.mark.parametrize("command", [
    "echo $'\\'' ; touch X ; echo \\'", "echo \\\"; touch X; echo \\\"",
    "echo a\\\n; touch X", "echo ${x:-a}; touch X", "ech\\\no hi; touch X",
])
def test_what_bash_would_run_differently_is_never_allowed(shims: ShimShell,
                                                          command: str) -> None:
    # each of these starts `touch` in a real bash
    assert ("touch", "X") in shims.started(command)
    analysis = analyze_command(command, cwd=str(shims.cwd), which=shims.which)
    assert match_exec_allowlist(analysis, ALLOWED) is not None


# --- wrapper chains -----------------------------------------------------------------------


def _wrap(inner: str, layer: str) -> str:
    """One more layer around `inner`, a command line."""
    quoted = shlex.quote(inner)
    forms = {
        "env": f"env {inner}", "env-i": f"env -i FOO=1 {inner}", "nice": f"nice -n 5 {inner}",
        "timeout": f"timeout -s KILL 5 {inner}", "nohup": f"nohup {inner}",
        "stdbuf": f"stdbuf -oL {inner}", "setsid": f"setsid -w {inner}",
        "sh": f"sh -c {quoted}", "bash": f"bash -lc {quoted}", "dash": f"dash -ec {quoted}",
    }
    return forms[layer]


layers = st.lists(st.sampled_from([
    "env", "env-i", "nice", "timeout", "nohup", "stdbuf", "setsid", "sh", "bash", "dash"]),
    max_size=MAX_NESTING)
WRAPPERS_ALLOWED = ["ls", "sh", "bash", "env"]


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
    # a wrapper runs its first word as a program: an assignment needs a shell around it
    command = _chain(inner, [*chain, "sh"] if chain and not through_env else chain)
    analysis = analyze_command(command, cwd="/ws", which=BINS.get)
    reason = match_exec_allowlist(analysis, ["*"])
    assert reason is not None and (name in reason or "nested more than" in reason), command


def _reads_as_shown(char: str) -> bool:
    return unicodedata.category(char) not in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp", "Zs")


@PROPERTY
@given(st.lists(st.text(alphabet=st.characters().filter(_reads_as_shown), min_size=1,
                        max_size=10), min_size=1, max_size=6))
def test_quoting_arguments_does_not_change_what_runs(words: list[str]) -> None:
    command = shlex.join(["ls", *words])
    analysis = analyze_command(command, cwd="/ws", which=BINS.get)
    assert analysis.ok, analysis.reason
    assert [s.argv for s in analysis.segments] == [("ls", *words)]


@PROPERTY
@given(command_lines())
def test_the_parser_and_the_analysis_agree_on_what_they_refuse(command: str) -> None:
    # a command the syntax reader refuses is never allowed, with `*` or without
    if not isinstance(parse_shell_script(command), type(parse_shell_script(""))):
        assert not analyze_command(command, cwd="/ws", which=BINS.get).ok


def test_the_shims_are_real(tmp_path: Path) -> None:
    # the rig itself: bash really runs what the gate would miss
    shell = ShimShell(tmp_path, ["touch"])
    assert shell.run("echo x; touch y") == [("echo", "x"), ("touch", "y")]
