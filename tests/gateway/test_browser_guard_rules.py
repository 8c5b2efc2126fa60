"""The browser rules of the gateway's port (`gateway.browser_guard`), as a pure function."""

from __future__ import annotations

import pytest

from clawharness.gateway.browser_guard import browser_refusal, is_loopback_name


@pytest.mark.parametrize("name", ["localhost", "LOCALHOST", "app.localhost", "127.0.0.1",
                                  "127.1.2.3", "[::1]", "::1", "localhost."])
def test_loopback_names(name: str) -> None:
    assert is_loopback_name(name)


@pytest.mark.parametrize("name", ["evil.com", "localhost.evil.com", "127.0.0.1.nip.io",
                                  "0.0.0.0", "192.168.1.2", "[::]", "", "localhos"])
def test_not_loopback_names(name: str) -> None:
    assert not is_loopback_name(name)


def refusal(mode: str = "none", method: str = "POST", **headers: str) -> str | None:
    return browser_refusal(method, {k.replace("_", "-"): v for k, v in headers.items()},
                           auth_mode=mode)


@pytest.mark.parametrize("mode", ["none", "token"])
def test_no_origin_or_the_gateways_own_origin_passes(mode: str) -> None:
    assert refusal(mode, host="127.0.0.1:18789") is None
    assert refusal(mode, host="127.0.0.1:18789", origin="http://127.0.0.1:18789") is None
    assert refusal(mode, host="localhost:18789", origin="http://LOCALHOST:18789/") is None
    assert refusal(mode, host="localhost", origin="http://localhost:80") is None
    assert refusal(mode, host="[::1]:9", origin="http://[::1]:9") is None
    # behind a TLS proxy: the Host has no port, the origin is https on its default
    assert refusal("token", host="gw.example", origin="https://gw.example") is None
    assert refusal("token", host="gw.example", origin="https://gw.example:8443") is not None
    assert refusal(mode, host="127.0.0.1:18789", sec_fetch_site="same-origin") is None
    assert refusal(mode, host="127.0.0.1:18789", sec_fetch_site="none") is None


@pytest.mark.parametrize("mode", ["none", "token"])
@pytest.mark.parametrize("origin", [
    "http://127.0.0.1:8000",          # another port of the same machine
    "http://localhost:18789",         # another host name for the same port
    "https://127.0.0.1",              # another scheme's default port
    "http://evil.com", "null", "file://", "chrome-extension://abc", "http://127.0.0.1:18789/x",
    "http://user@127.0.0.1:18789", "", "http://127.0.0.1:99999"])
def test_any_other_origin_is_refused(mode: str, origin: str) -> None:
    reason = refusal(mode, host="127.0.0.1:18789", origin=origin)
    assert reason is not None and "Origin" in reason


def test_without_auth_the_host_must_be_a_loopback_name() -> None:
    # DNS rebinding: the page is same-origin with itself, its Host is its own domain
    reason = refusal("none", host="rebind.example:18789", origin="http://rebind.example:18789")
    assert reason is not None and "'rebind.example'" in reason and "rebinding" in reason
    assert refusal("none", host="rebind.example:18789") is not None
    assert refusal("none") is not None  # no Host at all
    assert refusal("none", host="127.0.0.1:notaport") is not None
    # with a token, a LAN name is how the gateway is reached
    assert refusal("token", host="gateway.lan:18789",
                   origin="http://gateway.lan:18789") is None


@pytest.mark.parametrize("mode", ["none", "token"])
def test_fetch_metadata_refuses_what_origin_does_not_show(mode: str) -> None:
    for site in ("cross-site", "same-site", "Cross-Site"):
        for method in ("GET", "POST"):
            assert refusal(mode, method=method, host="127.0.0.1:1", sec_fetch_site=site,
                           sec_fetch_mode="no-cors") is not None
        # a link followed to the Control UI is a navigation and acts on nothing
        assert refusal(mode, method="GET", host="127.0.0.1:1", sec_fetch_site=site,
                       sec_fetch_mode="navigate") is None
        assert refusal(mode, method="POST", host="127.0.0.1:1", sec_fetch_site=site,
                       sec_fetch_mode="navigate") is not None
