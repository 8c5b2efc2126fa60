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
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from exec_gate_rig import ShimShell

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
