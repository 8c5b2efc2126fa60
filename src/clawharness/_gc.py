"""The garbage-collector thresholds a host process runs with.

A host keeps many turns in flight, each holding a few hundred small container objects
for a second or so. With CPython's default thresholds (700, 10, 10) those objects
outlive many young collections, reach the oldest generation and make full collections
(which walk every live object) frequent: at 1,000 concurrent turns they took about a
third of the event loop's time. Higher thresholds let a turn's objects die young.

The thresholds are process-wide, so a started host holds them and the last host to
close puts back what was there before (`host.tuneGc: false` in config leaves them
alone).

Under load the young threshold follows the turns in flight. A turn keeps a few hundred
tracked objects alive until it ends; with a fixed threshold, a thousand turns at once
set off a young collection every few hundred turns, and each walks the live objects of
every turn in flight and promotes them, for nothing, since they all die as their turns
end (about a sixth of the CPU of 1,000 concurrent turns). So while turns run, the young
threshold is at least `YOUNG_PER_TURN_IN_FLIGHT` per turn in flight (in doubling steps
from the host's, so a rising load changes it a few times, not per turn), and it comes
back down as they finish. A process whose turns make no reference cycles (the built-in
runtime's make none) holds no more garbage for it; one that does holds at most about
that many objects per turn in flight before they are collected.
"""

from __future__ import annotations

import gc
import threading

__all__ = ["HOST_GC_THRESHOLDS", "YOUNG_PER_TURN_IN_FLIGHT", "GcTuning", "collect_from_here"]

#: young collection after 50,000 net allocations; older ones 20 and 100 times rarer
HOST_GC_THRESHOLDS = (50_000, 20, 100)
#: the young threshold under load, per turn in flight (a turn keeps ~250 tracked
#: objects alive while it runs: room for them and what the turns allocate meanwhile)
YOUNG_PER_TURN_IN_FLIGHT = 400


def young_threshold_for(in_flight: int, current: int) -> int:
    """The young threshold for `in_flight` turns, given the `current` one: the host's,
    doubled until it covers `YOUNG_PER_TURN_IN_FLIGHT` per turn; kept while it covers
    them and is no more than four times what they need (so a load that wavers does not
    move it back and forth)."""
    base = HOST_GC_THRESHOLDS[0]
    need = in_flight * YOUNG_PER_TURN_IN_FLIGHT
    if need <= current and (current <= base or current <= 4 * need):
        return current
    young = base
    while young < need:
        young *= 2
    return young


class GcTuning:
    """Reference-counted holder of the host thresholds (one per process)."""

    _lock = threading.Lock()
    _holders = 0
    _saved: tuple[int, int, int] | None = None
    #: the thresholds this class set last (None: it has not set any it still holds)
    _ours: tuple[int, int, int] | None = None
    _in_flight = 0

    @classmethod
    def acquire(cls) -> None:
        with cls._lock:
            if cls._holders == 0:
                cls._saved = gc.get_threshold()
                cls._set(young_threshold_for(cls._in_flight, HOST_GC_THRESHOLDS[0]))
            cls._holders += 1

    @classmethod
    def release(cls) -> None:
        with cls._lock:
            if cls._holders == 0:
                return
            cls._holders -= 1
            if cls._holders == 0 and cls._saved is not None:
                # someone else may have changed them meanwhile: then theirs stand
                if gc.get_threshold() == cls._ours:
                    gc.set_threshold(*cls._saved)
                cls._saved = None
                cls._ours = None

    @classmethod
    def turn_started(cls) -> None:
        """A turn begins in this process (see the module's note on load)."""
        with cls._lock:
            cls._in_flight += 1
            cls._follow_load()

    @classmethod
    def turn_ended(cls) -> None:
        with cls._lock:
            cls._in_flight -= 1
            cls._follow_load()

    @classmethod
    def in_flight(cls) -> int:
        return cls._in_flight

    @classmethod
    def _follow_load(cls) -> None:
        ours = cls._ours
        if ours is None:
            return
        young = young_threshold_for(cls._in_flight, ours[0])
        if young != ours[0] and gc.get_threshold() == ours:  # else the application's stand
            cls._set(young)

    @classmethod
    def _set(cls, young: int) -> None:
        cls._ours = (young, HOST_GC_THRESHOLDS[1], HOST_GC_THRESHOLDS[2])
        gc.set_threshold(*cls._ours)

    @classmethod
    def holders(cls) -> int:
        return cls._holders


def collect_from_here() -> None:
    """Start automatic collection, leaving out everything built so far (`gc.freeze`).

    The executable runs its imports (the command line, then the command's module) with
    automatic collection off: they build objects that live to the end, which a young
    collection would walk for nothing (with `HOST_GC_THRESHOLDS`, one walk over every
    object imported so far, about 3% of `clawharness status`'s CPU). Once the command is
    loaded this freezes them and turns collection on. Nothing happens when collection
    is on (a process that did not start through the executable, such as a test's).
    """
    if not gc.isenabled():
        gc.freeze()
        gc.enable()
