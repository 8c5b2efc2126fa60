"""Start-up checks fail closed, and validate, start-up and doctor agree on them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from clawharness.config.loader import load_config, validate_config
from clawharness.doctor import diagnose
from clawharness.errors import ConfigError
from clawharness.host import Host

REFUSED_AT_START: list[tuple[dict[str, Any], str, str]] = [
    ({"tools": {"profile": "minimall"}}, "tools.profile", "unknown-tool-profile"),
    ({"agents": {"entries": {"ops": {"tools": {"profile": "codng"}}}}},
     "agents.entries.ops.tools.profile", "unknown-tool-profile"),
    ({"tools": {"deny": ["exec", "group:fss"]}}, "tools.deny[1]", "unknown-tool-group"),
    ({"tools": {"allow": ["group:web"], "alsoAllow": ["group:nope"]}}, "tools.alsoAllow[0]",
     "unknown-tool-group"),
    ({"store": {"url": "mysql://x"}}, "store.url", "invalid-store-url"),
    ({"store": {"url": "sqlite://relative.db"}}, "store.url", "invalid-store-url"),
    ({"gateway": {"port": 99999}}, "gateway.port", "config-invalid"),
    ({"gateway": {"bind": "not an address!"}}, "gateway.bind", "invalid-gateway-bind"),
    ({"gateway": {"bind": "lan", "auth": {"mode": "none"}}}, "gateway",
     "gateway-open-without-auth"),
    ({"models": {"providers": {"openai": {"baseUrl": "http://api.openai.com/v1"}}}},
     "models.providers.openai.baseUrl", "plaintext-official-endpoint"),
    ({"models": {"providers": {"x": {"models": [{"id": "m", "baseUrl": "http://api.anthropic.com"}]}}}},
     "models.providers.x.models[0].baseUrl", "plaintext-official-endpoint"),
]


@pytest.mark.parametrize(("raw", "key_path", "code"), REFUSED_AT_START)
def test_validate_start_up_and_doctor_refuse_the_same_values(
    raw: dict[str, Any], key_path: str, code: str, tmp_path: Path,
) -> None:
    [problem] = validate_config(raw).errors
    assert (problem.key_path, problem.code) == (key_path, code)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(raw))
    with pytest.raises(ConfigError) as caught:
        Host.from_config(path, env={})
    assert caught.value.key_path == key_path and str(path) in str(caught.value)
    assert (code, key_path) in {(f.code, f.path) for f in diagnose(raw) if f.severity == "error"}


def test_a_misspelled_profile_names_the_valid_ones_and_the_closest() -> None:
    [problem] = validate_config({"tools": {"profile": "minimall"}}).errors
    assert "restrict nothing" in problem.message
    assert problem.hint is not None
    assert problem.hint.startswith("did you mean 'minimal'?")
    assert "'minimal', 'coding', 'messaging' or 'full'" in problem.hint


def test_known_profiles_groups_and_urls_are_accepted() -> None:
    report = validate_config({
        "tools": {"profile": "coding", "allow": ["group:fs", "exec", "web_*", "*"],
                  "deny": ["group:web", "bash"]},
        "store": {"url": "postgresql://127.0.0.1/test"},
        "gateway": {"port": 0, "bind": "lan", "auth": {"mode": "token", "token": "t"}},
        "models": {"providers": {"local": {"baseUrl": "http://127.0.0.1:8000/v1"},
                                 "openai": {"baseUrl": "https://api.openai.com/v1"}}},
    })
    assert report.errors == ()
    assert load_config(None, env={"CLAWHARNESS_STATE_DIR": "/nonexistent"}).config is not None


def test_a_gateway_token_that_serve_would_miss_is_a_warning_unless_the_environment_has_one(
) -> None:
    raw = {"gateway": {"port": 19000}}
    [warning] = validate_config(raw).warnings
    assert (warning.key_path, warning.code) == ("gateway.auth.token", "gateway-token-missing")
    assert warning.hint is not None and warning.hint.endswith("pass a token to serve (--token)")
    assert validate_config(raw, env={"OPENCLAW_GATEWAY_TOKEN": "t"}).warnings == ()


def test_an_api_key_read_from_an_unset_variable_warns_when_an_environment_is_given() -> None:
    raw = {"models": {"providers": {"local": {"apiKey": "${LOCAL_KEY}"}}}}
    [warning] = validate_config(raw, env={}).warnings
    assert (warning.key_path, warning.code) == ("models.providers.local.apiKey",
                                                "env-var-missing")
    assert "LOCAL_KEY" in warning.message
    assert validate_config(raw, env={"LOCAL_KEY": "k"}).warnings == ()
    assert validate_config(raw).warnings == ()
