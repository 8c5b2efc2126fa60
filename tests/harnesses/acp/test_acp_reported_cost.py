"""The cost an ACP agent reports (`usage_update`'s cumulative `cost`) is its turns' cost
in the host's ledger: each turn is charged what the session's cost grew by over it
(after a host restart too: the amount is kept with the binding). A resumed session whose
earlier cost the host never saw, and a cost in another currency, leave the turn to the
config's price (docs/budgets.md)."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from clawharness.attempt.executor import LocalTurnExecutor
from clawharness.host import Host

FAKE = Path(__file__).resolve().parent / "fake_acp_agent.py"
#: the config's price of a turn the agent reports 1,000 input and 500 output tokens of
CONFIG_PRICE = 1000 * 1.0 / 1e6 + 500 * 2.0 / 1e6


@pytest.fixture
async def make_host(tmp_path: Path) -> AsyncIterator[Callable[[], Any]]:
    hosts: list[Host] = []

    async def make() -> Host:
        config = {
            "agents": {"defaults": {"model": "acp/fake", "workspace": str(tmp_path / "ws")}},
            "models": {"providers": {"acp": {"cost": {"input": 1.0, "output": 2.0}}}},
            "plugins": {"entries": {"acp": {"config": {
                "shutdownGraceSeconds": 0.5, "agents": {"fake": {
                    "command": [sys.executable, str(FAKE)],
                    "env": {"FAKE_ACP_LOG": str(tmp_path / "acp.log")}}}}}}},
        }
        path = tmp_path / "config.json5"
        path.write_text(json.dumps(config))
        host = Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path / "state")})
        await host.start()
        hosts.append(host)
        return host

    yield make
    for host in hosts:
        await host.close()


async def spent(host: Host, key: str) -> float | None:
    """What the ledger's spend rows of session `key` add up to, in USD."""
    assert isinstance(host.executor, LocalTurnExecutor)
    await host.executor.runner.drain()
    rows = {row.group: row for row in await host.usage(by="session")}
    nano = rows[f"agent:main:{key}"].nano_usd
    return None if nano is None else nano / 1e9


async def turn(host: Host, key: str, prompt: str) -> float | None:
    result = await host.run_turn(key, prompt)
    assert (result.runtime, result.terminal) == ("acp", "ok"), result.error
    return result.cost_usd


async def test_each_turn_costs_what_the_sessions_reported_cost_grew_by(
        make_host: Callable[[], Any]) -> None:
    host = await make_host()
    # a new session: its cost before the turn is 0
    assert await turn(host, "s", "cost 0.25 USD") == pytest.approx(0.25)
    assert await spent(host, "s") == pytest.approx(0.25)
    assert await turn(host, "s", "cost 0.75 USD") == pytest.approx(0.5)
    assert await spent(host, "s") == pytest.approx(0.75)
    # a turn with no cost reported is priced by the config (its tokens)
    assert await turn(host, "s", "counted 1000 500 0") == pytest.approx(CONFIG_PRICE)
    assert await spent(host, "s") == pytest.approx(0.75 + CONFIG_PRICE)


async def test_the_sessions_cost_so_far_is_kept_across_a_host_restart(
        make_host: Callable[[], Any], tmp_path: Path) -> None:
    first = await make_host()
    assert await turn(first, "s", "cost 0.25 USD") == pytest.approx(0.25)
    await first.close()
    second = await make_host()  # a new agent process: the session is loaded, not made
    assert await turn(second, "s", "cost 1.0 USD") == pytest.approx(0.75)
    assert await spent(second, "s") == pytest.approx(1.0)
    methods = [json.loads(line)["method"]
               for line in (tmp_path / "acp.log").read_text().splitlines()]
    assert methods.count("session/new") == 1 and methods.count("session/load") == 1


async def test_a_resumed_session_whose_cost_was_never_seen_is_priced_by_the_config(
        make_host: Callable[[], Any], tmp_path: Path) -> None:
    home = tmp_path / "state" / "acp" / "agents" / "main" / "fake" / "home"
    home.mkdir(parents=True)
    (home / "sessions.json").write_text(json.dumps({"old": [["hi", "hello"]]}))
    host = await make_host()
    await host.adopt_session("acp/fake", "old", key="s")
    # the session had cost something the host never saw: no guess at this turn's part
    assert await turn(host, "s", "cost 3.0 USD") == pytest.approx(CONFIG_PRICE)
    assert await spent(host, "s") == pytest.approx(CONFIG_PRICE)
    # now the host saw it: the next turn is charged what it grew by
    assert await turn(host, "s", "cost 3.5 USD") == pytest.approx(0.5)
    assert await spent(host, "s") == pytest.approx(CONFIG_PRICE + 0.5)


async def test_a_cost_in_another_currency_is_ignored(make_host: Callable[[], Any]) -> None:
    host = await make_host()
    assert await turn(host, "s", "cost 0.25 EUR") == pytest.approx(CONFIG_PRICE)
    assert await turn(host, "s", "cost 0.5 EUR") == pytest.approx(CONFIG_PRICE)
    assert await spent(host, "s") == pytest.approx(2 * CONFIG_PRICE)
