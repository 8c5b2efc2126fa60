"""The metric instruments a host records into: names, kinds, units, descriptions and
buckets (GenAI semantic conventions, and the host's own under `clawharness.`).

`Telemetry` creates them from this table, and `/metrics` answers every family in it even
before its first point: an unlabelled counter or histogram at zero, a labelled family
with its `HELP` and `TYPE` and no series yet (docs/observability.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

__all__ = ["DURATION_BUCKETS", "INSTRUMENTS", "TOKEN_BUCKETS", "Instrument"]

#: GenAI semantic conventions' advised buckets (seconds, tokens)
DURATION_BUCKETS = (0.001, 0.005, 0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12,
                    10.24, 20.48, 40.96, 81.92)
TOKEN_BUCKETS = (1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304)


@dataclass(frozen=True, slots=True)
class Instrument:
    """One instrument: `kind` counter, histogram or (observable) gauge."""

    name: str
    kind: Literal["counter", "histogram", "gauge"]
    unit: str
    description: str
    #: every point carries attributes (a labelled family), so before the first point
    #: there is no series to show, only the family; unlabelled ones start at zero
    labelled: bool = True
    buckets: tuple[float, ...] = ()


TOKEN_USAGE = Instrument("gen_ai.client.token.usage", "histogram", "{token}",
                         "Tokens used per model request, by gen_ai.token.type",
                         buckets=TOKEN_BUCKETS)
OPERATION_DURATION = Instrument("gen_ai.client.operation.duration", "histogram", "s",
                                "Duration of model requests", buckets=DURATION_BUCKETS)
TURNS = Instrument("clawharness.turns", "counter", "{turn}", "Turns run, by runtime and outcome")
TURN_DURATION = Instrument("clawharness.turn.duration", "histogram", "s", "Duration of turns",
                           buckets=DURATION_BUCKETS)
COST = Instrument("clawharness.cost.usd", "counter", "[USD]",
                  "USD spent by priced turns, by runtime and model (docs/budgets.md)")
TOOL_CALLS = Instrument("clawharness.tool.calls", "counter", "{call}", "Tool calls, by outcome")
LEASE_WAIT = Instrument("clawharness.session.lease.wait", "histogram", "s",
                        "Time a turn waited for its session's writer", labelled=False,
                        buckets=DURATION_BUCKETS)
STORE_APPEND = Instrument("clawharness.store.append.duration", "histogram", "s",
                          "Latency of transcript append batches", labelled=False,
                          buckets=DURATION_BUCKETS)
NATIVE_PROCESS_STARTS = Instrument("clawharness.native.process.starts", "counter", "{process}",
                                   "Native runtime processes started")
QUEUE_DEPTH = Instrument("clawharness.session.queue.depth", "gauge", "{turn}",
                         "Turns waiting for or holding each session's writer")
NATIVE_PROCESSES = Instrument("clawharness.native.processes", "gauge", "{process}",
                              "Native runtime processes alive")

INSTRUMENTS: tuple[Instrument, ...] = (
    TOKEN_USAGE, OPERATION_DURATION, TURNS, TURN_DURATION, COST, TOOL_CALLS, LEASE_WAIT,
    STORE_APPEND, NATIVE_PROCESS_STARTS, QUEUE_DEPTH, NATIVE_PROCESSES,
)
