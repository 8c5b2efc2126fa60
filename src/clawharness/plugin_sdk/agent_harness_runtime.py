"""`clawharness.plugin_sdk.agent_harness_runtime`: what a harness uses while it runs.

Errors
    `HarnessError` (the base of a harness's own errors: subclass it with a stable
    `code`), `AgentHarnessPreflightError` (raise it before any model work;
    `scope="harness"` when only this harness is at fault). (A host capability used after
    the attempt returned fails closed with a `HarnessError`.)

A native runtime's turn
    `NativeTurn(params, harness_id=)`: the base of a process-owning harness's turn. Its
    record (`new_messages`, `assistant_texts`, `usage`, `tool_calls` with its
    `tool_metas` and `last_tool_error`, `stop_kind`), its ways of settling (`settle`
    a message under `message_key(suffix)`, `emit` an event, tool calls through
    `tool_calls`), `wait_for_stop`, and `result(terminal, native_session_id=)`, the
    `AttemptResult` built from the record.

`RuntimeArtifact` is what a harness that attests its native implementation returns in
`AttemptResult.runtime_artifact` (`{id, fingerprint}`).

Tool calls themselves go through `agent_harness_tool_runtime.ToolCalls`.
"""

from __future__ import annotations

from clawharness.errors import AgentHarnessPreflightError, HarnessError
from clawharness.harness.types import RuntimeArtifact
from clawharness.plugin_sdk._native_turn import NativeTurn

__all__ = [
    "AgentHarnessPreflightError",
    "HarnessError",
    "NativeTurn",
    "RuntimeArtifact",
]
