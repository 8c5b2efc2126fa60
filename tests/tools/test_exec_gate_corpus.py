"""The exec gate against an attack corpus (`data/exec_gate_corpus.jsonl`).

Each case is a command, the allowlist it is tried with and the verdict: `allowed`, or
`miss` (the command is asked about, or refused with `ask: "off"`), with a part of the
reason where it matters. The categories: ANSI-C and locale quoting, quoting tricks,
expansions, command and process substitution in every position, redirections, separators
and compound commands, comments, line continuations, builtins, wrappers, shells,
interpreters, editors, git, programs with options that run programs (abbreviated
options included), program paths, unicode lookalikes and control characters, globs,
assignments, piped input.

Every case runs through the policy with both `ask` settings; every allowed case also
runs in a real bash whose PATH holds only logging shims, which must start nothing but
allowlisted programs.
"""

from __future__ import annotations

import json
import shlex
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from exec_gate_rig import ShimShell
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from clawharness.config.schema import ToolsConfig
from clawharness.errors import ToolPolicyDeniedError
from clawharness.tools.policy import EffectiveToolPolicy, analyze_command, match_exec_allowlist

CORPUS = Path(__file__).parent / "data" / "exec_gate_corpus.jsonl"
CASES: list[dict[str, Any]] = [json.loads(line) for line in CORPUS.read_text().splitlines()
                               if line.strip()]


def fake_which(name: str) -> str | None:
    # a path that does not exist, so the verdict does not depend on this machine's links
    return f"/nonexistent/bin/{name}"


def test_the_corpus_is_large_and_covers_every_category() -> None:
    assert len(CASES) >= 150
    assert len({case["id"] for case in CASES}) == len(CASES)
    categories = {case["category"] for case in CASES}
    assert len(categories) >= 15
    for category in categories:
        verdicts = {case["verdict"] for case in CASES if case["category"] == category}
        assert "miss" in verdicts, category
    assert sum(case["verdict"] == "allowed" for case in CASES) >= 50


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_the_gate_gives_each_case_its_verdict(case: dict[str, Any]) -> None:
    command, allowlist = case["command"], case["allowlist"]
    for which in (fake_which, shutil.which):
        analysis = analyze_command(command, cwd="/ws", which=which)
        reason = match_exec_allowlist(analysis, allowlist)
        if case["verdict"] == "allowed":
            assert reason is None, f"{command!r} was refused: {reason}"
        else:
            assert reason is not None, f"{command!r} was allowed"
            if "why" in case:
                assert case["why"] in reason, (command, reason)


@pytest.mark.parametrize("case", [c for c in CASES if c["verdict"] == "miss"],
                         ids=[c["id"] for c in CASES if c["verdict"] == "miss"])
def test_a_miss_asks_or_refuses_through_the_policy(case: dict[str, Any]) -> None:
    arguments = {"command": case["command"]}
    refusing = EffectiveToolPolicy(ToolsConfig.model_validate({"exec": {
        "security": "allowlist", "ask": "off", "allowlist": case["allowlist"]}}),
        which=fake_which)
    with pytest.raises(ToolPolicyDeniedError, match=r"tools\.exec\.ask is \"off\""):
        refusing.needs_approval("exec", arguments)
    asking = EffectiveToolPolicy(ToolsConfig.model_validate({"exec": {
        "security": "allowlist", "ask": "on-miss", "allowlist": case["allowlist"]}}),
        which=fake_which)
    assert "on-miss" in (asking.needs_approval("exec", arguments) or "")
    # an approval of a command the analysis cannot vouch for covers only its exact text
    subject = asking.approval_subject("exec", arguments)
    analysis = asking.analyze(case["command"], arguments)
    if not analysis.ok:
        assert subject.grant_keys == frozenset({f"exec-command:{case['command']}"})


ALLOWED_CASES = [c for c in CASES if c["verdict"] == "allowed"
                 and all("/" not in entry for entry in c["allowlist"])]


@pytest.fixture(scope="module")
def shims(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ShimShell]:
    names = {entry for case in CASES for entry in case["allowlist"] if "/" not in entry}
    shell = ShimShell(tmp_path_factory.mktemp("corpus"), {*names, "touch", "rm", "head"})
    yield shell
    shell.cleanup()


@pytest.mark.parametrize("case", ALLOWED_CASES, ids=[c["id"] for c in ALLOWED_CASES])
def test_an_allowed_case_starts_only_allowlisted_programs_in_bash(
        shims: ShimShell, case: dict[str, Any]) -> None:
    command = case["command"]
    analysis = analyze_command(command, cwd=str(shims.cwd), which=shims.which)
    assert match_exec_allowlist(analysis, case["allowlist"]) is None, analysis.reason
    assert shims.syntax_ok(command)
    started = shims.started(command)
    assert bool(started) == bool(analysis.segments), (command, started)
    for argv in started:
        assert argv[0] in case["allowlist"], f"{command!r} started {argv}"


# --- variants the corpus does not list ----------------------------------------------------


def _mutations(command: str) -> list[Callable[[int], str]]:
    """Ways to rewrite `command` at a position: what an attacker tries next."""
    def at(i: int) -> int:
        return i % (len(command) + 1)

    return [
        lambda i: command[:at(i)] + "''" + command[at(i):],
        lambda i: command[:at(i)] + '""' + command[at(i):],
        lambda i: command[:at(i)] + "\\" + command[at(i):],
        lambda i: command[:at(i)] + "'" + command[at(i):at(i) + 1] + "'" + command[at(i) + 1:],
        lambda i: command[:at(i)] + '"' + command[at(i):at(i) + 1] + '"' + command[at(i) + 1:],
        lambda i: command.replace(" ", "\t", 1 + i % 3),
        lambda i: command[:at(i)] + "\\\n" + command[at(i):],
        lambda i: command[:at(i)] + command[at(i):at(i) + 1] * 2 + command[at(i) + 1:],
        lambda i: command[:at(i)] + command[at(i) + 1:],
        lambda i: command[:at(i)] + command[at(i):at(i) + 1].swapcase() + command[at(i) + 1:],
        lambda i: ("sh -c ", "bash -c ", "env ", "nice ", "timeout 5 ", "FOO=1 ",
                   "echo a; ", "echo a | ", "echo a && ")[i % 9] + command,
        lambda i: command + ("; ", " #", " && touch X", " | touch X", ";touch X")[i % 5],
        lambda i: shlex.quote(command) if i % 2 else '"' + command.replace('"', '\\"') + '"',
        lambda i: command.replace("touch", ("/usr/bin/touch", "tou\\ch", "t'ouch'", '"touch"',
                                            "./touch", "TOUCH")[i % 6]),
        lambda i: command[:at(i)] + (" ", ";", "|", "&", "#", "$", "`", "'", '"', "=", "*",
                                     "{", "}", "(", ")", "\n", "~", "!")[i % 18]
        + command[at(i):],
    ]


@settings(max_examples=600, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.one_of(st.sampled_from(ALLOWED_CASES), st.sampled_from(CASES)), st.lists(st.tuples(st.integers(0, 14), st.integers(0, 200)),
                                        min_size=1, max_size=4))
def test_variants_of_the_corpus_never_start_an_unallowed_program(
        shims: ShimShell, case: dict[str, Any], edits: list[tuple[int, int]]) -> None:
    command = case["command"]
    for which, where in edits:
        command = _mutations(command)[which](where)
    allowlist = case["allowlist"]
    analysis = analyze_command(command, cwd=str(shims.cwd), which=shims.which)
    allowed = match_exec_allowlist(analysis, allowlist) is None
    event("allowed" if allowed else "miss")
    if not allowed or any("/" in entry for entry in allowlist):
        return
    assert shims.syntax_ok(command), f"bash -n rejects {command!r}, which the gate allowed"
    for argv in shims.started(command):
        assert argv[0] in allowlist, f"{command!r} was allowed and started {argv}"
