"""Contract test kit for harness authors (`clawharness.plugin_sdk.testing`).

Two ways to use it:

- `check_harness_contract(harness, declared_route_ctx=...)` returns a `ContractReport`
  (call `.raise_for_failures()` in a test), and `check_attempt_result(harness, params)`
  runs one attempt and checks its result as the host would.
- Subclass `HarnessContractSuite` as `class TestMyHarness(HarnessContractSuite)` and
  implement `make_harness` and `declared_route_ctx` (and `attempt_params` to run an
  attempt); pytest then collects one test per contract clause.

Clauses: registration shape; `supports()` claims the declared route, deterministically;
it never claims a route that declares nothing for it: the kit derives those from the
declared route itself (no route facts, no runtime policy, a policy naming only other
runtimes; plus `undeclared_route_ctx` if given), so a harness that ignores the route
policy cannot pass; nor the declared route with authored request overrides; restricted
turns fail closed unless the harness declares exact tool-policy enforcement; an
attempt's result has the canonical shape, names the host session it ran in
(`session_id_used`), is accepted by the host's result validation, and its reply is in
the transcript (`messages_snapshot`, or what it mirrored, which must start with the
turn's prompt); a harness that declares exact tool policy put every tool it ran to the
host's policy first; and the next turn of the same session resumes the native session
the first used (`extra["nativeSessionId"]`, or what its `bindings` hold).
"""

from __future__ import annotations

import asyncio
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from clawharness.attempt.transcript_contract import check_transcript_contract
from clawharness.errors import ClawHarnessError, HarnessError, ToolPolicyRejectedError
from clawharness.harness.gates import ToolPolicyLayer, evaluate_tool_policy_gate
from clawharness.harness.messages import Message, message_text
from clawharness.harness.registry import HarnessRegistry, validate_harness_shape
from clawharness.harness.selection import coerce_support_result
from clawharness.harness.types import (
    AgentHarness,
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
    ModelProviderFacts,
    RuntimePolicyFact,
    SupportContext,
    Supported,
    Unsupported,
)
from clawharness.plugin_sdk._kit.attempt_builder import (
    RecordingCapabilities,
    RecordingMirror,
    next_turn_params,
)
from clawharness.sessions.bindings.session_bindings import SessionBindings

__all__ = [
    "ContractCheck",
    "ContractReport",
    "HarnessContractSuite",
    "check_attempt_result",
    "check_harness_contract",
    "undeclared_routes",
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


def undeclared_routes(harness_id: str, declared: SupportContext) -> list[tuple[str, SupportContext]]:
    """The routes derived from `declared` that declare nothing for `harness_id`: same
    provider, model and requested runtime, without the compatibility declaration."""
    facts = declared.model_provider or ModelProviderFacts()
    others = tuple(i for i in (facts.runtime_policy.compatible_ids if facts.runtime_policy
                               else ()) if i != harness_id) or ("openclaw",)
    return [
        ("no route facts", replace(declared, model_provider=None)),
        ("no runtime policy", replace(declared, model_provider=replace(facts,
                                                                       runtime_policy=None))),
        (f"a policy naming only {', '.join(others)}",
         replace(declared, model_provider=replace(facts, runtime_policy=RuntimePolicyFact(
             others)))),
    ]


def _support_checks(harness: AgentHarness, declared: SupportContext,
                    undeclared: SupportContext | None) -> list[ContractCheck]:
    checks: list[ContractCheck] = []
    try:
        first = coerce_support_result(harness.supports(declared))
        second = coerce_support_result(harness.supports(declared))
        claimed = isinstance(first, Supported)
        checks.append(ContractCheck("supports(declared route)", claimed,
                                    "" if claimed else f"refused: {first.reason}"))
        checks.append(ContractCheck("supports() is deterministic", first == second,
                                    "" if first == second else f"{first!r} then {second!r}"))
        routes = undeclared_routes(str(harness.id), declared)
        if undeclared is not None:
            routes.append(("the given undeclared route", undeclared))
        claimed_anyway: list[str] = []
        fallbacks_ok = True
        for label, ctx in routes:
            refused = coerce_support_result(harness.supports(ctx))
            if not isinstance(refused, Unsupported):
                claimed_anyway.append(label)
            elif refused.fallback_runtime not in (None, "openclaw"):
                fallbacks_ok = False
        checks.append(ContractCheck(
            "supports(undeclared route) refuses", not claimed_anyway,
            "" if not claimed_anyway else
            "claimed a route that declares nothing for it (" + "; ".join(claimed_anyway)
            + "): an absent or foreign route policy is not permission; claim only when "
            "ctx.model_provider.runtime_policy lists the harness id"))
        checks.append(ContractCheck("fallback_runtime", fallbacks_ok,
                                    "" if fallbacks_ok else "only 'openclaw' may be declared"))
        overridden = replace(declared, model_provider=replace(
            declared.model_provider or ModelProviderFacts(),
            request_transport_overrides="present"))
        answer = coerce_support_result(harness.supports(overridden))
        overrides_refused = isinstance(answer, Unsupported)
        checks.append(ContractCheck(
            "supports(route with authored request overrides) refuses", overrides_refused,
            "" if overrides_refused else
            "claimed the declared route with authored request overrides "
            "(ctx.model_provider.request_transport_overrides == \"present\": headers, "
            "auth transport, proxy, TLS or request parameters the harness cannot "
            "reproduce); refuse it, with fallback_runtime=\"openclaw\" only when the "
            "built-in runtime can reproduce the exact request"))
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
    undeclared_route_ctx: SupportContext | None = None,
) -> ContractReport:
    """Check registration, support and gate clauses (synchronous; runs no attempt).

    `declared_route_ctx`: a route the harness should claim (`declared_route(...)` makes
    one); the kit derives the undeclared ones from it. `undeclared_route_ctx`: one more
    route that must be refused."""
    checks = _registration_checks(harness)
    if hasattr(harness, "supports"):
        checks += _support_checks(harness, declared_route_ctx, undeclared_route_ctx)
    checks += _gate_checks(harness)
    return ContractReport(str(getattr(harness, "id", "?")), tuple(checks))


def _transcript_checks(params: AttemptParams, result: AttemptResult) -> list[ContractCheck]:
    recorder = params.mirror if isinstance(params.mirror, RecordingMirror) else None
    checks: list[ContractCheck] = []
    mirrored = None
    if result.transcript_mirrored:
        if params.mirror is None:
            return [ContractCheck("transcript", False, "transcript_mirrored=True, but "
                                  "params.mirror was None: nothing reached the transcript")]
        if recorder is None:
            return []  # the caller's own mirror: nothing here to read back
        mirrored = recorder.messages
        first = mirrored[0] if mirrored else None
        starts_ok = first is not None and first.get("role") == "user" and (
            params.prompt.strip() in message_text(first))
        checks.append(ContractCheck(
            "transcript starts with the prompt", starts_ok, "" if starts_ok else
            "a harness that mirrors (transcript_mirrored=True) stores the turn's user "
            "prompt itself, first; the host adds nothing to a mirrored transcript"))
    try:
        check_transcript_contract(result, mirrored)
        checks.append(ContractCheck("transcript holds the reply", True))
    except ClawHarnessError as exc:
        checks.append(ContractCheck("transcript holds the reply", False, str(exc)))
    return checks


def _result_checks(harness: AgentHarness, params: AttemptParams, result: Any,
                   observed: Sequence[Mapping[str, Any]]) -> list[ContractCheck]:
    if not isinstance(result, AttemptResult):
        return [ContractCheck("result type", False,
                              f"run_attempt returned {type(result).__name__}, not AttemptResult")]
    checks = [ContractCheck("result type", True)]
    terminal = result.terminal
    terminal_ok = isinstance(terminal, AttemptTerminal) and terminal.kind in _TERMINAL_KINDS
    checks.append(ContractCheck("terminal", terminal_ok,
                                "" if terminal_ok else f"invalid terminal {terminal!r}"))
    sid_ok = result.session_id_used == params.session_id
    checks.append(ContractCheck(
        "session_id_used", sid_ok, "" if sid_ok else
        f"returned {result.session_id_used!r}, but the attempt ran in host session "
        f"{params.session_id!r}: session_id_used is params.session_id (a native session "
        "id goes in extra[\"nativeSessionId\"])"))
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
    if terminal_ok:
        checks += _transcript_checks(params, result)
    if getattr(harness, "conversation_tool_policy_support", None) == "exact":
        checks.append(_asked_the_host_check(params, result, observed))
    return checks


def _tool_calls_run(result: AttemptResult, mirrored: Sequence[Message],
                    observed: Sequence[Mapping[str, Any]]) -> list[tuple[str | None, str]]:
    """`(call id, tool name)` of every call the attempt reports as having run: an
    observation with `executionStarted`, or a successful `toolResult` message."""
    ran: dict[tuple[str | None, str], None] = {}
    for observation in observed:
        if observation.get("executionStarted"):
            call_id = observation.get("toolCallId")
            ran[(call_id if isinstance(call_id, str) else None,
                 str(observation.get("toolName", "")))] = None
    for message in (*result.messages_snapshot, *mirrored):
        if message.get("role") == "toolResult" and not message.get("isError"):
            ran[(message.get("toolCallId"), str(message.get("toolName", "")))] = None
    return list(ran)


def _asked_the_host_check(params: AttemptParams, result: AttemptResult,
                          observed: Sequence[Mapping[str, Any]]) -> ContractCheck:
    caps = params.host_capabilities
    if not isinstance(caps, RecordingCapabilities):
        return ContractCheck("exact tool policy: every tool call asks the host", True,
                             "not checked: params were not built by attempt_params")
    recorder = params.mirror if isinstance(params.mirror, RecordingMirror) else None
    asked_ids = {call_id for _, call_id in caps.asked if call_id}
    asked_names = {name for name, _ in caps.asked}
    unasked = [f"{name} ({call_id})" if call_id else name
               for call_id, name in _tool_calls_run(
                   result, recorder.messages if recorder is not None else (), observed)
               if (call_id not in asked_ids if call_id else name not in asked_names)]
    return ContractCheck(
        "exact tool policy: every tool call asks the host", not unasked,
        "" if not unasked else
        "declares conversation_tool_policy_support = \"exact\" but ran "
        + ", ".join(unasked) + " without asking the host's policy first "
        "(params.host_capabilities.run_before_tool_call; ToolCalls.ask or run_host_tool "
        "ask it for you): a restricted turn would run a tool its policy denies")


async def _run(harness: AgentHarness, params: AttemptParams
               ) -> tuple[AttemptParams, AttemptResult | Exception, list[Mapping[str, Any]]]:
    """One attempt, with the host's observer recording what the harness reported."""
    observed: list[Mapping[str, Any]] = []
    host_observe = params.observe_tool_terminal

    def observe(observation: Mapping[str, object]) -> Mapping[str, object]:
        observed.append(observation)
        return host_observe(observation) if host_observe is not None else {}

    params = replace(params, observe_tool_terminal=observe)
    try:
        return params, await harness.run_attempt(params), observed
    except Exception as exc:
        return params, exc, observed
    finally:
        params.host_capabilities.settle()


async def _native_session(harness: AgentHarness, params: AttemptParams,
                          result: AttemptResult) -> str | None:
    """The native session a turn ran on: what it reported (`extra["nativeSessionId"]`),
    else what its `bindings` hold for the session."""
    reported = result.extra.get("nativeSessionId")
    if isinstance(reported, str) and reported:
        return reported
    bindings = getattr(harness, "bindings", None)
    if isinstance(bindings, SessionBindings):
        record = await bindings.read(params.agent_id, params.session_key)
        native = record.get("nativeSessionId") if isinstance(record, Mapping) else None
        return native if isinstance(native, str) and native else None
    return None


async def _resume_check(harness: AgentHarness, params: AttemptParams,
                        first: AttemptResult) -> ContractCheck:
    name = "the next turn resumes the native session"
    native = await _native_session(harness, params, first)
    if native is None:
        return ContractCheck(name, True, "not checked: the turn reported no native session "
                             "(extra[\"nativeSessionId\"]) and bound none")
    recorder = params.mirror if isinstance(params.mirror, RecordingMirror) else None
    history = (recorder.messages if recorder is not None and first.transcript_mirrored
               else [*params.history, *first.messages_snapshot])
    second_params, second, _ = await _run(
        harness, next_turn_params(params, "and again", history=history))
    if isinstance(second, Exception):
        return ContractCheck(name, False, f"the second turn raised "
                                          f"{type(second).__name__}: {second}")
    again = await _native_session(harness, second_params, second)
    ok = again == native
    return ContractCheck(name, ok, "" if ok else
                         f"the first turn ran on native session {native!r}, the next turn of "
                         f"the same host session on {again!r}: a harness resumes the native "
                         "session its binding names (SessionBindings.with_turn: "
                         "bound.record) instead of starting a new one every turn")


async def check_attempt_result(harness: AgentHarness, params: AttemptParams, *,
                               next_turn: bool = True) -> ContractReport:
    """Run one attempt and check its result as the host would: its shape, the session
    it names, the host's validation, the transcript contract, and (for a harness that
    declares exact tool policy) that every tool it ran was put to the host's policy.
    With `next_turn`, a second turn of the same session then checks that the harness
    resumes the native session the first one used. Build `params` with
    `attempt_params(...)`: its recording mirror and capabilities let the kit read back
    what the harness stored and asked."""
    params, result, observed = await _run(harness, params)
    if isinstance(result, Exception):
        return ContractReport(harness.id, (ContractCheck(
            "run_attempt", False, f"{type(result).__name__}: {result}"),))
    checks = _result_checks(harness, params, result, observed)
    if next_turn and isinstance(result, AttemptResult) and result.terminal.kind == "ok":
        checks.append(await _resume_check(harness, params, result))
    return ContractReport(harness.id, tuple(checks))


class HarnessContractSuite:
    """Subclass as `TestMyHarness(HarnessContractSuite)`; pytest collects the clauses.

    `self.workdir` is a fresh directory for each clause (removed afterwards): put the
    harness's state and the attempt's workspace there.
    """

    workdir: Path

    def setup_method(self, method: object = None) -> None:
        self._workdir = tempfile.TemporaryDirectory(prefix="clawharness-kit-")
        self.workdir = Path(self._workdir.name)

    def teardown_method(self, method: object = None) -> None:
        self._workdir.cleanup()

    def make_harness(self) -> AgentHarness:
        raise NotImplementedError("return a fresh harness instance")

    def declared_route_ctx(self) -> SupportContext:
        raise NotImplementedError("return a SupportContext for a route the harness declares "
                                  "(declared_route(harness_id, provider, model))")

    def undeclared_route_ctx(self) -> SupportContext | None:
        """One more route the harness must refuse (the kit derives the usual ones)."""
        return None

    def attempt_params(self) -> AttemptParams | None:
        """Prepared params (`attempt_params(...)`) for the result clauses; None skips them."""
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

    def test_refuses_authored_request_overrides(self) -> None:
        self._assert_clause("supports(route with authored request overrides)")

    def test_restricted_turns_fail_closed(self) -> None:
        self._assert_clause("restricted turns")

    def test_attempt_result(self) -> None:
        params = self.attempt_params()
        if params is None:
            import pytest  # the suite runs under pytest; the kit itself does not need it

            pytest.skip("attempt_params() returned None: no attempt to check")
        report = asyncio.run(check_attempt_result(self.make_harness(), params))
        report.raise_for_failures()
