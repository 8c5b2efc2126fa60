"""`clawharness sandbox explain`, and what `status` and `doctor` say about the sandbox,
through the real CLI (the real bwrap probe; a PATH without bwrap where none must work)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cli_rig import assert_envelope, invoke, only_json
from typer.testing import Result

from clawharness.tools.sandbox.backends import backend_statuses, clear_backend_cache


@pytest.fixture(autouse=True)
def state(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.setenv("CLAWHARNESS_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.delenv("CLAWHARNESS_CONFIG", raising=False)
    clear_backend_cache()
    yield tmp_path / "state"
    clear_backend_cache()


@pytest.fixture
def bwrap_works() -> None:
    status = backend_statuses(("bwrap",))["bwrap"]
    if not status.available:
        pytest.skip(f"bubblewrap does not work here: {status.detail}")


@pytest.fixture
def no_backend(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A PATH with no bwrap and no docker on it: no sandbox can work."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for tool in ("bash", "true", "prlimit"):
        found = shutil.which(tool)
        if found:
            (bin_dir / tool).symlink_to(found)
    monkeypatch.setenv("PATH", str(bin_dir))


def explained(result: Result) -> dict[str, object]:
    """The one agent a `sandbox explain --json` answered about."""
    [agent] = only_json(result)["agents"]
    return agent  # type: ignore[no-any-return]


def config(tmp_path: Path, sandbox: dict[str, object] | None = None,
           agents: dict[str, object] | None = None) -> str:
    defaults: dict[str, object] = {"workspace": str(tmp_path / "ws")}
    if sandbox is not None:
        defaults["sandbox"] = sandbox
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"agents": {"defaults": defaults, "entries": agents or {}}}))
    return str(path)


@pytest.mark.usefixtures("bwrap_works")
def test_explain_shows_backend_mounts_network_env_and_limits(tmp_path: Path) -> None:
    path = config(tmp_path, {"env": {"API_TOKEN": "secret-value-canary"},
                             "limits": {"processes": 99}})
    shown = invoke("sandbox", "explain", "--config", path)
    assert shown.exit_code == 0, shown.output
    text = shown.stdout
    assert "exec runs sandboxed" in text and "bwrap" in text
    assert str(tmp_path / "ws") in text and "the workspace, read-write" in text
    assert "Network: off" in text and "API_TOKEN" in text
    assert "secret-value-canary" not in text
    assert "processes" in text and "99" in text

    data: Any = explained(invoke("sandbox", "explain", "--config", path, "--json"))
    assert data["sandboxed"] is True and data["backend"] == "bwrap"
    assert data["settings"]["workspaceAccess"] == "rw" and data["network"] is False
    assert "API_TOKEN" in data["env"] and "secret-value-canary" not in json.dumps(data)
    assert data["limits"]["processes"]["value"] == "99"
    targets = {m["target"]: m for m in data["mounts"]}
    assert targets[str(tmp_path / "ws")]["kind"] == "bind"
    assert targets["/proc"]["kind"] == "proc"


@pytest.mark.usefixtures("bwrap_works")
def test_explain_per_agent_and_session(tmp_path: Path) -> None:
    path = config(tmp_path, {"mode": "non-main", "workspaceAccess": "ro"},
                  agents={"main": {"default": True}, "ops": {"sandbox": {"mode": "off"}}})
    every = only_json(invoke("sandbox", "explain", "--config", path, "--json"))["agents"]
    assert [a["agentId"] for a in every] == ["main", "ops"]
    main = every[0]
    assert main["sessionKey"] == "agent:main:main" and main["sandboxed"] is False
    assert "non-main" in main["reason"]
    group: Any = explained(invoke("sandbox", "explain", "--config", path, "--json",
                                  "--session", "agent:main:group-7"))
    assert group["sandboxed"] is True
    assert group["settings"]["workspaceAccess"] == "ro"
    ops: Any = explained(invoke("sandbox", "explain", "--config", path, "--json",
                                "--agent", "ops"))
    assert ops["sandboxed"] is False and ops["reason"].endswith('mode is "off"')
    assert ops["settings"]["sources"]["mode"] == "agents.entries.ops.sandbox"
    assert_envelope(invoke("sandbox", "explain", "--config", path, "--json",
                           "--agent", "ghost"), "unknown_agent")
    assert_envelope(invoke("sandbox", "explain", "--config", path, "--json", "--agent", "ops",
                           "--session", "agent:main:x"), "invalid_session_key")


@pytest.mark.usefixtures("no_backend")
def test_no_backend_is_said_by_explain_status_and_doctor(tmp_path: Path) -> None:
    path = config(tmp_path)
    data: Any = explained(invoke("sandbox", "explain", "--config", path, "--json"))
    assert data["sandboxed"] is False and data["refusal"] is None
    assert "bwrap is not on PATH" in data["unavailable"]
    status = invoke("status", "--config", path, "--json")
    assert status.exit_code == 0, status.output
    warnings = only_json(status)["warnings"]
    assert sum("no OS sandbox: exec runs on the host" in w for w in warnings) == 1
    doctor = only_json(invoke("doctor", "--config", path, "--json"))
    [finding] = [f for f in doctor["findings"] if f["code"] == "sandbox-unavailable"]
    assert finding["severity"] == "warning" and "apt-get install bubblewrap" in finding["message"]
    assert doctor["ok"] is True


@pytest.mark.usefixtures("no_backend")
def test_a_required_sandbox_with_no_backend_is_an_error_for_doctor(tmp_path: Path) -> None:
    path = config(tmp_path, {"mode": "all"})
    doctor = invoke("doctor", "--config", path, "--json")
    assert doctor.exit_code == 1
    [finding] = [f for f in only_json(doctor)["findings"] if f["code"] == "sandbox-unavailable"]
    assert finding["severity"] == "error" and "exec is refused" in finding["message"]
    assert finding["path"] == "agents.defaults.sandbox"
    data: Any = explained(invoke("sandbox", "explain", "--config", path, "--json"))
    assert data["refusal"].startswith("exec is refused: agents.defaults.sandbox.mode")
