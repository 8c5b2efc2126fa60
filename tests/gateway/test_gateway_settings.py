"""Where the gateway listens and how it authenticates, resolved as the original does."""

from __future__ import annotations

import pytest

from clawharness.config.loader import parse_config
from clawharness.config.schema import ClawConfig
from clawharness.errors import ConfigError
from clawharness.gateway.settings import resolve_bind_host, resolve_settings


def config(gateway: dict[str, object]) -> ClawConfig:
    return ClawConfig.model_validate({"gateway": gateway})


def test_config_supplies_port_bind_and_token_and_loopback_is_the_default() -> None:
    settings = resolve_settings(config({"port": 19001, "auth": {"mode": "token",
                                                                "token": "cfg"}}), {})
    assert (settings.host, settings.port, settings.token) == ("127.0.0.1", 19001, "cfg")
    assert settings.loopback


def test_the_command_line_wins_over_config_and_environment() -> None:
    settings = resolve_settings(
        config({"port": 19001, "auth": {"token": "cfg"}}),
        {"OPENCLAW_GATEWAY_TOKEN": "env", "OPENCLAW_GATEWAY_PORT": "19002"},
        port=19003, token="cli")
    assert (settings.port, settings.token) == (19003, "cli")


def test_the_environment_fills_what_config_leaves_out() -> None:
    settings = resolve_settings(config({}), {"OPENCLAW_GATEWAY_TOKEN": "oc",
                                             "OPENCLAW_GATEWAY_PORT": "19005"})
    assert (settings.port, settings.token) == (19005, "oc")
    ours = resolve_settings(config({}), {"OPENCLAW_GATEWAY_TOKEN": "oc",
                                         "CLAWHARNESS_GATEWAY_TOKEN": "ch"})
    assert ours.token == "ch"


def test_token_auth_without_a_token_refuses_to_start() -> None:
    with pytest.raises(ConfigError) as caught:
        resolve_settings(config({"auth": {"mode": "token"}}), {})
    assert caught.value.key_path == "gateway.auth.token"


def test_binding_beyond_loopback_without_auth_is_refused() -> None:
    # in the config file it is refused when the config is validated, naming the key
    with pytest.raises(ConfigError, match="without auth") as caught:
        parse_config({"gateway": {"bind": "lan", "auth": {"mode": "none"}}})
    assert caught.value.key_path == "gateway"
    # from the command line it is refused when the settings are resolved
    with pytest.raises(ConfigError):
        resolve_settings(config({"auth": {"mode": "none"}}), {}, bind="lan")
    loopback = resolve_settings(config({"auth": {"mode": "none"}}), {})
    assert loopback.auth_mode == "none" and loopback.token is None


@pytest.mark.parametrize(("bind", "host"), [
    ("loopback", "127.0.0.1"), ("lan", "0.0.0.0"), ("::1", "::1"), ("[::1]", "::1"),
    ("10.0.0.5", "10.0.0.5"),
])
def test_bind_names_resolve_to_addresses(bind: str, host: str) -> None:
    assert resolve_bind_host(bind) == host


def test_a_bind_that_is_not_an_address_is_a_config_error() -> None:
    with pytest.raises(ConfigError):
        resolve_bind_host("not an address!")
