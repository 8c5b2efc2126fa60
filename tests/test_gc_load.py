"""The young collection threshold follows the turns in flight (`clawharness._gc`)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from clawharness._gc import (
    HOST_GC_THRESHOLDS,
    YOUNG_PER_TURN_IN_FLIGHT,
    GcTuning,
    young_threshold_for,
)

BASE = HOST_GC_THRESHOLDS[0]


@pytest.fixture(autouse=True)
def known_thresholds() -> Iterator[None]:
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    assert GcTuning.holders() == 0
    yield
    gc.set_threshold(*before)


def per_turn(turns: int) -> int:
    return turns * YOUNG_PER_TURN_IN_FLIGHT


def test_few_turns_keep_the_hosts_threshold() -> None:
    assert young_threshold_for(0, BASE) == BASE
    assert young_threshold_for(BASE // YOUNG_PER_TURN_IN_FLIGHT, BASE) == BASE


def test_many_turns_double_it_until_it_covers_them() -> None:
    turns = BASE // YOUNG_PER_TURN_IN_FLIGHT + 1
    assert young_threshold_for(turns, BASE) == 2 * BASE
    young = young_threshold_for(1000, BASE)
    assert young >= per_turn(1000) and young // 2 < per_turn(1000)
    assert young % BASE == 0 and (young // BASE) & (young // BASE - 1) == 0  # base * 2**k


def test_a_wavering_load_keeps_it_and_a_fallen_one_brings_it_back() -> None:
    high = young_threshold_for(1000, BASE)
    assert young_threshold_for(900, high) == high  # still needed
    assert young_threshold_for(high // (4 * YOUNG_PER_TURN_IN_FLIGHT), high) == high
    assert young_threshold_for(10, high) == BASE
    assert young_threshold_for(0, high) == BASE


def test_turns_move_the_threshold_only_while_a_host_holds_the_tuning() -> None:
    already = GcTuning.in_flight()  # (0, unless an earlier test left a turn unfinished)
    many = 2 * BASE // YOUNG_PER_TURN_IN_FLIGHT
    for _ in range(many):
        GcTuning.turn_started()
    assert gc.get_threshold() == (700, 10, 10)  # no host tunes: the process's stand
    GcTuning.acquire()
    try:
        assert gc.get_threshold()[0] >= per_turn(many)  # the turns already running count
        for _ in range(many):
            GcTuning.turn_started()
        assert gc.get_threshold()[0] >= per_turn(2 * many)
        assert gc.get_threshold()[1:] == HOST_GC_THRESHOLDS[1:]
        for _ in range(2 * many):
            GcTuning.turn_ended()
        assert gc.get_threshold() == HOST_GC_THRESHOLDS
    finally:
        GcTuning.release()
    assert gc.get_threshold() == (700, 10, 10)
    assert GcTuning.in_flight() == already


def test_thresholds_the_application_set_meanwhile_stand() -> None:
    GcTuning.acquire()
    try:
        gc.set_threshold(1234, 5, 5)
        for _ in range(2 * BASE // YOUNG_PER_TURN_IN_FLIGHT):
            GcTuning.turn_started()
        assert gc.get_threshold() == (1234, 5, 5)
    finally:
        for _ in range(2 * BASE // YOUNG_PER_TURN_IN_FLIGHT):
            GcTuning.turn_ended()
        GcTuning.release()
    assert gc.get_threshold() == (1234, 5, 5)
