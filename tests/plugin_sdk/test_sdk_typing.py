"""A type checker sees the SDK as it is: every exported name has its real type (none is
`Any`), an unknown name is an error, and a plugin written against it type-checks under
`--strict` with no `Any` expression at all (the example harness is that plugin).

mypy runs with the repository's own settings and cache, so a run after `mypy` (as in
scripts/test.sh) rechecks only the files written here.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from clawharness.plugin_sdk import (
    agent_harness,
    agent_harness_cli,
    agent_harness_process,
    agent_harness_runtime,
    agent_harness_session_runtime,
    agent_harness_tool_runtime,
    testing,
)

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "echo-harness" / "src" / "echo_harness"
MODULES = (agent_harness, agent_harness_runtime, agent_harness_tool_runtime,
           agent_harness_session_runtime, agent_harness_process, agent_harness_cli, testing)
REVEALED = re.compile(r":(?P<line>\d+): note: Revealed type is \"(?P<type>.*)\"$")


def mypy_config(tmp_path: Path, *, no_any_in: str | None = None) -> Path:
    """The repository's mypy settings as an ini file, plus, for module `no_any_in`,
    no `Any` expression and no explicit `Any`."""
    settings = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["mypy"]
    lines = ["[mypy]"]
    for key, value in settings.items():
        if key in ("files", "overrides"):
            continue
        rendered = ", ".join(value) if isinstance(value, list) else value
        lines.append(f"{key} = {rendered}")
    for override in settings.get("overrides", []):
        modules = override["module"]
        names = ", ".join(modules) if isinstance(modules, list) else modules
        lines.append(f"[mypy-{names}]")
        lines.extend(f"{k} = {v}" for k, v in override.items() if k != "module")
    if no_any_in is not None:
        lines += [f"[mypy-{no_any_in},{no_any_in}.*]", "disallow_any_expr = True",
                  "disallow_any_explicit = True"]
    path = tmp_path / "mypy.ini"
    path.write_text("\n".join(lines) + "\n")
    return path


def mypy(config: Path, *targets: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(config), "--no-error-summary",
         "--cache-dir", str(REPO / ".mypy_cache"), *targets],
        capture_output=True, text=True, cwd=REPO, timeout=900)


def test_no_exported_name_is_any_to_the_checker(tmp_path: Path) -> None:
    lines = ["from clawharness.plugin_sdk import (", *(f"    {m.__name__.rsplit('.', 1)[1]},"
                                                   for m in MODULES), ")"]
    names: list[str] = []
    for module in MODULES:
        short = module.__name__.rsplit(".", 1)[1]
        for name in sorted(module.__all__):
            names.append(f"{short}.{name}")
            lines.append(f"reveal_type({short}.{name})")
    probe = tmp_path / "sdk_reveal_probe.py"
    probe.write_text("\n".join(lines) + "\n")
    done = mypy(mypy_config(tmp_path), str(probe))
    revealed = {}
    for line in done.stdout.splitlines():
        found = REVEALED.search(line)
        if found:
            revealed[names[int(found["line"]) - len(MODULES) - 3]] = found["type"]
    assert set(revealed) == set(names), done.stdout + done.stderr
    # `Any` is a name the checker cannot see; `object` is what a module `__getattr__` gives
    leaks = sorted(name for name, shown in revealed.items() if shown in ("Any", "object", "builtins.object"))
    assert leaks == []
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert errors == []


def test_an_unknown_sdk_name_is_an_error_for_the_checker(tmp_path: Path) -> None:
    probe = tmp_path / "sdk_typo_probe.py"
    probe.write_text(
        "from clawharness.plugin_sdk.agent_harness import AttemptResults\n"
        "from clawharness.plugin_sdk.agent_harness_runtime import sanitize_tool_argz\n"
        "from clawharness.plugin_sdk.agent_harness_tool_runtime import TOOL_GROUPS\n")
    done = mypy(mypy_config(tmp_path), str(probe))
    assert done.returncode != 0
    for name in ("AttemptResults", "sanitize_tool_argz", "TOOL_GROUPS"):
        assert f'has no attribute "{name}"' in done.stdout or (
            f'"{name}"' in done.stdout and "attr-defined" in done.stdout), done.stdout


@pytest.mark.skipif(not EXAMPLE.is_dir(), reason="the example harness is not in this tree")
def test_a_plugin_written_against_the_sdk_has_no_any_expression(tmp_path: Path) -> None:
    done = mypy(mypy_config(tmp_path, no_any_in="echo_harness"), str(EXAMPLE))
    assert done.returncode == 0, done.stdout + done.stderr
