"""The shell gate end to end (issue 31, section 2): a scripted model asks the host to run
the worst of the audit's commands through `Host.run_turn`, the real exec tool and bash.
With `ask: "off"` each is refused, with no approver each is refused unasked-for, and in
neither case does the marker it would create appear; with `security: "full"` the same
commands do create it, so the markers prove the commands are real. The OS sandbox is off
here: the gate is the wall under test, and the sandbox would hide a marker it let
through."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest


def calls(*commands: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "exec", "arguments": {"command": c}, "id": f"call_{i}"}
                           for i, c in enumerate(commands)]}


def worst_cases(markers: Path) -> list[tuple[str, list[str]]]:
    """(command, allowlist): each creates a file in `markers` when bash runs it."""
    m = markers
    return [
        (f"echo $'\\'' ; touch {m}/ansi-c ; echo \\'", ["echo"]),
        (f"git ls-remote --upload-p='touch {m}/upload-pack' .", ["git", "ls"]),
        (f"git -c alias.x='!touch {m}/alias' x", ["git", "ls"]),
        (f"git \"-c\" 'alias.y=!touch {m}/quoted-c' y", ["git", "ls"]),
        (f"env --sp='touch {m}/split-string'", ["echo"]),
        (f"tar --checkpoint=1 --checkpoint-a=exec='touch {m}/checkpoint' -cf "
         f"{m}/x.tar {m}/..", ["tar"]),
        (f"test -v 'a[$(touch {m}/test-v)]'", ["test"]),
        (f"printf -v 'a[$(touch {m}/printf-v)]' x", ["printf"]),
        (f"sh -c 'echo x; touch {m}/sh-c'", ["echo"]),
        (f"echo a\\\n; touch {m}/continuation", ["echo"]),
        (f"python3 -c 'open(\"{m}/python-c\", \"w\")'", ["python3"]),
        (f"awk 'BEGIN {{ system(\"touch {m}/awk\") }}'", ["awk"]),
    ]


def marker_of(command: str, markers: Path) -> Path:
    name = command.split(f"{markers}/", 1)[1]
    return markers / name.split("'")[0].split(")")[0].split('"')[0].split(" ")[0]


def unsandboxed(tmp_path: Path) -> dict[str, Any]:
    return {"defaults": {"model": "scripted/m1", "workspace": str(tmp_path / "workspace"),
                         "sandbox": {"mode": "off"}}}


async def tool_texts(host: Any, key: str) -> list[str]:
    return [e.text for e in await host.history(key) if e.role == "toolResult"]


@pytest.mark.parametrize("ask", ["off", "on-miss"])
async def test_the_worst_cases_run_nothing_through_a_turn(
        scripted_host: Any, tmp_path: Path, ask: str) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    (tmp_path / "workspace").mkdir(exist_ok=True)
    cases = worst_cases(markers)
    # every program any case names is allowlisted: each is still a miss
    allowlist = sorted({entry for _, entries in cases for entry in entries})
    host, _ = await scripted_host(
        {"responses": [calls(*(command for command, _ in cases)), {"text": "done"}]},
        tools={"exec": {"security": "allowlist", "ask": ask, "allowlist": allowlist}},
        agents=unsandboxed(tmp_path))
    result = await host.run_turn("agent:main:worst", "try them")
    assert [call.is_error for call in result.tool_calls] == [True] * len(cases)
    texts = await tool_texts(host, "agent:main:worst")
    assert len(texts) == len(cases)
    for (command, _), text in zip(cases, texts, strict=True):
        if ask == "off":
            assert 'tools.exec.ask is "off"' in text, (command, text)
        else:
            # asked for, and with no one to ask the original's askFallback refuses
            assert "no approver is available" in text and "on-miss" in text, (command, text)
    assert list(markers.iterdir()) == []


async def test_the_same_commands_do_run_when_the_gate_is_off(scripted_host: Any,
                                                            tmp_path: Path) -> None:
    # the control: with security "full" bash runs each command and its marker appears
    markers = tmp_path / "markers"
    markers.mkdir()
    (tmp_path / "workspace").mkdir(exist_ok=True)
    runnable = [(c, a) for c, a in worst_cases(markers) if all(shutil.which(p) for p in a)]
    host, _ = await scripted_host(
        {"responses": [calls(*(c for c, _ in runnable)), {"text": "done"}]},
        tools={"exec": {"security": "full", "ask": "off"}}, agents=unsandboxed(tmp_path))
    await host.run_turn("agent:main:control", "run them")
    made = sorted(p.name for p in markers.iterdir())
    for command, _ in runnable:
        assert marker_of(command, markers).exists(), (command, made)
