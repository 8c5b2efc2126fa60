"""What a command prints, what an MCP server or a model says, reaches the terminal without
its escape sequences (issue 31): `agent`, `sessions show`, `transcript search`."""

from __future__ import annotations

import json
from pathlib import Path

from cli_rig import invoke, scripted_config

ESC = "\x1b]0;pwned\x07\x1b]52;c;ZXZpbA==\x07\x1b[2J\x1b[31m"


def test_agent_and_sessions_show_print_no_escape_sequences(tmp_path: Path) -> None:
    script = {"responses": [
        {"tool_calls": [{"name": "exec", "id": "c1", "arguments": {
            "command": "printf '\\033]0;pwned\\007\\033[2Jbuild [bold]ok[/bold]\\n'; exit 3"}}]},
        {"text": f"the output was {ESC}red[/red] text"}]}
    extra = {"tools": {"exec": {"security": "full", "ask": "off"}}}
    with scripted_config(tmp_path, script, extra) as config:
        ran = invoke("agent", "--config", str(config), "--session", "t", "-m", "run it")
        assert ran.exit_code == 0, ran.output
        shown = invoke("sessions", "show", "t", "--config", str(config))
        searched = invoke("transcript", "search", "output", "--config", str(config))
        as_json = invoke("sessions", "show", "t", "--config", str(config), "--json")
    for out in (ran, shown, searched):
        assert out.exit_code == 0, out.output
        assert "\x1b" not in out.output and "\x07" not in out.output, repr(out.output)
    assert "the output was red[/red] text" in ran.output
    assert "build [bold]ok[/bold]" in shown.output  # markup in stored text stays text
    # the data itself is kept as it was: --json is for programs
    assert "\\u001b]0;pwned" in as_json.stdout or "\x1b]0;pwned" in json.loads(
        as_json.stdout)["entries"][-1]["text"]
