"""Sub-agent session keys are recognised with or without the agent prefix."""

from __future__ import annotations

from clawharness.sessions.subagent import is_subagent_session_key, parse_agent_session_key


def test_subagent_keys_are_recognized_with_or_without_agent_prefix() -> None:
    assert is_subagent_session_key("SubAgent:x")
    assert is_subagent_session_key("agent:ops: subagent:x")
    assert is_subagent_session_key(" agent:main:subagent:a:b ")
    assert not is_subagent_session_key("agent::subagent:x")
    assert not is_subagent_session_key("agent:main:main")
    assert not is_subagent_session_key("   ")


def test_agent_keys_split_into_agent_and_rest() -> None:
    assert parse_agent_session_key("agent:ops:main") == ("ops", "main")
    assert parse_agent_session_key("agent:ops::x") is None
    assert parse_agent_session_key("main") is None
