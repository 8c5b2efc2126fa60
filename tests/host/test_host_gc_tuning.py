"""A started host holds the raised GC thresholds; the last one to close restores them."""

from __future__ import annotations

import asyncio
import gc
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from clawharness._gc import HOST_GC_THRESHOLDS, YOUNG_PER_TURN_IN_FLIGHT, GcTuning
from clawharness.host import Host


@pytest.fixture(autouse=True)
def known_thresholds() -> Iterator[tuple[int, int, int]]:
    before = gc.get_threshold()
    gc.set_threshold(700, 10, 10)
    yield (700, 10, 10)
    gc.set_threshold(*before)


def make_host(tmp_path: Path, name: str, *, tune: bool | None = None) -> Host:
    config: dict[str, object] = {}
    if tune is not None:
        config["host"] = {"tuneGc": tune}
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(config))
    return Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path / name)},
                            store_url=str(tmp_path / f"{name}.db"))


async def test_two_hosts_share_the_tuning_and_the_last_close_restores(tmp_path: Path) -> None:
    assert GcTuning.holders() == 0
    first, second = make_host(tmp_path, "a"), make_host(tmp_path, "b")
    await first.start()
    assert gc.get_threshold() == HOST_GC_THRESHOLDS
    await second.start()
    await first.start()  # starting twice holds once
    await first.close()
    assert gc.get_threshold() == HOST_GC_THRESHOLDS
    await second.close()
    assert gc.get_threshold() == (700, 10, 10)
    await second.close()  # closing twice releases once
    assert GcTuning.holders() == 0


async def test_tune_gc_false_leaves_the_thresholds_alone(tmp_path: Path) -> None:
    async with make_host(tmp_path, "off", tune=False):
        assert gc.get_threshold() == (700, 10, 10)
    assert gc.get_threshold() == (700, 10, 10)


async def test_thresholds_changed_by_the_application_meanwhile_stand(tmp_path: Path) -> None:
    async with make_host(tmp_path, "app"):
        gc.set_threshold(1234, 5, 5)
    assert gc.get_threshold() == (1234, 5, 5)


async def test_the_young_threshold_follows_the_turns_in_flight(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    config = {
        "models": {"providers": {"local": {"api": "scripted", "models": [{"id": "m", "params": {
            "script": {"responses": [{"match": "", "repeat": True, "text": "hi"}]}}}]}}},
        "agents": {"defaults": {"model": "local/m", "workspace": str(workspace)}},
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    turns = 2 * HOST_GC_THRESHOLDS[0] // YOUNG_PER_TURN_IN_FLIGHT
    already = GcTuning.in_flight()  # (0, unless an earlier test left a turn unfinished)
    async with Host.from_config(path, env={"CLAWHARNESS_STATE_DIR": str(tmp_path)}) as host:
        started = asyncio.Event()

        async def one(i: int) -> None:
            if i == turns - 1:
                started.set()
            result = await host.run_turn(f"s{i}", "hello")
            assert result.terminal == "ok"

        async def watch() -> int:
            await started.wait()
            return gc.get_threshold()[0]

        *_, under_load = await asyncio.gather(*(one(i) for i in range(turns)), watch())
        assert under_load >= turns * YOUNG_PER_TURN_IN_FLIGHT
        assert gc.get_threshold() == HOST_GC_THRESHOLDS  # all ended: back to the host's
        assert GcTuning.in_flight() == already
