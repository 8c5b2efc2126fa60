"""A front's narrowing of the tool policy for one turn (`ToolRestriction`): it refuses
what its allow list leaves out, asks where it says so, and never lets through what the
agent's own policy refuses."""

from __future__ import annotations

import pytest

from clawharness.config.schema import ToolsConfig
from clawharness.errors import ToolPolicyDeniedError
from clawharness.harness.gates import evaluate_tool_policy_gate
from clawharness.tools.policy import EffectiveToolPolicy
from clawharness.tools.restriction import RestrictedToolPolicy, ToolRestriction

READ_ONLY = ToolRestriction('the ACP session mode "read-only"', allow=("read", "ls"))
ASK = ToolRestriction('the ACP session mode "ask"', ask=("exec", "write"))


def policy(**tools: object) -> EffectiveToolPolicy:
    return EffectiveToolPolicy(ToolsConfig.model_validate(tools))


def test_the_allow_list_refuses_what_it_leaves_out_and_names_itself() -> None:
    narrowed = RestrictedToolPolicy(policy(), READ_ONLY)
    assert narrowed.check("read") is None and narrowed.check("ls") is None
    reason = narrowed.check("write")
    assert reason == ('tool "write" is not offered in the ACP session mode "read-only" '
                      "(it allows only read, ls)")


def test_a_restriction_never_widens_the_config() -> None:
    narrowed = RestrictedToolPolicy(policy(deny=["read"]), READ_ONLY)
    assert narrowed.check("read") is not None and "deny" in str(narrowed.check("read"))
    with pytest.raises(ToolPolicyDeniedError):  # exec security "deny" still refuses
        RestrictedToolPolicy(policy(exec={"security": "deny"}), ASK).needs_approval(
            "exec", {"command": "ls"})


def test_ask_asks_where_the_config_would_not() -> None:
    narrowed = RestrictedToolPolicy(policy(exec={"security": "full"}), ASK)
    assert narrowed.needs_approval("exec", {"command": "ls"}) == (
        'the ACP session mode "ask" asks before every exec call')
    assert narrowed.needs_approval("write", {"path": "a"}) is not None
    assert narrowed.needs_approval("read", {"path": "a"}) is None
    # the config's own reason wins when it asks too
    strict = RestrictedToolPolicy(policy(exec={"ask": "always"}), ASK)
    assert "tools.exec.ask" in str(strict.needs_approval("exec", {"command": "ls"}))


def test_the_gate_refuses_a_native_harness_that_cannot_enforce_the_restriction() -> None:
    class Loose:
        id = "loose"
        label = "Loose harness"
        conversation_tool_policy_native_tools = ("Bash", "Write")

    layer = READ_ONLY.gate_layer()
    assert layer is not None and ASK.gate_layer() is None
    gate = evaluate_tool_policy_gate(Loose(), [layer])  # type: ignore[arg-type]
    assert gate.rejection is not None and "cannot enforce" in gate.rejection
