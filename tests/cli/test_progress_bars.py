"""Long work shows a progress bar on a terminal, and nothing of it on a pipe."""

from __future__ import annotations

from pathlib import Path

from chat_terminal import Terminal, terminal_env
from typer.testing import CliRunner

from clawharness.cli.main import app

VECTORS = Path(__file__).resolve().parents[1] / "conformance" / "data" / "vectors.jsonl"


def _cases(tmp_path: Path, n: int) -> Path:
    lines = [line for line in VECTORS.read_text(encoding="utf-8").splitlines() if line.strip()]
    path = tmp_path / "cases.jsonl"
    path.write_text("\n".join(lines[:n]) + "\n", encoding="utf-8")
    return path


def test_conformance_run_draws_a_bar_on_a_terminal(tmp_path: Path) -> None:
    cases = _cases(tmp_path, 40)
    term = Terminal(["conformance", "run", str(cases), "--check"], terminal_env(tmp_path))
    try:
        assert term.wait_exit(60) == 0
    finally:
        term.close()
    assert "conformance cases" in term.screen
    assert "40/40" in term.screen
    assert "40 passed, 0 failed" in term.screen


def test_conformance_run_on_a_pipe_has_no_bar(tmp_path: Path) -> None:
    cases = _cases(tmp_path, 5)
    result = CliRunner().invoke(app, ["conformance", "run", str(cases), "--check"],
                                catch_exceptions=False)
    assert result.exit_code == 0
    assert len(result.stdout.splitlines()) == 5
    assert "conformance cases" not in result.output
    assert result.stderr.strip() == "5 passed, 0 failed"
