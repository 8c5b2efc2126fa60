"""A refused tool names the rule that refused it: the config key path of the layer
(`tools.deny`, an agent's `tools.deny`, a profile) and the entry that matched; a tool that
is off by default says how to turn it on."""

from __future__ import annotations

from typing import Any

from clawharness.config.schema import ToolsConfig
from clawharness.harness.capabilities import HostCapabilities
from clawharness.names import OFF_BY_DEFAULT, absent_tool_reason
from clawharness.tools.builtin import core_tool_specs
from clawharness.tools.policy import EffectiveToolPolicy


def policy(raw: dict[str, Any] | None = None, agent: dict[str, Any] | None = None,
           agent_id: str | None = "main") -> EffectiveToolPolicy:
    return EffectiveToolPolicy(
        ToolsConfig.model_validate(raw or {}),
        agent=ToolsConfig.model_validate(agent) if agent is not None else None,
        agent_id=agent_id)


def test_tools_deny_names_the_key_path_and_the_matching_entry() -> None:
    reason = policy({"deny": ["read", "group:runtime"]}).check("exec")
    assert reason == 'tool "exec" is denied by the tools.deny list (entry "group:runtime")'


def test_an_agent_deny_names_the_agents_key_path() -> None:
    reason = policy(agent={"deny": ["exec"]}, agent_id="work").check("exec")
    assert reason == 'tool "exec" is denied by the agents.entries.work.tools.deny list (entry "exec")'


def test_a_wildcard_and_the_write_alias_are_named_as_written() -> None:
    assert policy({"deny": ["web_*"]}).check("web_fetch") == (
        'tool "web_fetch" is denied by the tools.deny list (entry "web_*")')
    assert policy({"deny": ["write"]}).check("apply_patch") == (
        'tool "apply_patch" is denied by the tools.deny list (entry "write")')


def test_a_profile_names_itself_its_key_and_how_to_extend_it() -> None:
    reason = policy({"profile": "minimal"}).check("exec")
    assert reason == ('tool "exec" is not in the allow list of tool profile "minimal" '
                      "(tools.profile); add it to tools.alsoAllow or choose another profile")
    agent = policy({"profile": "coding"}, agent={"profile": "messaging"}).check("exec")
    assert agent is not None
    assert "(agents.entries.main.tools.profile)" in agent
    assert "agents.entries.main.tools.alsoAllow" in agent


def test_an_allow_list_names_its_key() -> None:
    assert policy({"allow": ["read"]}).check("exec") == (
        'tool "exec" is not in the tools.allow list; add it there (or to tools.alsoAllow)')


def test_web_fetch_is_off_by_default_and_says_which_key_turns_it_on() -> None:
    assert "web_fetch" not in {s.name for s in core_tool_specs()}
    assert OFF_BY_DEFAULT["web_fetch"] == "tools.web.fetch.enabled"
    assert absent_tool_reason("web_fetch") == (
        'tool "web_fetch" is off by default: set tools.web.fetch.enabled to true to offer it')
    assert absent_tool_reason("teleport") == 'no tool "teleport" is offered in this session'


def test_capabilities_explain_an_unavailable_tool_rule_first(tmp_path: Any) -> None:
    caps = HostCapabilities(run_id="r", session_key="agent:main:x", workspace_dir=str(tmp_path),
                            policy=policy({"deny": ["web_fetch"]}), approvals=None)
    assert "tools.deny" in caps.unavailable_tool_reason("web_fetch")
    caps.settle()  # still answers: explaining is pure
    open_caps = HostCapabilities(run_id="r", session_key="agent:main:x",
                                 workspace_dir=str(tmp_path), policy=policy(), approvals=None)
    assert "tools.web.fetch.enabled" in open_caps.unavailable_tool_reason("web_fetch")
