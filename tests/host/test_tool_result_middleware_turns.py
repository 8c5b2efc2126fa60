"""Tool-result middleware in a real turn: the model sees the transformed result."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


async def test_middleware_transforms_only_its_matched_tool_on_its_runtime(
        scripted_host: Any, tmp_path: Path) -> None:
    (tmp_path / "workspace").mkdir(exist_ok=True)
    (tmp_path / "workspace" / "note.txt").write_text("quiet words\n")
    host, server = await scripted_host(
        {"responses": [
            {"tool_calls": [{"name": "read", "arguments": {"path": "note.txt"}},
                            {"name": "ls", "arguments": {"path": "."}}]},
            {"text": "done"},
        ]},
        plugins={"load": ["host_fake_plugins:middleware_entry"],
                 "entries": {"shouting-middleware": {"enabled": True}}},
    )
    result = await host.run_turn("m", "read it")
    assert result.terminal == "ok"
    follow_up = json.dumps(server.requests[-1].body)
    assert "QUIET WORDS" in follow_up          # read: transformed for the model
    assert "note.txt" in follow_up             # ls: untouched (not in the matcher)
    results = [e for e in await host.history("m") if e.role == "toolResult"]
    assert "QUIET WORDS" in (results[0].text or "")


async def test_middleware_of_an_untrusted_plugin_is_refused(scripted_host: Any) -> None:
    host, _ = await scripted_host({"responses": [{"text": "x"}]},
                                  plugins={"load": ["host_fake_plugins:middleware_entry"]})
    problems = host.plugins.load().failed
    assert any("may not register tool-result middleware" in p.reason for p in problems)
