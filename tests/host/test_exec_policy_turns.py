"""The exec policy end to end: a scripted model asks the host to run commands through
`Host.run_turn`, the real exec tool and bash, and the policy decides what runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def calls(*commands: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "exec", "arguments": {"command": c}, "id": f"call_{i}"}
                           for i, c in enumerate(commands)]}


async def tool_texts(host: Any, key: str) -> list[str]:
    return [e.text for e in await host.history(key) if e.role == "toolResult"]


async def test_the_audits_wrapper_breaks_run_nothing_outside_the_allowlist(
        scripted_host: Any, tmp_path: Path) -> None:
    # issue 14, item 4: with allowlist ls/git/env these three ran
    outside = tmp_path / "outside"
    outside.mkdir()
    host, _ = await scripted_host(
        {"responses": [calls(f"env touch {outside}/y1",
                             f"git -c alias.x='!touch {outside}/y2' x",
                             f"LD_PRELOAD={outside}/x.so ls"),
                       {"text": "done"}]},
        tools={"exec": {"security": "allowlist", "ask": "off",
                        "allowlist": ["ls", "git", "env"]}})
    result = await host.run_turn("agent:main:audit", "try them")
    assert [c.is_error for c in result.tool_calls] == [True, True, True]
    assert not (outside / "y1").exists() and not (outside / "y2").exists()
    texts = await tool_texts(host, "agent:main:audit")
    assert '"touch" (run by env) is not in tools.exec.allowlist' in texts[0]
    assert "alias" in texts[1]
    assert "LD_PRELOAD" in texts[2]


async def test_a_fresh_config_runs_no_shell_command_unasked(scripted_host: Any,
                                                            tmp_path: Path) -> None:
    # issue 14, item 9: with no exec config at all `echo hi` ran with no approval
    marker = tmp_path / "ran"
    host, _ = await scripted_host({"responses": [calls(f"touch {marker}"),
                                                 {"text": "ok"}]})
    result = await host.run_turn("agent:main:fresh", "run it")
    [call] = result.tool_calls
    assert call.tool_name == "exec" and call.is_error
    assert "no approver is available" in (call.error or "")
    assert not marker.exists()
    [text] = await tool_texts(host, "agent:main:fresh")
    assert "tools.exec.allowlist" in text and "no approver is available" in text
