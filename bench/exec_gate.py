"""Benchmark: what the exec allowlist analysis costs per command (issue 31, section 2).

Ours: `analyze_command` + `match_exec_allowlist`, the fail-closed gate. Peers, in the
same run (the previous gate's analysis goes through the same `match_exec_allowlist`):

- the previous gate (the shlex-based analysis this one replaced), loaded from git
  history at `--peer-rev` (default: the commit before the rewrite) into a private
  package, when the checkout has that history;
- bashlex's parser (`bashlex.parse`), when installed: a full bash parser in Python,
  as a reference for what reading bash costs at all (it judges nothing).

Commands: the attack corpus (`tests/tools/data/exec_gate_corpus.jsonl`, mostly refused
early) and a set of everyday agent commands (mostly allowed, the gate's common path).
Figures are CPU microseconds per command (median of repeats, the peers interleaved),
ratios ours / previous.

    .venv/bin/python bench/exec_gate.py [--quick] [--peer-rev REV]

The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import importlib
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

from _common import console, emit, median, show

from clawharness.tools.exec_analysis import analyze_command
from clawharness.tools.policy import match_exec_allowlist

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "tests" / "tools" / "data" / "exec_gate_corpus.jsonl"
#: the commit whose `tools/exec_*.py` were the previous (shlex-based) gate
PREVIOUS_REV = "32506b8"
PREVIOUS_MODULES = ("exec_carried", "exec_env_names", "exec_sed", "exec_wrappers",
                    "exec_program_rules", "exec_analysis")

EVERYDAY = [
    "ls -la", "git status", "git log --oneline -20", "git diff --stat HEAD~1",
    "rg -n 'TODO' src", "grep -rn foo src | head -20", "cat README.md",
    "python3 -m pytest -q tests", "pytest -q tests/unit -x", "npm test", "make -j4 test",
    "git add -A && git commit -m 'fix: handle empty input'", "find . -name '*.py' -type f",
    "sed -n '1,40p' src/app.py", "wc -l src/*.py", "mkdir -p build/out && cp a.txt build/",
    "timeout 60 python3 scripts/check.py --fast", "env CI=1 npm run build",
    "bash -lc 'cd web && npm ci && npm run lint'", "awk -F, '{print $2}' data.csv | sort -u",
    "tar -czf dist.tgz dist", "git -C vendor/lib log -1 --format=%H", "head -n 50 log.txt",
    "echo done", "ls src tests | wc -l", "sh -c 'ls; git status'", "jq '.items[]' out.json",
]
ALLOWLIST = ["ls", "git", "rg", "grep", "head", "cat", "python3", "pytest", "npm", "make",
             "find", "sed", "wc", "mkdir", "cp", "echo", "awk", "sort", "tar", "jq", "cd",
             "bash", "sh"]


def fake_which(name: str) -> str | None:
    return f"/nonexistent/bin/{name}"


def load_previous(rev: str) -> Callable[[str], Any] | None:
    """The previous gate's `analyze_command`, from git history, or None."""
    if shutil.which("git") is None:
        return None
    target = Path(tempfile.mkdtemp(prefix="exec-gate-prev-")) / "previous_gate"
    target.mkdir()
    (target / "__init__.py").write_text("")
    for module in PREVIOUS_MODULES:
        shown = subprocess.run(
            ["git", "-C", str(ROOT), "show", f"{rev}:src/clawharness/tools/{module}.py"],
            capture_output=True, text=True, check=False)
        if shown.returncode != 0:
            return None
        source = shown.stdout.replace("clawharness.tools.exec_", "previous_gate.exec_")
        (target / f"{module}.py").write_text(source)
    sys.path.insert(0, str(target.parent))
    module: ModuleType = importlib.import_module("previous_gate.exec_analysis")
    analyze: Callable[..., Any] = module.analyze_command
    return lambda command: match_exec_allowlist(
        analyze(command, cwd="/ws", which=fake_which), ALLOWLIST)


def load_bashlex() -> Callable[[str], Any] | None:
    try:
        bashlex = importlib.import_module("bashlex")
    except ImportError:
        return None

    def parse(command: str) -> Any:
        try:
            return bashlex.parse(command)
        except Exception:  # a parse error is an answer too
            return None

    return parse


def ours(command: str) -> Any:
    return match_exec_allowlist(analyze_command(command, cwd="/ws", which=fake_which),
                                ALLOWLIST)


def per_command_us(fn: Callable[[str], Any], commands: Sequence[str], rounds: int) -> float:
    """CPU time per command over `rounds` passes (process time: other jobs on a shared
    machine slow the wall clock, not this)."""
    start = time.process_time()
    for _ in range(rounds):
        for command in commands:
            fn(command)
    return (time.process_time() - start) / (rounds * len(commands)) * 1e6


def measure(peers: dict[str, Callable[[str], Any]], commands: Sequence[str], repeats: int,
            rounds: int) -> dict[str, float]:
    """Median per-command time of each peer, the peers interleaved in every repeat so that
    a change in load hits them alike."""
    samples: dict[str, list[float]] = {name: [] for name in peers}
    for _ in range(repeats):
        for name, fn in peers.items():
            samples[name].append(per_command_us(fn, commands, rounds))
    return {name: median(values) for name, values in samples.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--peer-rev", default=PREVIOUS_REV)
    args = parser.parse_args()
    corpus = [json.loads(line)["command"] for line in CORPUS.read_text().splitlines()
              if line.strip()]
    corpus = [c for c in corpus if "\x00" not in c]
    repeats, rounds = (5, 3) if args.quick else (9, 20)
    loaded: dict[str, Callable[[str], Any] | None] = {
        "ours": ours, "previous": load_previous(args.peer_rev), "bashlex": load_bashlex()}
    peers = {name: fn for name, fn in loaded.items() if fn is not None}
    figures: dict[str, Any] = {"commands_corpus": len(corpus),
                               "commands_everyday": len(EVERYDAY), "peer_rev": args.peer_rev}
    for label, commands in (("corpus", corpus), ("everyday", EVERYDAY)):
        for fn in peers.values():  # warm caches and imports
            for command in commands:
                fn(command)
        timed = measure(peers, commands, repeats, rounds)
        for name in loaded:
            value = timed.get(name)
            figures[f"{name}_{label}_us"] = round(value, 2) if value is not None else None
    rows = [(name, figures[f"{name}_corpus_us"], figures[f"{name}_everyday_us"])
            for name in loaded]
    for label in ("corpus", "everyday"):
        previous = figures[f"previous_{label}_us"]
        figures[f"ratio_{label}_vs_previous"] = (
            round(figures[f"ours_{label}_us"] / previous, 2) if previous else None)
    show("exec gate: microseconds per command (median)", ["gate", "corpus", "everyday"],
         [(n, "—" if c is None else c, "—" if e is None else e) for n, c, e in rows])
    console.print("ratios ours/previous: corpus "
                  f"{figures['ratio_corpus_vs_previous']}, everyday "
                  f"{figures['ratio_everyday_vs_previous']}")
    emit(figures)


if __name__ == "__main__":
    main()
