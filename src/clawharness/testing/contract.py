"""Contract test kit for harness authors.

Two ways to use it:

- `check_harness_contract(harness, declared_route_ctx=..., undeclared_route_ctx=...)`
  returns a `ContractReport` (call `.raise_for_failures()` in a test), and
  `check_attempt_result(harness, params)` runs one attempt and checks the result shape.
- Subclass `HarnessContractSuite` as `class TestMyHarness(HarnessContractSuite)` and
  implement `make_harness`, `declared_route_ctx`, `undeclared_route_ctx` (and optionally
  `attempt_params`); pytest then collects one test per contract clause.

Clauses: registration shape; `supports()` claims the declared route and refuses an
undeclared one (an absent route policy is never permission); explicitly restricted turns
fail closed unless the harness declares exact tool-policy enforcement; attempt results
have the canonical shape.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from clawharness.errors import HarnessError, ToolPolicyRejectedError
from clawharness.harness.gates import ToolPolicyLayer, evaluate_tool_policy_gate
from clawharness.harness.registry import HarnessRegistry, validate_harness_shape
from clawharness.harness.selection import coerce_support_result
from clawharness.harness.types import (
    AgentHarness,
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
    SupportContext,
    Supported,
    Unsupported,
)

__all__ = [
    "ContractCheck",
    "ContractReport",
    "HarnessContractSuite",
    "check_attempt_result",
    "check_harness_contract",
]

_TERMINAL_KINDS = frozenset({"ok", "aborted", "timeout", "failed"})


@dataclass(frozen=True, slots=True)
class ContractCheck:
    """One contract clause and whether the harness met it."""

    name: str
    ok: bool
    detail: str = ""


@dataclass(frozen=True, slots=True)
class ContractReport:
    harness_id: str
    checks: tuple[ContractCheck, ...]

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks)

    @property
    def failures(self) -> tuple[ContractCheck, ...]:
        return tuple(check for check in self.checks if not check.ok)

    def raise_for_failures(self) -> None:
        """AssertionError listing every failed clause (so one run shows them all)."""
        if self.failures:
            lines = [f"- {c.name}: {c.detail}" for c in self.failures]
            raise AssertionError(
                f'agent harness "{self.harness_id}" breaks the harness contract:\n'
                + "\n".join(lines)
            )


def _registration_checks(harness: object) -> list[ContractCheck]:
    checks: list[ContractCheck] = []
    try:
        validate_harness_shape(harness)
        HarnessRegistry().register(harness)  # type: ignore[arg-type]
        checks.append(ContractCheck("registration", True))
    except HarnessError as exc:
        checks.append(ContractCheck("registration", False, str(exc)))
    optional: list[tuple[str, bool, str]] = []
    auth = getattr(harness, "auth_bootstrap", None)
    optional.append(("auth_bootstrap", auth in (None, "harness"),
                     f'must be absent or "harness", got {auth!r}'))
    support = getattr(harness, "conversation_tool_policy_support", None)
    optional.append(("conversation_tool_policy_support", support in (None, "exact"),
                     f'must be absent or "exact", got {support!r}'))
    safe = getattr(harness, "conversation_tool_policy_safe_deny_tools", None)
    safe_ok = safe is None or (
        isinstance(safe, Sequence) and not isinstance(safe, str)
        and all(isinstance(n, str) and n and "*" not in n and not n.startswith("group:")
                for n in safe))
    optional.append(("conversation_tool_policy_safe_deny_tools", safe_ok,
                     "must list canonical tool names (no wildcards or groups)"))
    auto = getattr(harness, "auto_selection", None)
    ids = (auto.get("providerIds", auto.get("provider_ids")) if isinstance(auto, Mapping)
           else getattr(auto, "provider_ids", None)) if auto is not None else None
    auto_ok = auto is None or (isinstance(ids, Sequence) and not isinstance(ids, str)
                               and all(isinstance(i, str) for i in ids))
    optional.append(("auto_selection", auto_ok, "must carry a providerIds list of strings"))
    artifact = getattr(harness, "runtime_artifact", None)
    optional.append(("runtime_artifact",
                     artifact is None or callable(getattr(artifact, "validate", None)),
                     "must have a callable validate(artifact)"))
    for name, ok, detail in optional:
        checks.append(ContractCheck(f"field {name}", ok, "" if ok else detail))
    return checks


def _support_checks(harness: AgentHarness, declared: SupportContext,
                    undeclared: SupportContext) -> list[ContractCheck]:
    checks: list[ContractCheck] = []
    try:
        first = coerce_support_result(harness.supports(declared))
        second = coerce_support_result(harness.supports(declared))
        claimed = isinstance(first, Supported)
        checks.append(ContractCheck("supports(declared route)", claimed,
                                    "" if claimed else f"refused: {first.reason}"))
        checks.append(ContractCheck("supports() is deterministic", first == second,
                                    "" if first == second else f"{first!r} then {second!r}"))
        refused = coerce_support_result(harness.supports(undeclared))
        not_claimed = isinstance(refused, Unsupported)
        checks.append(ContractCheck(
            "supports(undeclared route) refuses", not_claimed,
            "" if not_claimed else "an undeclared route policy is not permission"))
        fallback_ok = not isinstance(refused, Unsupported) or refused.fallback_runtime in (
            None, "openclaw")
        checks.append(ContractCheck("fallback_runtime", fallback_ok,
                                    "" if fallback_ok else "only 'openclaw' may be declared"))
    except Exception as exc:
        checks.append(ContractCheck("supports() raises", False, f"{type(exc).__name__}: {exc}"))
    return checks


def _gate_checks(harness: AgentHarness) -> list[ContractCheck]:
    layers = [ToolPolicyLayer("agent", "runtime", deny=("exec",))]
    gate = evaluate_tool_policy_gate(harness, layers)
    exact = getattr(harness, "conversation_tool_policy_support", None) == "exact"
    if exact:
        ok = gate.allowed and gate.restricted
        detail = "" if ok else "an exact harness must receive restricted turns, flagged"
    else:
        try:
            gate.raise_if_rejected()
            ok, detail = False, "a restricted turn was not rejected before the harness ran"
        except ToolPolicyRejectedError:
            ok, detail = True, ""
    return [ContractCheck("restricted turns fail closed", ok, detail)]


def check_harness_contract(
    harness: AgentHarness,
    *,
    declared_route_ctx: SupportContext,
    undeclared_route_ctx: SupportContext,
) -> ContractReport:
    """Check registration, support and gate clauses (synchronous; runs no attempt)."""
    checks = _registration_checks(harness)
    if hasattr(harness, "supports"):
        checks += _support_checks(harness, declared_route_ctx, undeclared_route_ctx)
    checks += _gate_checks(harness)
    return ContractReport(str(getattr(harness, "id", "?")), tuple(checks))


def _result_checks(harness: AgentHarness, params: AttemptParams,
                   result: Any) -> list[ContractCheck]:
    if not isinstance(result, AttemptResult):
        return [ContractCheck("result type", False,
                              f"run_attempt returned {type(result).__name__}, not AttemptResult")]
    checks = [ContractCheck("result type", True)]
    terminal = result.terminal
    terminal_ok = isinstance(terminal, AttemptTerminal) and terminal.kind in _TERMINAL_KINDS
    checks.append(ContractCheck("terminal", terminal_ok,
                                "" if terminal_ok else f"invalid terminal {terminal!r}"))
    sid_ok = isinstance(result.session_id_used, str) and bool(result.session_id_used)
    checks.append(ContractCheck("session_id_used", sid_ok, "" if sid_ok else "must be set"))
    media_ok = set(result.host_owned_tool_media_urls) <= set(result.tool_media_urls)
    checks.append(ContractCheck("host_owned_tool_media_urls ⊆ tool_media_urls", media_ok,
                                "" if media_ok else "every host-owned URL must be a tool URL"))
    calls_ok = result.client_tool_calls is None or len(result.client_tool_calls) > 0
    checks.append(ContractCheck("client_tool_calls", calls_ok,
                                "" if calls_ok else "must be None or non-empty"))
    hid_ok = result.agent_harness_id in (None, harness.id)
    checks.append(ContractCheck("agent_harness_id", hid_ok,
                                "" if hid_ok else f"stamped {result.agent_harness_id!r}"))
    if params.capture_runtime_artifact:
        art = result.runtime_artifact
        art_ok = art is not None and bool(art.id) and bool(art.fingerprint)
        checks.append(ContractCheck("runtime_artifact captured", art_ok,
                                    "" if art_ok else "capture was requested but none returned"))
    return checks


async def check_attempt_result(harness: AgentHarness, params: AttemptParams) -> ContractReport:
    """Run one attempt and check the result's canonical shape."""
    try:
        result = await harness.run_attempt(params)
    except Exception as exc:
        return ContractReport(harness.id, (ContractCheck("run_attempt", False,
                                                         f"{type(exc).__name__}: {exc}"),))
    return ContractReport(harness.id, tuple(_result_checks(harness, params, result)))


class HarnessContractSuite:
    """Subclass as `TestMyHarness(HarnessContractSuite)`; pytest collects the clauses."""

    def make_harness(self) -> AgentHarness:
        raise NotImplementedError("return a fresh harness instance")

    def declared_route_ctx(self) -> SupportContext:
        raise NotImplementedError("return a SupportContext for a route the harness declares")

    def undeclared_route_ctx(self) -> SupportContext:
        raise NotImplementedError("return a SupportContext whose route declares nothing")

    def attempt_params(self) -> AttemptParams | None:
        """Prepared params for the result-shape clause; None skips it."""
        return None

    def _report(self) -> ContractReport:
        return check_harness_contract(self.make_harness(),
                                      declared_route_ctx=self.declared_route_ctx(),
                                      undeclared_route_ctx=self.undeclared_route_ctx())

    def _assert_clause(self, prefix: str) -> None:
        report = self._report()
        picked = tuple(c for c in report.checks if c.name.startswith(prefix))
        assert picked, f"no contract clause named {prefix!r}"
        ContractReport(report.harness_id, picked).raise_for_failures()

    def test_registration_shape(self) -> None:
        self._assert_clause("registration")
        self._assert_clause("field ")

    def test_supports_the_declared_route(self) -> None:
        self._assert_clause("supports(declared route)")
        self._assert_clause("supports() is deterministic")

    def test_refuses_an_undeclared_route(self) -> None:
        self._assert_clause("supports(undeclared route)")
        self._assert_clause("fallback_runtime")

    def test_restricted_turns_fail_closed(self) -> None:
        self._assert_clause("restricted turns")

    def test_attempt_result_shape(self) -> None:
        params = self.attempt_params()
        if params is None:
            return
        report = asyncio.run(check_attempt_result(self.make_harness(), params))
        report.raise_for_failures()
