"""Property tests for the config loader: any input gives a config or a ConfigError.

Never another exception, never a hang (each example has a deadline), whatever the text
or the JSON shape. Inputs these tests once found are kept below as regression tests.
"""

from __future__ import annotations

import json
import tempfile
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from clawharness.config.loader import load_config, parse_config
from clawharness.config.source import decode_config_text
from clawharness.errors import ConfigError
from clawharness.problems import format_key_path, parse_key_path

PROPERTY = settings(max_examples=150, deadline=timedelta(seconds=5),
                    suppress_health_check=[HealthCheck.too_slow])

#: keys of the real schema, so generated shapes reach deep validation paths
SCHEMA_KEYS = ["models", "providers", "agents", "defaults", "entries", "model", "primary",
               "fallbacks", "tools", "profile", "allow", "deny", "alsoAllow", "exec",
               "security", "ask", "allowlist", "timeoutSec", "gateway", "port", "bind", "auth",
               "mode", "token", "store", "url", "plugins", "enabled", "config", "apiKey",
               "baseUrl", "headers", "api", "id", "agentRuntime", "maxSteps", "host", "tuneGc",
               "logging", "debug", "workspace", "web", "fetch"]
SCALARS = (st.none() | st.booleans() | st.integers(-(2**70), 2**70)
           | st.floats(allow_nan=True, allow_infinity=True)
           | st.sampled_from(["minimal", "minimall", "group:fs", "group:x", "full", "token",
                              "none", "lan", "sqlite:///x.db", "mysql://x", "http://api.openai.com",
                              "openai/gpt-5", "codex/gpt-5", "", "*"])
           | st.text(max_size=20))
JSON_VALUES = st.recursive(
    SCALARS,
    lambda children: st.lists(children, max_size=4)
    | st.dictionaries(st.sampled_from(SCHEMA_KEYS) | st.text(max_size=8), children, max_size=5),
    max_leaves=40,
)
JSON5_ALPHABET = st.sampled_from([*'{}[]:,"\'/*\\\n abc01-+.eExXIN', "//", "/*", "*/",
                                  "Infinity", "NaN"])


def outcome_of_text(text: str) -> str:
    """Decode and validate as `load_config` does: 'ok' or 'error', anything else raises."""
    try:
        decoded = decode_config_text(text)
        parse_config(decoded.raw, scan=decoded.scan)
    except ConfigError:
        return "error"
    return "ok"


@PROPERTY
@given(st.text(max_size=400))
@example("[" * 3000)
@example("{a:" * 3000)
@example("{a: " + "9" * 5000 + "}")
@example('"\\ud800"')
@example("/*" * 500)
def test_any_text_loads_or_is_a_config_error(text: str) -> None:
    assert outcome_of_text(text) in ("ok", "error")


@PROPERTY
@given(st.lists(JSON5_ALPHABET, max_size=120).map("".join))
def test_json5_shaped_text_loads_or_is_a_config_error(text: str) -> None:
    assert outcome_of_text(text) in ("ok", "error")


@PROPERTY
@given(JSON_VALUES)
def test_any_json_shape_validates_or_is_a_config_error(raw: Any) -> None:
    try:
        config, warnings = parse_config(raw)
    except ConfigError as exc:
        assert exc.problems and all(p.message for p in exc.problems)
        return
    assert isinstance(warnings, list)
    assert config.model_dump(by_alias=True) is not None


@PROPERTY
@given(JSON_VALUES, st.integers(0, 40))
def test_mutated_json_text_loads_or_is_a_config_error(raw: Any, cut: int) -> None:
    text = json.dumps({"agents": raw})
    assert outcome_of_text(text) in ("ok", "error")
    assert outcome_of_text(text[: len(text) - cut]) in ("ok", "error")


@settings(max_examples=60, deadline=timedelta(seconds=10))
@given(JSON_VALUES)
def test_load_config_from_a_file_gives_a_config_or_a_config_error(raw: Any) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "config.json5"
        path.write_text("// generated\n" + json.dumps(raw), encoding="utf-8")
        try:
            load_config(path, env={})
        except ConfigError as exc:
            assert str(path) in str(exc)


KEY_PARTS = st.lists(st.text(min_size=0, max_size=10) | st.integers(0, 99), min_size=1,
                     max_size=6).filter(lambda parts: isinstance(parts[0], str))


@PROPERTY
@given(KEY_PARTS)
def test_a_printed_key_path_parses_back_to_the_same_keys(parts: list[str | int]) -> None:
    assert parse_key_path(format_key_path(parts)) == tuple(parts)


# --- inputs the properties found, kept as regression tests -----------------------------


@pytest.mark.parametrize("text", [
    "[" * 3000,                     # RecursionError in the JSON5 decoder
    "{a: " + "9" * 5000 + "}",       # int() digit limit (ValueError inside the decoder)
    '{"a": 1e999999}',               # infinity where a number is expected
])
def test_found_inputs_stay_config_errors_or_configs(text: str) -> None:
    assert outcome_of_text(text) in ("ok", "error")
