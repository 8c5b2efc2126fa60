"""The harness registry: ownership, uniqueness, ordering, the separately held built-in."""

from __future__ import annotations

import pytest
from harness_fakes import FakeHarness

from clawharness.errors import HarnessError
from clawharness.harness.registry import HarnessRegistry


def test_registrations_keep_their_owner_and_list_sorted() -> None:
    registry = HarnessRegistry()
    registry.register(FakeHarness("zed"), owner_plugin_id="z-plugin")  # type: ignore[arg-type]
    registry.register(FakeHarness("alpha"))  # type: ignore[arg-type]
    assert [e.id for e in registry.list()] == ["alpha", "zed"]
    zed = registry.get("ZED")
    assert zed is not None and zed.owner_plugin_id == "z-plugin"
    assert registry.owner_plugin_id(zed.harness) == "z-plugin"
    alpha = registry.get("alpha")
    assert alpha is not None and registry.owner_plugin_id(alpha.harness) == "core"


def test_duplicate_id_is_refused_naming_the_first_owner() -> None:
    registry = HarnessRegistry()
    registry.register(FakeHarness("native"), owner_plugin_id="first")  # type: ignore[arg-type]
    with pytest.raises(HarnessError, match='already registered by plugin "first"'):
        registry.register(FakeHarness("native"), owner_plugin_id="second")  # type: ignore[arg-type]


@pytest.mark.parametrize("bad_id", ["openclaw", "auto", "default", "pi", "Native", " x", ""])
def test_reserved_and_non_canonical_ids_are_refused(bad_id: str) -> None:
    with pytest.raises(HarnessError):
        HarnessRegistry().register(FakeHarness(bad_id, label="x"))  # type: ignore[arg-type]


def test_builtin_is_held_apart_from_the_candidates() -> None:
    builtin = FakeHarness("openclaw")
    registry = HarnessRegistry(builtin=builtin)  # type: ignore[arg-type]
    assert registry.builtin is builtin
    assert registry.list() == () and "openclaw" not in registry
    with pytest.raises(HarnessError):
        HarnessRegistry(builtin=FakeHarness("other"))  # type: ignore[arg-type]


def test_shape_is_checked_at_registration() -> None:
    class SyncRun:
        id = "sync"
        label = "Sync"

        def supports(self, ctx: object) -> object:
            return None

        def run_attempt(self, params: object) -> object:
            return None

    with pytest.raises(HarnessError, match="must be an async function"):
        HarnessRegistry().register(SyncRun())  # type: ignore[arg-type]

    class NoLabel(FakeHarness):
        pass

    harness = NoLabel("nolabel")
    harness.label = " "
    with pytest.raises(HarnessError, match="no label"):
        HarnessRegistry().register(harness)  # type: ignore[arg-type]


def test_owner_resolution_refuses_a_swapped_harness() -> None:
    registry = HarnessRegistry()
    original = FakeHarness("native")
    registry.register(original)  # type: ignore[arg-type]
    registry.unregister("native")
    registry.register(FakeHarness("native"))  # type: ignore[arg-type]
    with pytest.raises(HarnessError, match="changed during owner resolution"):
        registry.owner_plugin_id(original)  # type: ignore[arg-type]
