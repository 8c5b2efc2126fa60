"""What `clawharness serve` says after `listening`: the Control UI's URL and the HTTP
endpoints it answers, with the keys that turn on the ones that are off."""

from __future__ import annotations

from clawharness.gateway.run import endpoint_lines
from clawharness.gateway.settings import GatewaySettings


def test_the_defaults_name_the_ui_and_how_to_turn_on_the_turn_endpoints() -> None:
    lines = endpoint_lines(GatewaySettings(token="t"), 18789)
    assert lines[0] == "Control UI  http://127.0.0.1:18789/  (sign in with the gateway token)"
    assert lines[1] == "HTTP API    http://127.0.0.1:18789  GET /v1/models"
    assert "gateway.http.endpoints.chatCompletions.enabled: true" in lines[2]
    assert "gateway.http.endpoints.responses.enabled: true" in lines[2]
    assert lines[-1].startswith("health      http://127.0.0.1:18789/health")


def test_enabled_endpoints_a_lan_bind_and_no_ui() -> None:
    settings = GatewaySettings(host="0.0.0.0", token="t", chat_completions_enabled=True,
                               responses_enabled=True, control_ui_enabled=False)
    lines = endpoint_lines(settings, 9000)
    assert lines[0] == "Control UI  off (gateway.controlUi.enabled: false)"
    assert lines[1] == ("HTTP API    http://127.0.0.1:9000  GET /v1/models, "
                        "POST /v1/chat/completions, POST /v1/responses")
    assert not any(line.strip().startswith("off:") for line in lines)
    ipv6 = endpoint_lines(GatewaySettings(host="::1", auth_mode="none"), 1)
    assert ipv6[0] == "Control UI  http://[::1]:1/  (no token needed)"
