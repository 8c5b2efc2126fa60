"""Finding the real model's runtime, and what happens when it is not installed (no model
needed: the `real_model` tests run it)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from clawharness.errors import RealModelNotInstalledError
from clawharness.testing.loopback import LoggedRequest
from clawharness.testing.real_model import (
    PINS,
    LlamaServer,
    RealModelRuntime,
    default_runtime_dir,
)
from clawharness.testing.real_model.front import Exchange

REPO = Path(__file__).resolve().parents[2]


def test_the_runtime_dir_is_the_env_var_then_the_checkout(tmp_path: Path) -> None:
    assert default_runtime_dir({"CLAWHARNESS_REAL_MODEL_DIR": str(tmp_path)}) == tmp_path
    # run from this checkout (an editable install), it is the checkout's .cache
    assert default_runtime_dir({}) == REPO / ".cache" / "real-model"


def test_an_empty_dir_is_not_installed_and_says_how_to_install(tmp_path: Path) -> None:
    runtime = RealModelRuntime(tmp_path)
    assert not runtime.is_installed()
    with pytest.raises(RealModelNotInstalledError) as caught:
        LlamaServer(runtime)
    assert str(tmp_path) in str(caught.value)
    assert caught.value.code == "real_model_not_installed"
    assert "scripts/real-model.sh" in (caught.value.hint or "")


def test_an_install_at_other_versions_does_not_count(tmp_path: Path) -> None:
    runtime = RealModelRuntime(tmp_path)
    runtime.model_path.parent.mkdir(parents=True)
    runtime.model_path.write_bytes(b"GGUF")
    (runtime.site_dir / "xllamacpp").mkdir()
    runtime.stamp_path.write_text(json.dumps({"pins": {**PINS, "xllamacpp": "0.0.1"}}))
    assert not runtime.is_installed()
    runtime.stamp_path.write_text(json.dumps({"pins": dict(PINS)}))
    assert runtime.is_installed()


def test_an_exchange_reads_streamed_and_plain_answers() -> None:
    request = LoggedRequest(0.0, "POST", "/v1/chat/completions", "", {}, {})
    streamed = Exchange(request, 200, (
        'data: {"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"read",'
        '"arguments":"{"}}]}}]}\n\n'
        'data: {"choices":[],"timings":{"prompt_n":12}}\n\ndata: [DONE]\n\n'), 0.1)
    plain = Exchange(request, 200, json.dumps({"choices": [{"message": {
        "content": "hi"}}], "timings": {"prompt_n": 3}}), 0.1)
    assert streamed.streamed and not plain.streamed
    assert streamed.tool_call_names() == ["read"]
    assert streamed.timings() == {"prompt_n": 12}
    assert plain.tool_call_names() == [] and plain.timings() == {"prompt_n": 3}


def test_model_server_wants_a_script_or_real(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "clawharness", "model-server"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "exactly one of --script FILE and --real" in done.stderr


def test_model_server_real_says_how_to_install_when_missing(tmp_path: Path) -> None:
    env = {**os.environ, "CLAWHARNESS_REAL_MODEL_DIR": str(tmp_path / "none")}
    done = subprocess.run([sys.executable, "-m", "clawharness", "model-server", "--real"],
                          capture_output=True, text=True, timeout=60, env=env)
    assert done.returncode == 2
    assert "the real model is not installed" in done.stderr
    assert "bash scripts/real-model.sh" in done.stderr
