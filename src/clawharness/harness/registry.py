"""The harness registry: which plugin harnesses exist and which plugin owns each.

The built-in `openclaw` harness is held apart (`builtin=`): it is what selection falls
back to, never a candidate that auto mode probes. Plugin harnesses are kept sorted by id
so every listing (status, debug records, auto-mode probing) is deterministic.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterator
from dataclasses import dataclass

from clawharness.errors import HarnessError
from clawharness.harness.runtime_ids import (
    BUILTIN_RUNTIME_ID,
    RESERVED_RUNTIME_IDS,
    normalize_runtime_id,
)
from clawharness.harness.types import AgentHarness

__all__ = ["CORE_OWNER_ID", "HarnessRegistry", "RegisteredHarness", "validate_harness_shape"]

#: owner id reported for harnesses registered by the host itself, not by a plugin
CORE_OWNER_ID = "core"


@dataclass(frozen=True, slots=True)
class RegisteredHarness:
    """One registration: the harness object and the plugin that registered it."""

    harness: AgentHarness
    #: None when the host registered it directly (reported as "core")
    owner_plugin_id: str | None = None

    @property
    def id(self) -> str:
        return self.harness.id


def validate_harness_shape(harness: object, *, builtin: bool = False) -> AgentHarness:
    """Check the required registration fields; raise HarnessError naming what is wrong."""
    hid = getattr(harness, "id", None)
    if not isinstance(hid, str) or not hid.strip():
        raise HarnessError(f"agent harness {harness!r} has no id: `id` must be a non-empty string")
    if not builtin:
        if normalize_runtime_id(hid) != hid:
            raise HarnessError(
                f'agent harness id "{hid}" is not in canonical form; register it as '
                f'"{normalize_runtime_id(hid)}" (lowercase, trimmed)'
            )
        if hid in RESERVED_RUNTIME_IDS:
            raise HarnessError(
                f'agent harness id "{hid}" is reserved for the built-in runtime or selection '
                "modes; choose another id"
            )
    label = getattr(harness, "label", None)
    if not isinstance(label, str) or not label.strip():
        raise HarnessError(f'agent harness "{hid}" has no label: `label` must be a non-empty string')
    if not callable(getattr(harness, "supports", None)):
        raise HarnessError(f'agent harness "{hid}" has no callable `supports(ctx)`')
    run_attempt = getattr(harness, "run_attempt", None)
    if not callable(run_attempt):
        raise HarnessError(f'agent harness "{hid}" has no callable `run_attempt(params)`')
    if not inspect.iscoroutinefunction(run_attempt):
        raise HarnessError(f'agent harness "{hid}": `run_attempt` must be an async function')
    return harness  # type: ignore[return-value]


class HarnessRegistry:
    """Plugin harnesses by id, plus the separately held built-in harness."""

    __slots__ = ("_builtin", "_by_id", "_sorted")

    def __init__(self, *, builtin: AgentHarness | None = None) -> None:
        if builtin is not None:
            validate_harness_shape(builtin, builtin=True)
            if builtin.id != BUILTIN_RUNTIME_ID:
                raise HarnessError(
                    f'the built-in harness must have id "{BUILTIN_RUNTIME_ID}", got "{builtin.id}"'
                )
        self._builtin = builtin
        self._by_id: dict[str, RegisteredHarness] = {}
        self._sorted: tuple[RegisteredHarness, ...] = ()

    @property
    def builtin(self) -> AgentHarness | None:
        """The built-in `openclaw` harness, when the host supplied one."""
        return self._builtin

    def set_builtin(self, harness: AgentHarness) -> None:
        """Install the built-in harness after construction (the host does this once)."""
        validate_harness_shape(harness, builtin=True)
        if harness.id != BUILTIN_RUNTIME_ID:
            raise HarnessError(
                f'the built-in harness must have id "{BUILTIN_RUNTIME_ID}", got "{harness.id}"'
            )
        self._builtin = harness

    def register(
        self, harness: AgentHarness, *, owner_plugin_id: str | None = None
    ) -> RegisteredHarness:
        """Register a plugin harness. A second harness with the same id is refused."""
        validate_harness_shape(harness)
        existing = self._by_id.get(harness.id)
        if existing is not None:
            owner = existing.owner_plugin_id or CORE_OWNER_ID
            raise HarnessError(
                f'agent harness "{harness.id}" is already registered by plugin "{owner}"; '
                "harness ids must be unique across plugins"
            )
        entry = RegisteredHarness(harness=harness, owner_plugin_id=owner_plugin_id)
        self._by_id[harness.id] = entry
        self._sorted = tuple(sorted(self._by_id.values(), key=lambda e: e.harness.id))
        return entry

    def unregister(self, harness_id: str) -> RegisteredHarness | None:
        """Remove a registration (plugin unload); returns what was removed."""
        entry = self._by_id.pop(normalize_runtime_id(harness_id), None)
        if entry is not None:
            self._sorted = tuple(sorted(self._by_id.values(), key=lambda e: e.harness.id))
        return entry

    def get(self, harness_id: str | None) -> RegisteredHarness | None:
        """The registration for a runtime id (normalized first), or None."""
        if harness_id is None:
            return None
        return self._by_id.get(normalize_runtime_id(harness_id))

    def list(self) -> tuple[RegisteredHarness, ...]:
        """Every plugin registration, sorted by harness id. Never includes the built-in."""
        return self._sorted

    def harnesses(self) -> tuple[AgentHarness, ...]:
        """The plugin harness objects, sorted by id."""
        return tuple(entry.harness for entry in self._sorted)

    def owner_plugin_id(self, harness: AgentHarness) -> str:
        """The owner of this exact harness object ("core" for host registrations).

        Raises when the id is now bound to a different object, so an owner decision is
        never made for a harness that was swapped out after it was selected.
        """
        entry = self._by_id.get(harness.id)
        if entry is None or entry.harness is not harness:
            raise HarnessError(f'agent harness "{harness.id}" changed during owner resolution')
        return entry.owner_plugin_id or CORE_OWNER_ID

    def __contains__(self, harness_id: object) -> bool:
        return isinstance(harness_id, str) and normalize_runtime_id(harness_id) in self._by_id

    def __len__(self) -> int:
        return len(self._by_id)

    def __iter__(self) -> Iterator[RegisteredHarness]:
        return iter(self._sorted)
