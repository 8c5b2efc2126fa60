"""The turn and its attempts, on the host's side: the turn runner (`turn`), where turns
run (`executor`: `TurnExecutor`, `LocalTurnExecutor`), and what the host applies to a
harness's attempt: terminal outcomes (`terminal`, `outcomes`), result validation and the
transcript contract (`validate`, `transcript_contract`), settled-turn finalization
(`finalize*`), isolated completion (`isolated`), compaction (`compaction`, `compaction_session`), delegated execution (`delegation`),
tool mutation facts (`mutation`), tool previews, tools the caller runs (`caller_tools`),
agent_end side effects
(`side_effects`) and the turn inspector's records (`inspector`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness._faces import lazy_face

if TYPE_CHECKING:
    from clawharness.attempt.agent_setup import AgentSetup
    from clawharness.attempt.budget_step import turn_caller
    from clawharness.attempt.caller_tools import pending_calls
    from clawharness.attempt.compaction_session import compact_native_session, compact_session
    from clawharness.attempt.delegation import DelegateRequest, StoredSession, check_delegate
    from clawharness.attempt.executor import LocalTurnExecutor, TurnExecutor
    from clawharness.attempt.finalize_projection import (
        FinalizationAttemptFacts,
        FinalizationToolMeta,
        ItemLifecycle,
        ReplayMetadata,
        project_settled_turn_finalization_attempt_result,
    )
    from clawharness.attempt.finalize_result import (
        EmptySettledTurnFinalizationError,
        SettledTurnFinalizationRejectedError,
        SettledTurnFinalizationResult,
    )
    from clawharness.attempt.isolated import (
        HarnessAuthorization,
        HostAuthorization,
        IsolatedCompletionRequest,
        IsolatedCompletionResult,
        complete_isolated,
    )
    from clawharness.attempt.outcomes import ToolTerminalObserver
    from clawharness.attempt.services import HarnessChoice, TurnHooks
    from clawharness.attempt.side_effects import AgentEndHooks, run_agent_end_side_effects
    from clawharness.attempt.steering import turn_purpose
    from clawharness.attempt.terminal import (
        LegacyTerminalFlags,
        Terminal,
        TerminalFailure,
        merge_attempt_terminal,
        normalize_attempt_terminal,
        project_attempt_terminal,
        set_attempt_terminal_failure,
    )
    from clawharness.attempt.transcript_contract import check_transcript_contract
    from clawharness.attempt.turn import TurnRunner
    from clawharness.attempt.turn_options import TurnContext, TurnOptions
    from clawharness.attempt.validate import validate_attempt_result

__all__ = [
    "AgentEndHooks",
    "AgentSetup",
    "DelegateRequest",
    "EmptySettledTurnFinalizationError",
    "FinalizationAttemptFacts",
    "FinalizationToolMeta",
    "HarnessAuthorization",
    "HarnessChoice",
    "HostAuthorization",
    "IsolatedCompletionRequest",
    "IsolatedCompletionResult",
    "ItemLifecycle",
    "LegacyTerminalFlags",
    "LocalTurnExecutor",
    "ReplayMetadata",
    "SettledTurnFinalizationRejectedError",
    "SettledTurnFinalizationResult",
    "StoredSession",
    "Terminal",
    "TerminalFailure",
    "ToolTerminalObserver",
    "TurnContext",
    "TurnExecutor",
    "TurnHooks",
    "TurnOptions",
    "TurnRunner",
    "check_delegate",
    "check_transcript_contract",
    "compact_native_session",
    "compact_session",
    "complete_isolated",
    "merge_attempt_terminal",
    "normalize_attempt_terminal",
    "pending_calls",
    "project_attempt_terminal",
    "project_settled_turn_finalization_attempt_result",
    "run_agent_end_side_effects",
    "set_attempt_terminal_failure",
    "turn_caller",
    "turn_purpose",
    "validate_attempt_result",
]

__getattr__, __dir__ = lazy_face(__name__, {
    "HarnessChoice": "clawharness.attempt.services",
    "TurnHooks": "clawharness.attempt.services",
    "AgentSetup": "clawharness.attempt.agent_setup",
    "turn_caller": "clawharness.attempt.budget_step",
    "AgentEndHooks": "clawharness.attempt.side_effects",
    "DelegateRequest": "clawharness.attempt.delegation",
    "EmptySettledTurnFinalizationError": "clawharness.attempt.finalize_result",
    "FinalizationAttemptFacts": "clawharness.attempt.finalize_projection",
    "FinalizationToolMeta": "clawharness.attempt.finalize_projection",
    "HarnessAuthorization": "clawharness.attempt.isolated",
    "HostAuthorization": "clawharness.attempt.isolated",
    "IsolatedCompletionRequest": "clawharness.attempt.isolated",
    "IsolatedCompletionResult": "clawharness.attempt.isolated",
    "ItemLifecycle": "clawharness.attempt.finalize_projection",
    "LegacyTerminalFlags": "clawharness.attempt.terminal",
    "LocalTurnExecutor": "clawharness.attempt.executor",
    "ReplayMetadata": "clawharness.attempt.finalize_projection",
    "SettledTurnFinalizationRejectedError": "clawharness.attempt.finalize_result",
    "SettledTurnFinalizationResult": "clawharness.attempt.finalize_result",
    "StoredSession": "clawharness.attempt.delegation",
    "Terminal": "clawharness.attempt.terminal",
    "TerminalFailure": "clawharness.attempt.terminal",
    "ToolTerminalObserver": "clawharness.attempt.outcomes",
    "TurnContext": "clawharness.attempt.turn_options",
    "TurnExecutor": "clawharness.attempt.executor",
    "TurnOptions": "clawharness.attempt.turn_options",
    "TurnRunner": "clawharness.attempt.turn",
    "check_delegate": "clawharness.attempt.delegation",
    "check_transcript_contract": "clawharness.attempt.transcript_contract",
    "compact_native_session": "clawharness.attempt.compaction_session",
    "compact_session": "clawharness.attempt.compaction_session",
    "complete_isolated": "clawharness.attempt.isolated",
    "merge_attempt_terminal": "clawharness.attempt.terminal",
    "normalize_attempt_terminal": "clawharness.attempt.terminal",
    "pending_calls": "clawharness.attempt.caller_tools",
    "project_attempt_terminal": "clawharness.attempt.terminal",
    "turn_purpose": "clawharness.attempt.steering",
    "project_settled_turn_finalization_attempt_result": "clawharness.attempt.finalize_projection",
    "run_agent_end_side_effects": "clawharness.attempt.side_effects",
    "set_attempt_terminal_failure": "clawharness.attempt.terminal",
    "validate_attempt_result": "clawharness.attempt.validate",
})
