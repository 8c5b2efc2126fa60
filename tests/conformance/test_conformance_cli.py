"""Every public vector through the real `clawharness conformance run` command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from vectors_file import VECTORS, load_cases

from clawharness.conformance.runner import compare


def test_every_public_vector_matches_through_the_cli() -> None:
    cases = load_cases()
    proc = subprocess.run([sys.executable, "-m", "clawharness", "conformance", "run", str(VECTORS)],
                          capture_output=True, text=True, timeout=300, check=True)
    outputs = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    assert len(outputs) == len(cases)
    mismatched = [c["id"] for c, got in zip(cases, outputs, strict=True) if not compare(c, got)]
    assert mismatched == []
    assert {o["id"] for o in outputs} == {c["id"] for c in cases}


def test_stdin_input_and_check_mode(tmp_path: Path) -> None:
    case = {"id": "x1", "fn": "isSubagentSessionKey", "args": ["agent:main:subagent:abc"],
            "expect": {"ok": True, "result": True}}
    wrong = {**case, "id": "x2", "expect": {"ok": True, "result": False}}
    lines = "\n".join(json.dumps(c) for c in (case, wrong)) + "\n"
    proc = subprocess.run([sys.executable, "-m", "clawharness", "conformance", "run", "--check"],
                          input=lines, capture_output=True, text=True, timeout=60)
    out = [json.loads(line) for line in proc.stdout.splitlines()]  # nothing but JSON lines
    assert out == [{"id": "x1", "ok": True, "result": True},
                   {"id": "x2", "ok": True, "result": True}]
    assert proc.stderr.strip().splitlines()[-1] == "1 passed, 1 failed"
    assert "mismatch x2" in proc.stderr
    assert proc.returncode == 1


def test_check_mode_all_passing_keeps_stdout_pure_json_lines() -> None:
    case = {"id": "y1", "fn": "isSubagentSessionKey", "args": ["agent:main:main"],
            "expect": {"ok": True, "result": False}}
    proc = subprocess.run([sys.executable, "-m", "clawharness", "conformance", "run", "--check"],
                          input=json.dumps(case) + "\n", capture_output=True, text=True,
                          timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert [json.loads(line) for line in proc.stdout.splitlines()] == [
        {"id": "y1", "ok": True, "result": False}]
    assert proc.stderr.strip() == "1 passed, 0 failed"


def test_malformed_input_line_is_a_clear_error(tmp_path: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "clawharness", "conformance", "run"],
                          input="{not json\n", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2
    assert "line 1" in proc.stderr
