"""Which agents exist (`clawharness.sessions.agents`): the rule every front shares."""

from __future__ import annotations

import pytest

from clawharness.config.schema import ClawConfig
from clawharness.errors import SessionError, UnknownAgentError
from clawharness.sessions.agents import known_agent_ids, require_known_agent


def config(entries: dict[str, object] | None = None) -> ClawConfig:
    return ClawConfig.model_validate({"agents": {"entries": entries or {}}})


def test_with_no_entries_only_main_exists() -> None:
    assert known_agent_ids(config()) == ("main",)
    require_known_agent(config(), "main")
    with pytest.raises(UnknownAgentError) as caught:
        require_known_agent(config(), "ghost", session_key="agent:ghost:x")
    assert caught.value.code == "unknown_agent"
    assert isinstance(caught.value, SessionError)
    assert "'ghost'" in str(caught.value) and "agent:ghost:x" in str(caught.value)
    assert "'main'" in str(caught.value)
    assert caught.value.hint is not None and "agents.entries.ghost" in caught.value.hint


def test_entries_and_the_default_agent_exist_nothing_else() -> None:
    cfg = config({"work": {}, "ops": {"default": True}})
    assert known_agent_ids(cfg) == ("ops", "work")
    for agent in ("ops", "work"):
        require_known_agent(cfg, agent)
    # with a default marked, main is just another name
    for agent in ("main", "ghost", "Work", "work2"):
        with pytest.raises(UnknownAgentError):
            require_known_agent(cfg, agent)


def test_without_a_marked_default_main_is_the_default_and_exists() -> None:
    cfg = config({"work": {}})
    assert known_agent_ids(cfg) == ("main", "work")
    require_known_agent(cfg, "main")
    with pytest.raises(UnknownAgentError):
        require_known_agent(cfg, "ghost")
