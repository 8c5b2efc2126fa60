"""Secrets known by value (`redaction.known`), found in a config and an environment
(`config.held_secrets`), and environment variables judged by name and value
(`redaction.env`)."""

from __future__ import annotations

from clawharness.config.held_secrets import held_secret_values
from clawharness.redaction.env import is_secret_variable, is_secret_variable_name
from clawharness.redaction.known import (
    known_secret_count,
    mask_known_secrets,
    register_known_secrets,
    unregister_known_secrets,
)
from clawharness.redaction.outbound import redact_secrets, redact_secrets_in, redact_tool_result

KEY = "plain-credential-without-shape-42"


def test_a_registered_value_is_masked_exactly_until_unregistered() -> None:
    before = known_secret_count()
    token = register_known_secrets([KEY, "short", None, "   "])
    try:
        assert known_secret_count() == before + 1  # "short" is below the minimum
        assert mask_known_secrets(f"echo {KEY}!") == "echo plain-…e-42!"
        assert redact_secrets(f"bad key {KEY}") == "bad key plain-…e-42"
        assert mask_known_secrets("short") == "short"
        other = register_known_secrets([KEY])
        unregister_known_secrets(token)
        assert mask_known_secrets(KEY) != KEY  # still held by the other registration
        unregister_known_secrets(other)
    finally:
        unregister_known_secrets(token)
    assert mask_known_secrets(KEY) == KEY
    assert known_secret_count() == before


def test_a_remembered_redaction_of_a_short_text_follows_the_known_values() -> None:
    text = f"bad key {KEY}"
    assert redact_secrets(text) == text  # remembered: nothing known, no shape
    token = register_known_secrets([KEY])
    try:
        assert redact_secrets(text) == "bad key plain-…e-42"
        assert redact_secrets_in({"detail": [text]}) == {"detail": ["bad key plain-…e-42"]}
    finally:
        unregister_known_secrets(token)
    assert redact_secrets(text) == text


def test_held_secrets_come_from_secret_keys_and_the_environment() -> None:
    raw = {"models": {"providers": {"p": {"apiKey": "${P_KEY}", "baseUrl": "http://x/v1",
                                          "headers": {"X-Custom": "header-value-1234"}}}},
           "gateway": {"auth": {"mode": "token", "token": "gateway-token-123456"}},
           "mcp": {"servers": {"s": {"command": "long-command-name", "env": {"A": "env-value-99"}}}},
           "agents": {"defaults": {"model": "provider/a-long-model-name"}}}
    env = {"P_KEY": "resolved-provider-key-1", "DATABASE_URL": "postgres://u:pw-123@db/x",
           "HOME": "/home/someone", "GITHUB_TOKEN": "ghp_x"}
    held = held_secret_values(raw, env)
    assert {"resolved-provider-key-1", "header-value-1234", "gateway-token-123456",
            "env-value-99", "postgres://u:pw-123@db/x", "ghp_x"} <= held
    assert not {"http://x/v1", "long-command-name", "provider/a-long-model-name",
                "/home/someone", "token"} & held


def test_environment_variables_by_name_and_by_value() -> None:
    assert all(is_secret_variable_name(n) for n in (
        "OPENAI_API_KEY", "GH_PAT", "MYSQL_PWD", "SENTRY_DSN", "OTEL_EXPORTER_OTLP_HEADERS",
        "HTTP_AUTHORIZATION", "BASIC_AUTH", "AWS_SESSION_TOKEN"))
    assert not any(is_secret_variable_name(n) for n in (
        "PWD", "OLDPWD", "GIT_AUTHOR_NAME", "PATH", "LANG", "HOME", "SSH_AUTH_SOCK"))
    assert is_secret_variable("DATABASE_URL", "postgres://app:hunter2@db/app")
    assert is_secret_variable("REMOTE", "https://t:ghp_abcdefghijklmnopqrstuvwxyz0123456789@gh")
    assert not is_secret_variable("DATABASE_URL", "postgres://db/app")
    assert not is_secret_variable("EDITOR", "vim")


def test_structured_values_and_tool_results() -> None:
    value = {"apiKey": "abc", "nested": [{"note": "use sk-abcdefghijklmnopqrstuvwxyz012345"}],
             "count": 3}
    out = redact_secrets_in(value)
    assert out["apiKey"] == "***" and out["count"] == 3
    assert "sk-abcdefghijklmnopqrst" not in out["nested"][0]["note"]
    result = redact_tool_result({
        "content": [{"type": "text", "text": "DB_PASSWORD=hunter2-correct"},
                    {"type": "image", "data": "AAAA", "mimeType": "image/png"}],
        "details": {"token": "t0k3n-value-here"}, "isError": False})
    text = result["content"][0]["text"]
    assert text.startswith("DB_PASSWORD=") and "hunter2-correct" not in text
    assert result["content"][1] == {"type": "image", "data": "AAAA", "mimeType": "image/png"}
    assert "t0k3n-value-here" not in str(result["details"]) and result["isError"] is False
