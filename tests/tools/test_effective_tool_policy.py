"""Tool policy: profiles, allow/deny layers with groups and wildcards (deny wins), alsoAllow,
and exec approvals (security x ask, allowlist matching)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from clawharness.config.schema import ToolsConfig
from clawharness.errors import ToolPolicyDeniedError
from clawharness.harness.capabilities import HostCapabilities
from clawharness.tools.approvals import ScriptedApprovalGate
from clawharness.tools.policy import EffectiveToolPolicy, analyze_command

# paths that do not exist, so resolving symlinks leaves them as they are on any machine
BINS = {"git": "/fake/usr/bin/git", "ls": "/fake/bin/ls", "rm": "/fake/bin/rm",
        "python3": "/fake/usr/bin/python3"}


def policy(raw: dict[str, Any] | None = None, agent: dict[str, Any] | None = None,
           ) -> EffectiveToolPolicy:
    return EffectiveToolPolicy(
        ToolsConfig.model_validate(raw or {}),
        agent=ToolsConfig.model_validate(agent) if agent is not None else None,
        which=BINS.get,
    )


def allowed(p: EffectiveToolPolicy, *names: str) -> dict[str, bool]:
    return {n: p.check(n) is None for n in names}


def test_no_config_allows_everything() -> None:
    assert allowed(policy(), "read", "exec", "anything_else") == {
        "read": True, "exec": True, "anything_else": True}


def test_groups_expand_in_deny() -> None:
    p = policy({"deny": ["group:fs"]})
    assert allowed(p, "read", "write", "edit", "apply_patch", "ls", "exec") == {
        "read": False, "write": False, "edit": False, "apply_patch": False, "ls": False,
        "exec": True}
    assert "deny" in (p.check("read") or "")


def test_allow_list_restricts_with_wildcards() -> None:
    p = policy({"allow": ["web_*", "read"]})
    assert allowed(p, "web_fetch", "web_search", "read", "write") == {
        "web_fetch": True, "web_search": True, "read": True, "write": False}
    assert "allow list" in (p.check("write") or "")


def test_deny_wins_over_allow() -> None:
    p = policy({"allow": ["exec", "read"], "deny": ["exec"]})
    assert allowed(p, "exec", "read") == {"exec": False, "read": True}
    assert allowed(policy({"allow": ["*"], "deny": ["*"]}), "read") == {"read": False}


def test_names_are_normalized_and_aliased() -> None:
    p = policy({"deny": ["bash"]})
    assert allowed(p, "exec", "EXEC", " Exec ") == {"exec": False, "EXEC": False, " Exec ": False}


def test_write_covers_apply_patch() -> None:
    assert policy({"allow": ["write"]}).check("apply_patch") is None
    assert policy({"deny": ["write"]}).check("apply_patch") is not None


@pytest.mark.parametrize(("profile", "expect"), [
    ("minimal", {"session_status": True, "read": False, "exec": False, "message": False}),
    ("coding", {"session_status": True, "read": True, "exec": True, "ls": True,
                "apply_patch": True, "message": False}),
    ("messaging", {"session_status": True, "read": False, "exec": False, "message": True}),
    ("full", {"session_status": True, "read": True, "exec": True, "message": True}),
])
def test_profiles(profile: str, expect: dict[str, bool]) -> None:
    assert allowed(policy({"profile": profile}), *expect) == expect


def test_also_allow_extends_the_profile() -> None:
    p = policy({"profile": "minimal", "alsoAllow": ["read"]})
    assert allowed(p, "read", "session_status", "exec") == {
        "read": True, "session_status": True, "exec": False}


def test_also_allow_alone_restricts_nothing() -> None:
    assert allowed(policy({"alsoAllow": ["read"]}), "exec", "read") == {"exec": True,
                                                                         "read": True}


def test_every_layer_must_pass() -> None:
    p = policy({"profile": "coding", "allow": ["read", "message"]})
    # message passes tools.allow but not the coding profile; exec passes the profile only
    assert allowed(p, "read", "message", "exec") == {"read": True, "message": False,
                                                     "exec": False}


def test_agent_layer_and_profile_override() -> None:
    p = policy({"profile": "coding"}, agent={"profile": "messaging", "deny": ["sessions_send"]})
    assert allowed(p, "message", "read", "sessions_send", "sessions_list") == {
        "message": True, "read": False, "sessions_send": False, "sessions_list": True}


def test_unknown_profile_is_refused_by_validation_and_allows_nothing_if_it_gets_past() -> None:
    with pytest.raises(ValidationError, match="unknown tool profile 'minimall'"):
        ToolsConfig.model_validate({"profile": "minimall"})
    # built without validation (model_construct), the policy still fails closed
    p = EffectiveToolPolicy(ToolsConfig.model_construct(profile="minimall"), which=BINS.get)
    assert p.unknown_profile == "minimall"
    assert allowed(p, "exec", "read", "session_status") == {
        "exec": False, "read": False, "session_status": False}
    reason = p.check("exec")
    assert reason is not None and "minimall" in reason


def test_minimal_profile_refuses_exec() -> None:
    p = policy({"profile": "minimal"})
    assert allowed(p, "exec", "session_status") == {"exec": False, "session_status": True}


# --- exec approvals -------------------------------------------------------------------


def exec_policy(**exec_cfg: Any) -> EffectiveToolPolicy:
    return policy({"exec": exec_cfg})


def test_non_exec_tools_never_ask() -> None:
    assert exec_policy(ask="always").needs_approval("read", {"path": "x"}) is None


def test_security_deny_refuses_whatever_ask_says() -> None:
    for ask in ("off", "on-miss", "always"):
        with pytest.raises(ToolPolicyDeniedError, match="security is \"deny\""):
            exec_policy(security="deny", ask=ask).needs_approval("exec", {"command": "ls"})


def test_security_full() -> None:
    assert exec_policy(security="full", ask="off").needs_approval("exec", {"command": "rm x"}) \
        is None
    assert exec_policy(security="full", ask="on-miss").needs_approval(
        "exec", {"command": "rm x"}) is None
    reason = exec_policy(security="full", ask="always").needs_approval("exec", {"command": "ls"})
    assert reason is not None and "always" in reason


@pytest.mark.parametrize(("command", "hit"), [
    ("git status", True),
    ("git log | ls -la", True),
    ("git status && ls", True),
    ("FOO=1 git status", True),
    ("rm -rf /", False),
    ("git status && rm -rf /", False),
    ("git status > out.txt", False),
    ("git $(rm -rf /)", False),
    ("git `rm`", False),
    ("(git status)", False),
    ("git status &", False),
    ('git commit -m "a;b|c"', True),
    ("$SHELL -c ls", False),
])
def test_allowlist_matching(command: str, hit: bool) -> None:
    on_miss = exec_policy(security="allowlist", ask="on-miss", allowlist=["git", "/fake/bin/ls"])
    assert (on_miss.needs_approval("exec", {"command": command}) is None) is hit
    off = exec_policy(security="allowlist", ask="off", allowlist=["git", "/fake/bin/ls"])
    if hit:
        assert off.needs_approval("exec", {"command": command}) is None
    else:
        with pytest.raises(ToolPolicyDeniedError, match="refused"):
            off.needs_approval("exec", {"command": command})


def test_allowlist_ask_always_still_asks_on_a_hit() -> None:
    p = exec_policy(security="allowlist", ask="always", allowlist=["git"])
    assert p.needs_approval("exec", {"command": "git status"}) is not None


def test_path_globs_match_the_resolved_executable() -> None:
    p = exec_policy(security="allowlist", ask="off", allowlist=["/fake/usr/bin/*"])
    assert p.needs_approval("exec", {"command": "python3 -V"}) is None
    assert p.needs_approval("exec", {"command": "/fake/usr/bin/git status"}) is None
    with pytest.raises(ToolPolicyDeniedError):
        p.needs_approval("exec", {"command": "ls"})  # /fake/bin/ls
    star = exec_policy(security="allowlist", ask="off", allowlist=["*"])
    assert star.needs_approval("exec", {"command": "anything --at all"}) is None
    with pytest.raises(ToolPolicyDeniedError):
        star.needs_approval("exec", {"command": "anything > file"})


def test_analysis_splits_segments() -> None:
    analysis = analyze_command("git status | ls && echo 'x && y'", which=BINS.get)
    assert analysis.ok
    assert [s.executable for s in analysis.segments] == ["git", "ls", "echo"]
    assert analysis.segments[0].resolved_path == "/fake/usr/bin/git"
    assert not analyze_command("echo 'unterminated").ok


async def test_allow_always_covers_the_programs_of_the_command_not_every_command(
        tmp_path: Any) -> None:
    gate = ScriptedApprovalGate(["allow-always", "deny"])
    caps = HostCapabilities(run_id="r", session_key="s", workspace_dir=str(tmp_path),
                            policy=exec_policy(security="allowlist", ask="on-miss"),
                            approvals=gate)
    first = await caps.run_before_tool_call("exec", {"command": "git status"}, tool_call_id="c1")
    again = await caps.run_before_tool_call("exec", {"command": "git log"}, tool_call_id="c2")
    other = await caps.run_before_tool_call("exec", {"command": "rm -rf x"}, tool_call_id="c3")
    assert (first.allowed, first.approval) == (True, "approved-session")
    assert (again.allowed, again.approval) == (True, "approved-session")
    # approving git for the session is not approving rm
    assert (other.allowed, other.approval) == (False, "denied")
    assert [r.arguments["command"] for r in gate.requests] == ["git status", "rm -rf x"]
    assert gate.requests[0].subject.programs == ("/fake/usr/bin/git",)
    denied = await HostCapabilities(
        run_id="r", session_key="s", workspace_dir=str(tmp_path),
        policy=policy({"deny": ["exec"]}), approvals=gate,
    ).run_before_tool_call("exec", {"command": "ls"})
    assert denied.allowed is False and denied.approval == "denied"


async def test_allow_always_under_ask_always_covers_only_that_call(tmp_path: Any) -> None:
    # the original: a durable "always" does not silence prompts when ask is "always"
    gate = ScriptedApprovalGate(["allow-always", "allow-once"])
    caps = HostCapabilities(run_id="r", session_key="s", workspace_dir=str(tmp_path),
                            policy=exec_policy(security="full", ask="always"), approvals=gate)
    first = await caps.run_before_tool_call("exec", {"command": "ls"}, tool_call_id="c1")
    second = await caps.run_before_tool_call("exec", {"command": "ls"}, tool_call_id="c2")
    assert (first.allowed, first.approval) == (True, "approved-once")
    assert (second.allowed, second.approval) == (True, "approved-once")
    assert len(gate.requests) == 2


async def test_a_command_the_analysis_refuses_is_granted_only_as_its_exact_text(
        tmp_path: Any) -> None:
    gate = ScriptedApprovalGate(["allow-always"])
    caps = HostCapabilities(run_id="r", session_key="s", workspace_dir=str(tmp_path),
                            policy=exec_policy(security="allowlist", ask="on-miss"),
                            approvals=gate)
    command = "git status > out.txt"
    assert (await caps.run_before_tool_call("exec", {"command": command})).allowed
    assert (await caps.run_before_tool_call("exec", {"command": command})).approval == \
        "approved-session"
    later = await caps.run_before_tool_call("exec", {"command": "git status > other.txt"})
    assert later.allowed is False and later.approval == "unavailable"  # the gate ran dry


# --- the default for a config with no exec settings ----------------------------------


def test_a_fresh_config_asks_before_any_shell_command() -> None:
    # item 9 of issue 14: with no tools.exec config, `echo hi` ran unasked
    fresh = policy()
    reason = fresh.needs_approval("exec", {"command": "echo hi"})
    assert reason is not None
    assert "tools.exec.allowlist" in reason and '"on-miss"' in reason


async def test_a_fresh_config_without_an_approver_refuses_the_command(tmp_path: Any) -> None:
    caps = HostCapabilities(run_id="r", session_key="s", workspace_dir=str(tmp_path),
                            policy=policy(), approvals=None)
    decision = await caps.run_before_tool_call("exec", {"command": "echo hi"})
    assert decision.allowed is False and decision.approval == "unavailable"
    assert "no approver is available" in (decision.reason or "")


def test_full_security_must_be_chosen_to_run_commands_unasked() -> None:
    assert exec_policy(security="full").needs_approval("exec", {"command": "echo hi"}) is None


def test_a_bare_name_entry_does_not_allow_a_same_named_file_elsewhere() -> None:
    p = exec_policy(security="allowlist", ask="off", allowlist=["ls"])
    assert p.needs_approval("exec", {"command": "ls -la"}) is None
    for command in ("./ls", "/tmp/ls -la", "bin/ls"):
        with pytest.raises(ToolPolicyDeniedError, match=r"not in tools\.exec\.allowlist"):
            p.needs_approval("exec", {"command": command})
    by_path = exec_policy(security="allowlist", ask="off", allowlist=["/fake/bin/ls"])
    assert by_path.needs_approval("exec", {"command": "/fake/bin/ls"}) is None


async def test_an_unanswered_approval_says_which_rule_asked_and_that_no_one_could_answer(
        tmp_path: Any) -> None:
    # `clawharness agent` with stdin piped: the terminal gate has no one to ask
    gate = ScriptedApprovalGate([])
    caps = HostCapabilities(run_id="r", session_key="s", workspace_dir=str(tmp_path),
                            policy=policy(), approvals=gate)
    decision = await caps.run_before_tool_call("exec", {"command": "echo hi"})
    assert decision.allowed is False and decision.approval == "unavailable"
    reason = decision.reason or ""
    assert "tools.exec.allowlist" in reason and "no one could answer" in reason
