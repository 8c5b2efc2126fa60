"""Test kit: a scripted model server so agent turns run offline, with no API key, and
the harness contract kit (plugins import the kit as `clawharness.plugin_sdk.testing`; it is
re-exported here from there).

See `clawharness.testing.model_server` for the server and `clawharness.providers.script` for
the script format.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness._faces import lazy_face
from clawharness.plugin_sdk.testing import (
    ContractReport,
    HarnessContractSuite,
    RecordingMirror,
    RegisteredPlugin,
    StaticToolPolicy,
    attempt_params,
    check_attempt_result,
    check_harness_contract,
    declared_route,
    register_plugin,
)
from clawharness.providers.script import (
    EXHAUSTED_TEXT,
    Script,
    ScriptError,
    ScriptItem,
    ScriptPlayer,
    ScriptToolCall,
    ScriptUsage,
    load_script,
    parse_script,
)
from clawharness.testing.model_server import LoggedRequest, ScriptedModelServer

if TYPE_CHECKING:
    from clawharness.testing.real_model import (
        PINS,
        RealModelRuntime,
        RealModelServer,
        install_runtime,
    )
    from clawharness.testing.real_model.session import (
        READ_REQUEST,
        SEED_REQUEST,
        SEED_SCRIPT,
        TOOLS_POLICY,
        WORKSPACE_FILES,
        scripted_provider,
    )

__all__ = [
    "EXHAUSTED_TEXT",
    "PINS",
    "READ_REQUEST",
    "SEED_REQUEST",
    "SEED_SCRIPT",
    "TOOLS_POLICY",
    "WORKSPACE_FILES",
    "ContractReport",
    "HarnessContractSuite",
    "LoggedRequest",
    "RealModelRuntime",
    "RealModelServer",
    "RecordingMirror",
    "RegisteredPlugin",
    "Script",
    "ScriptError",
    "ScriptItem",
    "ScriptPlayer",
    "ScriptToolCall",
    "ScriptUsage",
    "ScriptedModelServer",
    "StaticToolPolicy",
    "attempt_params",
    "check_attempt_result",
    "check_harness_contract",
    "declared_route",
    "install_runtime",
    "load_script",
    "parse_script",
    "register_plugin",
    "scripted_provider",
]

__getattr__, __dir__ = lazy_face(__name__, {
    "PINS": "clawharness.testing.real_model",
    "READ_REQUEST": "clawharness.testing.real_model.session",
    "RealModelRuntime": "clawharness.testing.real_model",
    "RealModelServer": "clawharness.testing.real_model",
    "SEED_REQUEST": "clawharness.testing.real_model.session",
    "SEED_SCRIPT": "clawharness.testing.real_model.session",
    "TOOLS_POLICY": "clawharness.testing.real_model.session",
    "WORKSPACE_FILES": "clawharness.testing.real_model.session",
    "install_runtime": "clawharness.testing.real_model",
    "scripted_provider": "clawharness.testing.real_model.session",
})
