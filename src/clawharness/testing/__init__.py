"""Test kit: a scripted model server so agent turns run offline, with no API key, and
the harness contract kit (plugins import the kit as `clawharness.plugin_sdk.testing`).

See `clawharness.testing.model_server` for the server and `clawharness.providers.script` for
the script format.
"""

from __future__ import annotations

from clawharness.plugin_sdk._kit.attempt_builder import (
    RecordingMirror,
    StaticToolPolicy,
    attempt_params,
    declared_route,
)
from clawharness.plugin_sdk._kit.contract import (
    ContractCheck,
    ContractReport,
    HarnessContractSuite,
    check_attempt_result,
    check_harness_contract,
    undeclared_routes,
)
from clawharness.plugin_sdk._kit.plugin_rig import RegisteredPlugin, register_plugin
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

__all__ = [
    "EXHAUSTED_TEXT",
    "ContractCheck",
    "ContractReport",
    "HarnessContractSuite",
    "LoggedRequest",
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
    "load_script",
    "parse_script",
    "register_plugin",
    "undeclared_routes",
]
