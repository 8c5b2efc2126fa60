"""`explain_selection`: the reason code stays the contract's; the sentence says why,
notably that a session keeps the runtime its first turn selected (the pin)."""

from __future__ import annotations

from typing import get_args

from clawharness.harness.explain import REASON_TEXT, UnpinnedSelection, explain_selection
from clawharness.harness.selection import SelectionReason


def test_every_selection_reason_has_words() -> None:
    assert set(get_args(SelectionReason)) == set(REASON_TEXT)


def test_a_first_turn_says_it_pins_the_session() -> None:
    line = explain_selection("openclaw", "auto_openclaw", pinned=None, session_key="agent:main:w")
    assert line.startswith("runtime openclaw (auto_openclaw): no plugin harness claims")
    assert "keeps this runtime from now on" in line


def test_a_pinned_turn_says_the_pin_decided_and_what_the_config_alone_selects() -> None:
    same = explain_selection("openclaw", "forced_openclaw", pinned="openclaw",
                             session_key="agent:main:w",
                             unpinned=UnpinnedSelection("openclaw", "auto_openclaw"))
    assert same == ("runtime openclaw (forced_openclaw): pinned by this session since its first "
                    "turn (the config alone selects it too: auto_openclaw)")
    moved = explain_selection("openclaw", "forced_openclaw", pinned="openclaw",
                              session_key="agent:main:w",
                              unpinned=UnpinnedSelection("codex", "forced_plugin"))
    assert "the config alone would now select codex (forced_plugin)" in moved
    assert "`clawharness sessions reset agent:main:w`" in moved
    unknown = explain_selection("codex", "forced_plugin", pinned="codex", session_key="k")
    assert unknown == "runtime codex (forced_plugin): pinned by this session since its first turn"
