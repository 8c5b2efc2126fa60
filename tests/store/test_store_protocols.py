"""The store's protocols are cut by concern, and both implementations are every one of them."""

from __future__ import annotations

import inspect

import pytest

from clawharness import store as store_face
from clawharness.store import (
    BudgetLedgerStore,
    PluginStateStore,
    SessionLeaseStore,
    SessionStore,
    Store,
    SubagentRegistryStore,
    SyncPluginStateView,
    ToolOutcomeStore,
    TranscriptSearch,
    TranscriptStore,
    TurnRecordStore,
)
from clawharness.store.postgres import PostgresStore
from clawharness.store.sqlite import SqliteStore

CONCERNS = (SessionStore, TranscriptStore, TranscriptSearch, PluginStateStore,
            SyncPluginStateView, SessionLeaseStore, ToolOutcomeStore, TurnRecordStore,
            BudgetLedgerStore, SubagentRegistryStore)


def _members(protocol: type) -> set[str]:
    return {name for name in dir(protocol)
            if not name.startswith("_") and name in _declared(protocol)}


def _declared(protocol: type) -> set[str]:
    names: set[str] = set()
    for klass in protocol.__mro__:
        if klass in (object,) or klass.__name__ in ("Protocol", "Generic"):
            continue
        names |= {n for n in vars(klass) if not n.startswith("_")}
        names |= set(getattr(klass, "__annotations__", {}))
    return names


def test_store_is_exactly_the_concerns_and_its_connection() -> None:
    together = set().union(*(_members(p) for p in CONCERNS))
    assert _members(Store) == together | {"open", "close"}
    # no method is declared by two concerns: each question has one home
    seen: dict[str, str] = {}
    for protocol in CONCERNS:
        own = _members(protocol) - (
            _members(SyncPluginStateView) if protocol is PluginStateStore else set())
        for name in own:
            assert name not in seen, f"{name} in {seen.get(name)} and {protocol.__name__}"
            seen[name] = protocol.__name__
    assert len(together) >= 30


@pytest.mark.parametrize("implementation", [SqliteStore, PostgresStore])
@pytest.mark.parametrize("protocol", [*CONCERNS, Store], ids=lambda p: p.__name__)
def test_each_implementation_has_every_method_of_every_protocol_with_its_signature(
        implementation: type, protocol: type) -> None:
    for name in _members(protocol):
        if name == "url":  # an attribute, set on construction
            continue
        declared = inspect.signature(getattr(protocol, name))
        actual = inspect.signature(getattr(implementation, name))
        assert [(p.name, p.kind) for p in actual.parameters.values()] == [
            (p.name, p.kind) for p in declared.parameters.values()], (implementation, name)
        assert inspect.iscoroutinefunction(getattr(implementation, name)) == \
            inspect.iscoroutinefunction(getattr(protocol, name)), (implementation, name)


async def test_an_open_store_is_each_protocol(store: Store) -> None:
    for protocol in (*CONCERNS, Store):
        assert isinstance(store, protocol), protocol.__name__


def test_the_face_names_every_protocol() -> None:
    for protocol in (*CONCERNS, Store):
        assert protocol.__name__ in store_face.__all__
