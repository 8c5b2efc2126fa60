"""The shell gate through `clawharness agent` (issue 31, section 2): with an allowlist of
`git` and `ls` and `ask: "off"`, the audit's worst git commands are refused with the
rule that refused them, and the files they would create do not appear."""

from __future__ import annotations

import json
from pathlib import Path

from cli_rig import invoke, scripted_config


def test_git_commands_that_run_programs_are_refused_by_the_cli(tmp_path: Path) -> None:
    markers = tmp_path / "markers"
    markers.mkdir()
    commands = [
        f"git ls-remote --upload-p='touch {markers}/a' .",
        f"git -c alias.x='!touch {markers}/b' x",
        f"echo x | git commit -F - --no-verify --allow-empty -q # {markers}/c",
        f"ls; sh -c \"ls; touch {markers}/d\"",
    ]
    script = {"responses": [
        {"tool_calls": [{"name": "exec", "arguments": {"command": c}, "id": f"c{i}"}
                        for i, c in enumerate(commands)]},
        {"text": "done"}]}
    # the OS sandbox off: the gate is the wall under test
    tools = {"tools": {"exec": {"security": "allowlist", "ask": "off",
                                "allowlist": ["git", "ls"]}},
             "agents": {"defaults": {"sandbox": {"mode": "off"}}}}
    with scripted_config(tmp_path, script, tools) as config:
        result = invoke("agent", "--config", str(config), "-s", "gate", "--json",
                        "-m", "run them")
    assert result.exit_code == 0, result.output
    calls = json.loads(result.stdout)["toolCalls"]
    assert [call["ok"] for call in calls] == [False] * len(commands)
    errors = [call["error"] for call in calls]
    assert "--upload-pack" in errors[0]
    assert "alias" in errors[1]
    assert "git commit with piped input" in errors[2]
    assert '"touch" (run by sh)' in errors[3]
    assert all('tools.exec.ask is "off"' in error for error in errors)
    assert list(markers.iterdir()) == []
