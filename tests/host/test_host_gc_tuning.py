"""A started host holds the raised GC thresholds; the last one to close restores them."""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from clawharness._gc import HOST_GC_THRESHOLDS, GcTuning
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
