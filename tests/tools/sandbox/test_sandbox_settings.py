"""`agents.*.sandbox` resolved per agent, the decision per session, and the config
errors a bad sandbox block gets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from clawharness.config.loader import parse_config
from clawharness.config.schema import ClawConfig
from clawharness.errors import ConfigError
from clawharness.tools.sandbox.backends import BackendStatus, decide
from clawharness.tools.sandbox.settings import (
    DEFAULT_LIMITS,
    resolve_sandbox_settings,
    sandbox_applies,
    scope_key,
)

STATE = Path("/state")
WORKS = {"bwrap": BackendStatus("bwrap", True, "bubblewrap 0.8.0"),
         "docker": BackendStatus("docker", False, "no Docker daemon answers")}
NONE_WORK = {"bwrap": BackendStatus("bwrap", False, "bwrap is not on PATH"),
             "docker": BackendStatus("docker", False, "no Docker daemon answers")}


def settings(defaults: dict[str, Any] | None = None, agent: dict[str, Any] | None = None,
             agent_id: str = "main") -> Any:
    config: dict[str, Any] = {"agents": {"defaults": {}}}
    if defaults is not None:
        config["agents"]["defaults"]["sandbox"] = defaults
    if agent is not None:
        config["agents"]["entries"] = {agent_id: {"sandbox": agent}}
    return resolve_sandbox_settings(ClawConfig.model_validate(config), agent_id,
                                    state_dir=STATE)


def test_a_fresh_install_sandboxes_where_it_can_with_the_workspace_read_write() -> None:
    fresh = settings()
    assert (fresh.mode, fresh.required, fresh.backend) == ("all", False, "auto")
    assert (fresh.scope, fresh.workspace_access, fresh.network) == ("agent", "rw", False)
    assert fresh.limits == DEFAULT_LIMITS
    assert fresh.workspace_root == STATE / "sandboxes"


def test_an_openclaw_block_means_what_it_means_there() -> None:
    openclaw = settings({"mode": "non-main"})
    assert openclaw.required and openclaw.mode == "non-main"
    assert (openclaw.scope, openclaw.workspace_access) == ("agent", "none")
    assert settings({"perSession": True}).scope == "session"
    assert settings({"perSession": False}).scope == "shared"
    assert settings({"docker": {"network": "bridge"}}).network is True
    assert settings({"docker": {"network": "none"}}).network is False


def test_a_backend_alone_requires_the_sandbox_but_keeps_the_workspace() -> None:
    chosen = settings({"backend": "bwrap"})
    assert chosen.required and chosen.workspace_access == "rw" and chosen.mode == "all"


def test_an_agent_overrides_key_by_key_and_merges_env_and_binds() -> None:
    merged = settings({"mode": "all", "env": {"A": "1", "B": "1"}, "binds": ["/a:/a"],
                       "limits": {"processes": 100, "cpuSeconds": 5}},
                      {"workspaceAccess": "ro", "env": {"B": "2"}, "binds": ["/b:/b:rw"],
                       "limits": {"processes": 50}})
    assert merged.mode == "all" and merged.workspace_access == "ro"
    assert merged.env == {"A": "1", "B": "2"}
    assert merged.binds == ("/a:/a", "/b:/b:rw")
    assert (merged.limits.processes, merged.limits.cpu_seconds) == (50, 5)
    assert merged.sources["workspace_access"] == "agents.entries.main.sandbox"
    assert merged.sources["mode"] == "agents.defaults.sandbox"


def test_a_shared_sandbox_ignores_an_agents_own_env_binds_and_docker() -> None:
    shared = settings({"scope": "shared", "env": {"A": "1"}},
                      {"env": {"B": "2"}, "binds": ["/b:/b"], "docker": {"image": "x:1"}})
    assert shared.env == {"A": "1"} and shared.binds == () and shared.docker_image != "x:1"


def test_non_main_spares_only_the_agents_main_session() -> None:
    non_main = settings({"mode": "non-main"})
    assert not sandbox_applies(non_main, "agent:main:main")
    assert sandbox_applies(non_main, "agent:main:telegram:group:1")
    assert sandbox_applies(settings({"mode": "all"}), "agent:main:main")
    assert not sandbox_applies(settings({"mode": "off"}), "agent:main:x")


def test_scope_names_one_sandbox_per_session_agent_or_all() -> None:
    key = "agent:main:telegram:group/1"
    per_session = scope_key(settings({"scope": "session"}), key)
    assert per_session.startswith("session-agent_main_telegram_group_1-")
    assert scope_key(settings({"scope": "session"}), key + "x") != per_session
    assert scope_key(settings({"scope": "agent"}), key) == "agent-main"
    assert scope_key(settings({"scope": "shared"}), key) == "shared"


def test_the_decision_sandboxes_refuses_or_notes() -> None:
    fresh = decide(settings(), "agent:main:main", WORKS)
    assert fresh.sandboxed and fresh.backend == "bwrap" and fresh.refusal is None
    host = decide(settings(), "agent:main:main", NONE_WORK)
    assert not host.sandboxed and host.refusal is None
    assert host.unavailable is not None and "bwrap is not on PATH" in host.unavailable
    refused = decide(settings({"mode": "all"}), "agent:main:main", NONE_WORK)
    assert not refused.sandboxed and refused.refusal is not None
    assert "agents.defaults.sandbox.mode asks for a sandbox" in refused.refusal
    docker_only = decide(settings({"backend": "docker"}), "agent:main:x", WORKS)
    assert docker_only.refusal is not None
    assert "agents.defaults.sandbox.backend" in docker_only.refusal
    off = decide(settings({"mode": "off"}), "agent:main:main", NONE_WORK)
    assert not off.sandboxed and off.refusal is None and off.unavailable is None


@pytest.mark.parametrize(("block", "words"), [
    ({"mode": "sometimes"}, "mode"),
    ({"workspaceAccess": "write"}, "workspaceAccess"),
    ({"scope": "global"}, "scope"),
    ({"backend": "firejail"}, "backend"),
    ({"binds": ["relative:/x"]}, "both paths must be absolute"),
    ({"binds": ["/no-separator"]}, "has no ':'"),
    ({"binds": ["/a:/b:rx"]}, "options must be 'ro' or 'rw'"),
    ({"limits": {"processes": 2}}, "processes"),
    ({"env": {"BAD NAME": "x"}}, "env"),
])
def test_a_bad_sandbox_block_is_refused_at_its_key(block: dict[str, Any], words: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse_config({"agents": {"defaults": {"sandbox": block}}})
    assert words in str(caught.value)
    assert "agents.defaults.sandbox" in str(caught.value)
