"""Seed 004 "Native tool-policy enforcement" and the digest §2.5 deny-all rule."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from harness_fakes import FakeHarness, make_params

from clawharness.errors import ToolPolicyRejectedError
from clawharness.harness.gates import (
    GROUP_DENY_ALL_PROMPT,
    RUNTIME_DENY_ALL_PROMPT,
    SENDER_DENY_ALL_PROMPT,
    ToolPolicyLayer,
    append_policy_prompt,
    apply_tool_policy_gate,
    evaluate_tool_policy_gate,
)


class Exact(FakeHarness):
    conversation_tool_policy_support = "exact"


class ExactWithSafeList(Exact):
    conversation_tool_policy_safe_deny_tools: Sequence[str] = (
        "sessions_list", "image_generate", "web_search", "web_fetch", "x_search", "my_custom",
    )


def deny(*names: str, kind: str = "runtime") -> ToolPolicyLayer:
    return ToolPolicyLayer("agent", kind, deny=names)  # type: ignore[arg-type]


def test_exact_harness_runs_restricted_turns_with_the_flag() -> None:
    gate = evaluate_tool_policy_gate(Exact("native"), [deny("exec")])  # type: ignore[arg-type]
    assert gate.allowed and gate.restricted
    params = apply_tool_policy_gate(make_params(), gate)
    assert params.plugin_harness_tool_policy_restricted is True


def test_non_exact_harness_is_rejected_visibly_for_any_explicit_restriction() -> None:
    harness = FakeHarness("native", label="Native Agent")
    gate = evaluate_tool_policy_gate(harness, [deny("exec")])  # type: ignore[arg-type]
    assert not gate.allowed
    assert gate.rejection == ("Native Agent cannot enforce this conversation's tool policy. "
                              "Use the embedded runtime or ask in the main conversation.")
    with pytest.raises(ToolPolicyRejectedError):
        apply_tool_policy_gate(make_params(), gate)


def test_unrestricted_turns_pass_any_harness() -> None:
    gate = evaluate_tool_policy_gate(FakeHarness("native"), [])  # type: ignore[arg-type]
    assert gate.allowed and not gate.restricted and gate.deny_all_prompt is None


def test_default_profile_narrowing_does_not_set_the_flag() -> None:
    profile = ToolPolicyLayer("profile", "profile", allow=("read", "write"))
    gate = evaluate_tool_policy_gate(FakeHarness("native"), [profile])  # type: ignore[arg-type]
    assert gate.allowed and not gate.restricted


def test_profile_that_removes_a_declared_native_tool_isolates_the_surface() -> None:
    class WithNative(Exact):
        conversation_tool_policy_native_tools = ("exec", "read")

    profile = ToolPolicyLayer("profile", "profile", allow=("read",))
    gate = evaluate_tool_policy_gate(WithNative("native"), [profile])  # type: ignore[arg-type]
    assert gate.restricted


def test_safe_declared_denies_keep_the_native_surface() -> None:
    gate = evaluate_tool_policy_gate(
        ExactWithSafeList("native"), [deny("sessions_list"), deny("image_generate", kind="group")])  # type: ignore[arg-type]
    assert not gate.restricted
    assert gate.safe_denied_tools == ("image_generate", "sessions_list")
    params = apply_tool_policy_gate(make_params(), gate)
    assert params.plugin_harness_tool_policy_safe_denied_tools == ("image_generate",
                                                                   "sessions_list")


@pytest.mark.parametrize("denied", [
    ("exec",),            # a known core tool the harness did not declare safe
    ("my_custom",),       # declared, but not a known core tool
    ("web_*",),           # wildcards are never exact
    ("*",),
    ("group:runtime",),   # a group with undeclared members
    ("sessions_list", "exec"),
])
def test_anything_outside_the_audited_safe_list_fails_closed(denied: tuple[str, ...]) -> None:
    gate = evaluate_tool_policy_gate(ExactWithSafeList("native"), [deny(*denied)])  # type: ignore[arg-type]
    assert gate.restricted


def test_a_group_whose_members_are_all_declared_stays_safe() -> None:
    gate = evaluate_tool_policy_gate(ExactWithSafeList("native"), [deny("group:web")])  # type: ignore[arg-type]
    assert not gate.restricted
    assert gate.safe_denied_tools == ("web_fetch", "web_search", "x_search")


def test_finite_allowlists_always_isolate() -> None:
    allow = ToolPolicyLayer("agent", "runtime", allow=("read",))
    assert evaluate_tool_policy_gate(ExactWithSafeList("native"), [allow]).restricted  # type: ignore[arg-type]
    star = ToolPolicyLayer("agent", "runtime", allow=("*",))
    assert not evaluate_tool_policy_gate(ExactWithSafeList("native"), [star]).restricted  # type: ignore[arg-type]


def test_omitting_the_safe_list_keeps_every_restriction_isolating() -> None:
    gate = evaluate_tool_policy_gate(Exact("native"), [deny("sessions_list")])  # type: ignore[arg-type]
    assert gate.restricted and gate.safe_denied_tools == ()


@pytest.mark.parametrize(("layers", "prompt"), [
    ([ToolPolicyLayer("sender", "sender", deny=("*",))], SENDER_DENY_ALL_PROMPT),
    ([ToolPolicyLayer("group", "sender-group", deny=("*",))], SENDER_DENY_ALL_PROMPT),
    ([ToolPolicyLayer("group", "group", deny=("*",))], GROUP_DENY_ALL_PROMPT),
    ([ToolPolicyLayer("sandbox", "runtime", deny=("*",))], RUNTIME_DENY_ALL_PROMPT),
    ([ToolPolicyLayer("group", "group", deny=("*",)),
      ToolPolicyLayer("sender", "sender", deny=("*",))], SENDER_DENY_ALL_PROMPT),
])
def test_deny_all_sentence_names_the_layer(layers: list[ToolPolicyLayer], prompt: str) -> None:
    gate = evaluate_tool_policy_gate(Exact("native"), layers)  # type: ignore[arg-type]
    assert gate.deny_all_prompt == prompt


def test_requested_empty_allowlist_or_disabled_tools_deny_all() -> None:
    empty = ToolPolicyLayer.requested([])
    disabled = ToolPolicyLayer.requested(None, disable_tools=True)
    assert empty is not None and empty.denies_all()
    assert disabled is not None and disabled.denies_all()
    assert ToolPolicyLayer.requested(None) is None
    finite = ToolPolicyLayer.requested(["read"])
    assert finite is not None and finite.restricts() and not finite.denies_all()
    gate = evaluate_tool_policy_gate(Exact("native"), [empty])  # type: ignore[arg-type]
    assert gate.deny_all_prompt == RUNTIME_DENY_ALL_PROMPT


def test_builtin_gets_no_sentence_and_unchanged_params() -> None:
    gate = evaluate_tool_policy_gate(None, [ToolPolicyLayer("group", "group", deny=("*",))],
                                     builtin=True)
    params = make_params(system_prompt="x")
    assert gate.allowed and gate.deny_all_prompt is None
    assert apply_tool_policy_gate(params, gate) is params


def test_append_policy_prompt_is_idempotent() -> None:
    once = append_policy_prompt("  Rules.  ", GROUP_DENY_ALL_PROMPT)
    assert once == f"Rules.\n\n{GROUP_DENY_ALL_PROMPT}"
    assert append_policy_prompt(once, GROUP_DENY_ALL_PROMPT) == once
    assert append_policy_prompt(None, GROUP_DENY_ALL_PROMPT) == GROUP_DENY_ALL_PROMPT
