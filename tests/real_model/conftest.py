"""Fixtures for the `real_model` tests: SmolLM2-135M on llama.cpp, behind a recording front.

- `llama` (session): one llama.cpp server for the whole run (loading takes seconds).
- `real_model` (per test): a `RealModelServer` front over it, whose `requests` and
  `exchanges` hold only this test's model calls.
- `make_real_host` (per test): `async with make_real_host(**config) as rig:` a real `Host`
  whose default model is the real one, with `contextWindow` 8192 in its provider config
  (what the coming compaction tests budget against); `real_host` is one with defaults.

The runtime is installed by `scripts/real-model.sh` (`scripts/test.sh` runs it). Where it
is missing the tests skip and say so, except in CI (`CI` set), where they fail: a green run
must not hide a missing install step.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
from real_rig import RealHostFactory, RealRig, real_host_factory

from clawharness.testing.real_model import LlamaServer, RealModelRuntime, RealModelServer


@pytest.fixture(scope="session")
def real_model_runtime() -> RealModelRuntime:
    runtime = RealModelRuntime.default()
    if not runtime.is_installed():
        message = (f"the real model is not installed in {runtime.root}: "
                   "run `bash scripts/real-model.sh`")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return runtime


@pytest.fixture(scope="session")
def llama(real_model_runtime: RealModelRuntime,
          tmp_path_factory: pytest.TempPathFactory) -> Iterator[LlamaServer]:
    log = tmp_path_factory.mktemp("llama") / "llama-server.log"
    with LlamaServer(real_model_runtime, log_path=log) as server:
        yield server


@pytest.fixture
async def real_model(llama: LlamaServer) -> AsyncIterator[RealModelServer]:
    async with RealModelServer(llama) as front:
        yield front


@pytest.fixture
def make_real_host(real_model: RealModelServer, tmp_path: Path) -> RealHostFactory:
    return real_host_factory(real_model, tmp_path)


@pytest.fixture
async def real_host(make_real_host: RealHostFactory) -> AsyncIterator[RealRig]:
    async with make_real_host() as rig:
        yield rig
