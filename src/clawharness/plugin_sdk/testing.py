"""`clawharness.plugin_sdk.testing`: the contract kit, for a harness's own tests.

Prepared inputs
    `attempt_params(prompt, provider=, model_id=, harness_id=, ...)` -> `AttemptParams`
    with the host's defaults (a permissive `StaticToolPolicy`, no approver, a
    `RecordingMirror` that keeps what the harness mirrored and under which idempotency
    keys, a fresh workspace, capabilities that record every tool call put to the host);
    `declared_route(harness_id, provider, model, request_overrides=False)` -> the
    `SupportContext` of a route whose provider declares the harness compatible.

Registration
    `register_plugin(entry, state_dir=...)` runs `register(api)` as the host would and
    returns a `RegisteredPlugin` (its harnesses, providers, session bindings and
    tool-result middleware: `tool_result_transform(runtime)` binds it as the host does);
    `reset_session` / `delete_session` do to the bindings what the host's do.

Checks
    `check_harness_contract(harness, declared_route_ctx=...)`: registration, support
    (claims the declared route; refuses the routes derived from it that declare nothing
    for it, and the declared route with authored request overrides), restricted turns
    fail closed. `check_attempt_result(harness, params)`: runs an attempt and checks the
    result's shape, `session_id_used` (the host session), the host's validation, the
    reply in the transcript, that an exact-policy harness asked the host before every
    tool it ran, and that the next turn resumes the native session. Both return a
    `ContractReport`; `.raise_for_failures()` fails a test with every broken clause
    listed. `HarnessContractSuite`: subclass it as `TestMyHarness` and pytest runs each
    clause.
"""

from __future__ import annotations

from clawharness.plugin_sdk._kit.attempt_builder import (
    RecordingMirror,
    StaticToolPolicy,
    attempt_params,
    declared_route,
)
from clawharness.plugin_sdk._kit.contract import (
    ContractReport,
    HarnessContractSuite,
    check_attempt_result,
    check_harness_contract,
)
from clawharness.plugin_sdk._kit.plugin_rig import RegisteredPlugin, register_plugin

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
