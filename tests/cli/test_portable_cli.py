"""`clawharness sessions adopt` and `sessions handoff` as people and scripts see them
(a Claude Code session file; the real CLI resuming what they do is tested in
tests/integration/cli/test_claude_cli_portable.py)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from cli_rig import assert_envelope, invoke, only_json, write_config

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "harnesses" / "cli"))
from claude_session_files import SESSION, conversation, write_session


@pytest.fixture
def config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("CLAWHARNESS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "user-claude"))
    return write_config(tmp_path, "http://127.0.0.1:9/v1")


def test_adopt_then_handoff_for_people(tmp_path: Path, config: Path) -> None:
    source = write_session(tmp_path / "user-claude" / "projects" / "p", conversation())
    adopted = invoke("sessions", "adopt", str(source), "--from", "claude-code", "--as", "w",
                     "--config", str(config))
    assert adopted.exit_code == 0, adopted.stdout
    out = " ".join(adopted.stdout.split())
    assert f"adopted claude-cli session {SESSION} -> agent:main:w: 6 message(s) added" in out
    assert "not carried: sub-agent conversations (1)" in out
    again = invoke("sessions", "adopt", SESSION, "--from", "claude", "--as", "w",
                   "--config", str(config))
    assert "nothing new in" in again.stdout and "0 message(s) added, 6 already" in again.stdout

    project = tmp_path / "proj"
    project.mkdir()
    handed = invoke("sessions", "handoff", "w", "--to", "claude-code", "--cwd", str(project),
                    "--config", str(config))
    assert handed.exit_code == 0, handed.stdout
    text = " ".join(handed.stdout.split())
    assert "handed off agent:main:w -> claude-cli session" in text
    assert f"resume it with: cd {os.path.realpath(project)} && claude --resume " in text


def test_adopt_and_handoff_for_scripts(tmp_path: Path, config: Path) -> None:
    source = write_session(tmp_path / "user-claude" / "projects" / "p", conversation())
    data = only_json(invoke("sessions", "adopt", str(source), "--from", "claude-code",
                            "--config", str(config), "--json"))
    assert data["sessionKey"] == f"agent:main:claude-code-{SESSION[:8]}"
    assert (data["appended"], data["already"], data["created"]) == (6, 0, True)
    assert data["runtime"] == "claude-cli" and data["nativeSessionId"] == SESSION
    other = tmp_path / "other-claude"
    handed = only_json(invoke("sessions", "handoff", data["sessionKey"], "--to", "claude-code",
                              "--home", str(other), "--config", str(config), "--json"))
    assert handed["env"] == {"CLAUDE_CONFIG_DIR": str(other)}
    assert handed["command"] == ["claude", "--resume", handed["nativeSessionId"]]
    assert handed["shell"].endswith(
        f"CLAUDE_CONFIG_DIR={other} claude --resume {handed['nativeSessionId']}")
    assert Path(handed["location"]).is_file()


def test_a_truncated_file_is_refused_with_where(tmp_path: Path, config: Path) -> None:
    source = write_session(tmp_path / "user-claude" / "projects" / "p", conversation())
    source.write_bytes(source.read_bytes()[:-25])
    error = assert_envelope(invoke("sessions", "adopt", str(source), "--from", "claude-code",
                                   "--config", str(config), "--json"), "native_session_format")
    assert str(source) in error["message"] and "cut off" in error["message"]
    assert "hint" in error
    listed = only_json(invoke("sessions", "list", "--config", str(config), "--json"))
    assert listed == []
