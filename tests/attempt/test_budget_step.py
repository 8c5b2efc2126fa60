"""The turn's spend step: a native runtime is priced by the config alone (a subscription
CLI is not billed by the token), the built-in runtime by the config then the table."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from clawharness.attempt.budget_step import SpendLedger
from clawharness.config import ClawConfig
from clawharness.records.usage import Usage, UsageCost
from clawharness.store import open_store

USAGE = Usage(input=1_000_000, output=0)


async def ledger(tmp_path: Path, providers: dict[str, Any]) -> Any:
    config = ClawConfig.model_validate({"models": {"providers": providers}})
    store = open_store(str(tmp_path / "state.db"))
    await store.open()
    spend = SpendLedger(config, store).turn("r", "main", "agent:main:s", caller=None,
                                           approvals=None)
    return spend, store


def params(provider: str, model: str) -> Any:
    return cast(Any, SimpleNamespace(provider=provider, model_id=model))


async def test_a_native_runtime_is_not_priced_from_the_table(tmp_path: Path) -> None:
    spend, store = await ledger(tmp_path, {"anthropic": {"apiKey": "k"}})
    try:
        ref = params("anthropic", "claude-sonnet-4-5")
        built_in = spend.priced(USAGE, ref, builtin=True)
        assert built_in.cost is not None and built_in.cost.total > 0
        assert spend.priced(USAGE, ref, builtin=False).cost is None
        # a cost the runtime reported is kept as it is
        reported = Usage(input=10, output=1, cost=UsageCost(total=0.5))
        assert spend.priced(reported, ref, builtin=False).cost == UsageCost(total=0.5)
    finally:
        await store.close()


async def test_a_native_runtime_is_priced_by_the_config(tmp_path: Path) -> None:
    spend, store = await ledger(tmp_path, {"anthropic": {"apiKey": "k",
                                                         "cost": {"input": 3.0}}})
    try:
        usage = spend.priced(USAGE, params("anthropic", "claude-sonnet-4-5"), builtin=False)
        assert usage.cost is not None and abs(usage.cost.total - 3.0) < 1e-9
    finally:
        await store.close()
