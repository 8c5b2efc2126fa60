"""`clawharness.plugin_sdk.agent_harness`: what a harness plugin registers.

The registration contract (`AgentHarnessV2`, a structural Protocol), the support types
`supports(ctx)` sees and returns, and `define_plugin_entry`. Parameter types for
`run_attempt` are importable here and from `agent_harness_runtime`.

Deprecated V1 names (`AgentHarness`, `AgentHarnessAttemptParams`,
`EmbeddedRunAttemptParams`) still import, with a DeprecationWarning; they are removed
after 2026-10-12. Compatibility is type-level only: the host supplies
`host_capabilities` on every attempt either way.
"""

from __future__ import annotations

import warnings
from typing import Any

from clawharness.harness.capabilities import HostCapabilities
from clawharness.harness.registry import HarnessRegistry, RegisteredHarness
from clawharness.harness.support import ProviderRoute
from clawharness.harness.types import (
    AgentEvent,
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
    AuthFacts,
    ModelProviderFacts,
    PreparedAuth,
    ResolvedModel,
    RuntimeArtifact,
    RuntimePolicyFact,
    SupportContext,
    Supported,
    SupportResult,
    ToolCallContext,
    ToolSpec,
    Unsupported,
)
from clawharness.harness.types import AgentHarness as _AgentHarnessProtocol
from clawharness.plugins.entry import (
    PluginApi,
    PluginContracts,
    PluginEntry,
    ProviderRegistration,
    ToolResultMiddlewareRegistration,
    define_plugin_entry,
)

__all__ = [
    "AgentEvent",
    "AgentHarnessAttemptParamsV2",
    "AgentHarnessAttemptResult",
    "AgentHarnessSupport",
    "AgentHarnessSupportContext",
    "AgentHarnessV2",
    "AttemptParams",
    "AttemptResult",
    "AttemptTerminal",
    "AuthFacts",
    "EmbeddedRunAttemptParamsV2",
    "HarnessRegistry",
    "HostCapabilities",
    "ModelProviderFacts",
    "PluginApi",
    "PluginContracts",
    "PluginEntry",
    "PreparedAuth",
    "ProviderRegistration",
    "ProviderRoute",
    "RegisteredHarness",
    "ResolvedModel",
    "RuntimeArtifact",
    "RuntimePolicyFact",
    "SupportContext",
    "SupportResult",
    "Supported",
    "ToolCallContext",
    "ToolResultMiddlewareRegistration",
    "ToolSpec",
    "Unsupported",
    "define_plugin_entry",
]

#: the registration contract new harnesses implement
AgentHarnessV2 = _AgentHarnessProtocol
#: `run_attempt`'s parameter type (host capabilities always present)
AgentHarnessAttemptParamsV2 = AttemptParams
EmbeddedRunAttemptParamsV2 = AttemptParams
AgentHarnessAttemptResult = AttemptResult
AgentHarnessSupport = SupportResult
AgentHarnessSupportContext = SupportContext

#: deprecated V1 name -> (current object, replacement name)
DEPRECATED_NAMES: dict[str, tuple[Any, str]] = {
    "AgentHarness": (_AgentHarnessProtocol, "AgentHarnessV2"),
    "AgentHarnessAttemptParams": (AttemptParams, "AgentHarnessAttemptParamsV2"),
    "EmbeddedRunAttemptParams": (AttemptParams, "EmbeddedRunAttemptParamsV2"),
}
#: last day the deprecated names are served
DEPRECATED_REMOVAL_DATE = "2026-10-12"


def __getattr__(name: str) -> Any:
    entry = DEPRECATED_NAMES.get(name)
    if entry is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value, replacement = entry
    warnings.warn(
        f"clawharness.plugin_sdk.agent_harness.{name} is deprecated and will be removed after "
        f"{DEPRECATED_REMOVAL_DATE}; use {replacement}",
        DeprecationWarning,
        stacklevel=2,
    )
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(DEPRECATED_NAMES))
