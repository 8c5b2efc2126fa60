"""`clawharness.plugin_sdk.testing`: the contract kit, for a harness's own tests.

Prepared inputs
    `attempt_params(prompt, provider=, model_id=, harness_id=, ...)` -> `AttemptParams`
    with the host's defaults (a permissive `StaticToolPolicy`, no approver, a
    `RecordingMirror` that keeps what the harness mirrored, a fresh workspace);
    `declared_route(harness_id, provider, model)` -> the `SupportContext` of a route
    whose provider declares the harness compatible; `undeclared_routes(harness_id, ctx)`
    -> the routes derived from it that declare nothing for the harness.

Registration
    `register_plugin(entry, state_dir=...)` runs `register(api)` as the host would and
    returns a `RegisteredPlugin` (its harnesses, providers and session bindings);
    `reset_session` / `delete_session` do to the bindings what the host's do.

Checks
    `check_harness_contract(harness, declared_route_ctx=...)` (registration, support,
    never claiming an undeclared route, restricted turns fail closed) and
    `check_attempt_result(harness, params)` (result shape, host validation, the reply in
    the transcript) return a `ContractReport` of `ContractCheck`s;
    `.raise_for_failures()` fails a test with every broken clause listed.
    `HarnessContractSuite`: subclass it as `TestMyHarness` and pytest runs each clause.
"""

from __future__ import annotations

from clawharness.testing.attempt_builder import (
    RecordingMirror,
    StaticToolPolicy,
    attempt_params,
    declared_route,
)
from clawharness.testing.contract import (
    ContractReport,
    HarnessContractSuite,
    check_attempt_result,
    check_harness_contract,
)
from clawharness.testing.plugin_rig import RegisteredPlugin, register_plugin

__all__ = [
    "ContractReport",
    "HarnessContractSuite",
    "RecordingMirror",
    "RegisteredPlugin",
    "StaticToolPolicy",
    "attempt_params",
    "check_attempt_result",
    "check_harness_contract",
    "declared_route",
    "register_plugin",
]
