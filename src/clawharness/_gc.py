"""The garbage-collector thresholds a host process runs with.

A host keeps many turns in flight, each holding a few hundred small container objects
for a second or so. With CPython's default thresholds (700, 10, 10) those objects
outlive many young collections, reach the oldest generation and make full collections
(which walk every live object) frequent: at 1,000 concurrent turns they took about a
third of the event loop's time. Higher thresholds let a turn's objects die young.

The thresholds are process-wide, so a started host holds them and the last host to
close puts back what was there before (`host.tuneGc: false` in config leaves them
alone).
"""

from __future__ import annotations

import gc
import threading

__all__ = ["HOST_GC_THRESHOLDS", "GcTuning", "collect_from_here"]

#: young collection after 50,000 net allocations; older ones 20 and 100 times rarer
HOST_GC_THRESHOLDS = (50_000, 20, 100)


class GcTuning:
    """Reference-counted holder of the host thresholds (one per process)."""

    _lock = threading.Lock()
    _holders = 0
    _saved: tuple[int, int, int] | None = None

    @classmethod
    def acquire(cls) -> None:
        with cls._lock:
            if cls._holders == 0:
                cls._saved = gc.get_threshold()
                gc.set_threshold(*HOST_GC_THRESHOLDS)
            cls._holders += 1

    @classmethod
    def release(cls) -> None:
        with cls._lock:
            if cls._holders == 0:
                return
            cls._holders -= 1
            if cls._holders == 0 and cls._saved is not None:
                # someone else may have changed them meanwhile: then theirs stand
                if gc.get_threshold() == HOST_GC_THRESHOLDS:
                    gc.set_threshold(*cls._saved)
                cls._saved = None

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
