"""Selection reasons in words, and why a session's runtime is what it is.

The contract's `selectedReason` codes stay as they are (a pinned session reports
`forced_openclaw` or `forced_plugin`: its pin acts as an explicit, model-scoped runtime).
This module says why in a sentence for people — notably that a session keeps the runtime
its first turn selected, which is what turns `auto_openclaw` into `forced_openclaw` from
the second turn on. Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["REASON_TEXT", "UnpinnedSelection", "explain_selection"]

#: each selection reason, as a person would say it
REASON_TEXT: Mapping[str, str] = {
    "auto_openclaw": "no plugin harness claims this model, so the built-in runtime runs it",
    "auto_plugin": "a plugin harness supports this model and was picked automatically",
    "forced_openclaw": "the built-in runtime is requested explicitly",
    "forced_plugin": "this runtime is requested explicitly",
    "plugin_declared_fallback_openclaw":
        "the requested harness declined this route and named the built-in runtime as its "
        "fallback",
    "implicit_plugin_unavailable_openclaw":
        "the harness preferred for this route is not installed, so the built-in runtime runs it",
    "implicit_plugin_unsupported_openclaw":
        "the harness preferred for this route does not support it, so the built-in runtime "
        "runs it",
    "cli_runtime_passthrough_openclaw":
        "the requested CLI runtime passes this provider through the built-in runtime",
}


@dataclass(frozen=True, slots=True)
class UnpinnedSelection:
    """What the config alone selects for the session's model (its pin left out)."""

    runtime: str
    reason: str


def explain_selection(runtime: str, reason: str, *, pinned: str | None, session_key: str,
                      unpinned: UnpinnedSelection | None = None) -> str:
    """One line: which runtime ran, by which reason, and why.

    `pinned` is the harness the session carried into the turn (None on its first turn,
    which pins the session to `runtime`).
    """
    head = f"runtime {runtime} ({reason})"
    if pinned is None:
        because = REASON_TEXT.get(reason, reason)
        return f"{head}: {because}; the session keeps this runtime from now on"
    if pinned != runtime:
        return f"{head}: {REASON_TEXT.get(reason, reason)}"
    line = f"{head}: pinned by this session since its first turn"
    if unpinned is None:
        return line
    if unpinned.runtime == runtime:
        return f"{line} (the config alone selects it too: {unpinned.reason})"
    return (f"{line}; the config alone would now select {unpinned.runtime} ({unpinned.reason}): "
            f"`clawharness sessions reset {session_key}` starts afresh on it")
