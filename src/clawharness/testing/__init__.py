"""Test kit: a scripted model server so agent turns run offline, with no API key.

See `clawharness.testing.model_server` for the server and `clawharness.testing.script` for
the script format.
"""

from __future__ import annotations

from clawharness.testing.contract import (
    ContractCheck,
    ContractReport,
    HarnessContractSuite,
    check_attempt_result,
    check_harness_contract,
)
from clawharness.testing.model_server import LoggedRequest, ScriptedModelServer
from clawharness.testing.script import (
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

__all__ = [
    "EXHAUSTED_TEXT",
    "ContractCheck",
    "ContractReport",
    "HarnessContractSuite",
    "LoggedRequest",
    "Script",
    "ScriptError",
    "ScriptItem",
    "ScriptPlayer",
    "ScriptToolCall",
    "ScriptUsage",
    "ScriptedModelServer",
    "check_attempt_result",
    "check_harness_contract",
    "load_script",
    "parse_script",
]
