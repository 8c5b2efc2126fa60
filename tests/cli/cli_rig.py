"""What the CLI tests share: invoking the real app, a scripted model behind a config file,
and reading the one JSON object a `--json` command prints."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

from typer.testing import CliRunner, Result

from clawharness.cli.main import app
from clawharness.testing import ScriptedModelServer

runner = CliRunner()

#: the keys the one error envelope may carry (docs/cli.md)
ENVELOPE_KEYS = {"type", "message", "file", "keyPath", "provider", "model", "url", "status",
                 "rule", "hint", "runtime", "problems"}


def invoke(*args: str, input: str | None = None) -> Result:
    return runner.invoke(app, list(args), input=input, catch_exceptions=False)


def only_json(result: Result) -> Any:
    """The single JSON object on stdout (a `--json` command prints exactly one line)."""
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    assert len(lines) == 1, result.stdout
    return json.loads(lines[0])


def assert_envelope(result: Result, error_type: str) -> dict[str, Any]:
    """The error envelope of a failed `--json` command, checked for its shape."""
    assert result.exit_code != 0, result.stdout
    data = only_json(result)
    error = data["error"]
    assert isinstance(error, dict), data
    assert error["type"] == error_type, error
    assert isinstance(error["message"], str) and error["message"]
    assert set(error) <= ENVELOPE_KEYS, set(error) - ENVELOPE_KEYS
    return error


def merge(base: dict[str, Any], extra: Mapping[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for key, value in extra.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = merge(out[key], value)
        else:
            out[key] = value
    return out


def write_config(directory: Path, base_url: str, extra: Mapping[str, Any] | None = None,
                 *, provider: str = "local") -> Path:
    """A config whose default model is `<provider>/m` at `base_url`, state in `directory`."""
    config = {
        "models": {"providers": {provider: {"baseUrl": base_url, "api": "openai-responses",
                                            "apiKey": "k", "models": [{"id": "m"}]}}},
        "agents": {"defaults": {"model": f"{provider}/m",
                                "workspace": str(directory / "workspace")}},
        "store": {"url": str(directory / "state.db")},
    }
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / "config.json5"
    path.write_text(json.dumps(merge(config, extra or {})))
    return path


@contextmanager
def scripted_config(directory: Path, script: Mapping[str, Any],
                    extra: Mapping[str, Any] | None = None, *,
                    provider: str = "local") -> Iterator[Path]:
    """A scripted model server for `script`, and a config file pointing at it."""
    with ExitStack() as stack:
        server = ScriptedModelServer(dict(script))
        stack.enter_context(server.run_in_thread())
        yield write_config(directory, server.base_url_openai, extra, provider=provider)
