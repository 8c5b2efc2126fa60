"""Benchmark: harness selection among 50 registered harnesses (auto mode).

Measures `select_harness` end to end (policy from config, support context, one
`supports()` probe per harness, priority/id ordering, candidate records) and, as the
peer, a bare naive sweep: build a context, call every harness's `supports()`, sort the
supported ones. The difference is what the policy/availability/decision layers cost on
top of the unavoidable probes.

    .venv/bin/python bench/selection.py [--quick]

The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from dataclasses import dataclass

from rich.console import Console
from rich.table import Table

from clawharness.config.schema import ClawConfig
from clawharness.harness.registry import HarnessRegistry
from clawharness.harness.selection import SelectionRequest, log_harness_selection, select_harness
from clawharness.harness.types import (
    AttemptParams,
    AttemptResult,
    SupportContext,
    Supported,
    SupportResult,
    Unsupported,
)

HARNESSES = 50


@dataclass
class CheapHarness:
    """`supports` is a set lookup: the probe itself costs next to nothing."""

    id: str
    label: str
    providers: frozenset[str]
    priority: int

    def supports(self, ctx: SupportContext) -> SupportResult:
        if ctx.provider in self.providers:
            return Supported(priority=self.priority)
        return Unsupported(reason="provider not handled")

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        raise NotImplementedError


def build_registry() -> HarnessRegistry:
    registry = HarnessRegistry()
    for i in range(HARNESSES):
        # every tenth harness handles "acme", so auto mode has several to order
        providers = frozenset({"acme", f"p{i}"} if i % 10 == 0 else {f"p{i}"})
        registry.register(CheapHarness(f"h{i:02d}", f"Harness {i}", providers, i % 7))  # type: ignore[arg-type]
    return registry


def percentiles(samples_ns: list[int]) -> tuple[float, float]:
    ordered = sorted(samples_ns)
    p50 = statistics.median(ordered) / 1000
    p95 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))] / 1000
    return p50, p95


def timed(fn: Callable[[], object], iterations: int) -> list[int]:
    for _ in range(min(200, iterations)):
        fn()  # warm-up
    samples: list[int] = []
    clock = time.perf_counter_ns
    for _ in range(iterations):
        start = clock()
        fn()
        samples.append(clock() - start)
    return samples


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--quick", action="store_true", help="fewer iterations")
    args = parser.parse_args()
    iterations = 2_000 if args.quick else 20_000

    registry = build_registry()
    config = ClawConfig.model_validate(
        {"models": {"providers": {"acme": {"baseUrl": "https://acme.example/v1"}}}})
    request = SelectionRequest(provider="acme", model_id="m1", agent_id="main")
    env: dict[str, str] = {}

    decision = select_harness(config, registry, request, env=env)
    assert decision.selected_reason == "auto_plugin" and decision.selected_harness_id == "h20"

    def select() -> object:
        chosen = select_harness(config, registry, request, env=env)
        log_harness_selection(chosen, request, debug=None)  # debug off: must cost nothing
        return chosen

    harnesses = registry.harnesses()

    def naive_sweep() -> object:
        ctx = SupportContext(provider="acme", model_id="m1")
        supported = [(h, s) for h in harnesses if isinstance(s := h.supports(ctx), Supported)]
        supported.sort(key=lambda pair: (-pair[1].priority, pair[0].id))
        return supported[0][0] if supported else None

    sel50, sel95 = percentiles(timed(select, iterations))
    nai50, nai95 = percentiles(timed(naive_sweep, iterations))

    table = Table(title=f"Harness selection, {HARNESSES} registered harnesses, auto mode "
                        f"({iterations} iterations)")
    table.add_column("what")
    table.add_column("p50 µs", justify="right")
    table.add_column("p95 µs", justify="right")
    table.add_row("select_harness (clawharness, full decision)", f"{sel50:.1f}", f"{sel95:.1f}")
    table.add_row("peer: naive supports() sweep + sort", f"{nai50:.1f}", f"{nai95:.1f}")
    table.add_row("overhead of the decision layers", f"{sel50 - nai50:.1f}", f"{sel95 - nai95:.1f}")
    Console(stderr=True).print(table)
    print(json.dumps({
        "bench": "selection",
        "harnesses": HARNESSES,
        "iterations": iterations,
        "select_us_p50": round(sel50, 2),
        "select_us_p95": round(sel95, 2),
        "peer_naive_sweep_us_p50": round(nai50, 2),
        "peer_naive_sweep_us_p95": round(nai95, 2),
        "target_us": 1000,
        "notes": "select = policy from config + support context + one supports() per harness "
                 "+ priority/id order, keeping each probe for the debug record (records are built "
                 "only when agents/harness debug is on; it is off here); peer = "
                 "bare loop calling supports() on all 50 with a prebuilt-per-call context and "
                 "sorting the supported ones. Same process, same harness objects.",
    }))


if __name__ == "__main__":
    main()
