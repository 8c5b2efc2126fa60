"""Tables keep whole values when piped (no 80-column cut, no ellipsis) and fold on a
narrow terminal instead of cutting."""

from __future__ import annotations

import io
import json
from pathlib import Path

from cli_rig import invoke

from clawharness.cli.common import CliConsole, new_table

LONG_MODEL = "a-model-id-long-enough-that-an-eighty-column-table-would-have-to-cut-it"


def test_piped_status_table_keeps_every_value_whole(tmp_path: Path) -> None:
    config = tmp_path / "config.json5"
    config.write_text(json.dumps({
        "models": {"providers": {"local": {"baseUrl": "http://127.0.0.1:9/v1",
                                           "models": [{"id": LONG_MODEL}]}}},
        "agents": {"defaults": {"model": f"local/{LONG_MODEL}"}},
        "store": {"url": str(tmp_path / "s.db")},
    }))
    out = invoke("status", "--config", str(config))
    assert out.exit_code == 0, out.output
    assert "…" not in out.stdout
    row = next(line for line in out.stdout.splitlines() if LONG_MODEL in line)
    assert "auto_openclaw" in row and "OpenClaw Default (openclaw)" in row


def test_a_narrow_terminal_folds_long_cells_instead_of_cutting_them() -> None:
    sink = io.StringIO()
    console = CliConsole(file=sink, width=40, force_terminal=True, color_system=None)
    table = new_table("key", "value")
    table.add_row("model", LONG_MODEL)
    console.print(table)
    text = sink.getvalue()
    assert "…" not in text
    assert max(len(line) for line in text.splitlines()) <= 40
    cells = "".join(line.split("│")[2].strip() for line in text.splitlines()
                    if line.count("│") == 3)
    assert LONG_MODEL in cells


def test_a_piped_console_is_unbounded_and_a_set_width_is_kept() -> None:
    assert CliConsole(file=io.StringIO()).width > 1000
    assert CliConsole(file=io.StringIO(), width=50).width == 50
