"""Every host tool's output is redacted where it is made, before any harness sees it.

`redacting_tool(spec)` wraps a tool's `execute`: its result passes
`clawharness.redaction.outbound.redact_tool_result`, and a failure whose message holds a
secret is raised again as a `ToolError` with the message masked (an exception without
one keeps its type). The host wraps each tool it hands an attempt (the built-in tools,
MCP tools), so what a command prints or a server returns is masked before the built-in
runtime puts it in the model's context, before a native runtime (Codex's dynamic tools)
sends it on, and before the transcript, the tool-outcome ledger, spans and the
inspector see it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from clawharness.errors import ToolError
from clawharness.harness.tool_spec import ToolCallContext, ToolSpec
from clawharness.redaction.outbound import redact_secrets, redact_tool_result

__all__ = ["redacting_tool"]


def redacting_tool(spec: ToolSpec) -> ToolSpec:
    """`spec` with its results and failure messages redacted (see the module docstring)."""
    inner = spec.execute

    async def execute(arguments: Mapping[str, Any], context: ToolCallContext) -> Any:
        try:
            result = await inner(arguments, context)
        except Exception as exc:
            message = str(exc)
            masked = redact_secrets(message)
            if masked == message:
                raise
            raise ToolError(masked) from None
        return redact_tool_result(result if isinstance(result, dict) else {"content": result})

    return dataclasses.replace(spec, execute=execute)
