"""Runtime errors name the provider and URL, say what happened and what to do, and are
never wrapped as `RuntimeError`."""

from __future__ import annotations

import json
import socket
from pathlib import Path

from cli_rig import invoke, scripted_config, write_config


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then released)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_an_unreachable_server_names_provider_url_and_what_to_do(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}/v1"
    config = write_config(tmp_path, url)
    out = invoke("agent", "--config", str(config), "-m", "hi")
    assert out.exit_code == 1
    err = out.stderr
    assert "RuntimeError" not in err
    assert "error (provider_unreachable)" in err
    assert 'provider "local"' in err and url in err and "connection" in err
    assert "is the server running" in err and "models.providers.local.baseUrl" in err
    assert "/v1" in err


def test_a_base_url_without_v1_is_pointed_out(tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    config = write_config(tmp_path, url)
    error = json.loads(invoke("agent", "--config", str(config), "-m", "hi", "--json").stdout)
    assert error["error"]["url"] == url
    assert f"ends in /v1 (this one is {url})" in error["error"]["hint"]


def test_a_turn_timeout_names_the_budget_provider_and_url(tmp_path: Path) -> None:
    slow = {"responses": [{"match": ".", "text": "late", "delay_ms": 3000, "repeat": True}]}
    with scripted_config(tmp_path, slow) as config:
        out = invoke("agent", "--config", str(config), "-m", "hi", "--timeout", "0.5")
        data = json.loads(invoke("agent", "--config", str(config), "-m", "hi", "--timeout",
                                 "0.5", "--session", "other", "--json").stdout)
    assert out.exit_code == 1
    assert "RuntimeError" not in out.stderr and "error (timeout)" in out.stderr
    assert "timed out after 0.5 s" in out.stderr and 'provider "local"' in out.stderr
    assert "--timeout" in out.stderr  # what to do
    assert data["terminal"] == "timeout"
    assert data["error"]["type"] == "timeout" and data["error"]["url"].endswith("/v1")
    assert data["error"]["provider"] == "local" and data["error"]["model"] == "local/m"


def test_a_provider_error_answer_says_which_provider_refused(tmp_path: Path) -> None:
    script = {"responses": [{"match": ".", "error": {"status": 401, "message": "bad key",
                                                     "type": "authentication_error"}}]}
    with scripted_config(tmp_path, script) as config:
        data = json.loads(invoke("agent", "--config", str(config), "-m", "hi", "--json").stdout)
    error = data["error"]
    assert error["type"] == "auth" and error["status"] == 401
    assert 'provider "local"' in error["message"] and "bad key" in error["message"]
    assert "models.providers.local.apiKey" in error["hint"]
