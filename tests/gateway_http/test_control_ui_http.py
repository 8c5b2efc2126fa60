"""The Control UI's page and `/ui/api/...` over HTTP (the browser walk is in
tests/integration/control_ui)."""

from __future__ import annotations

import httpx
from http_support import TOKEN, ServeFactory

AUTH = {"authorization": f"Bearer {TOKEN}"}


async def test_the_page_and_modules_are_served_with_a_strict_csp(serve: ServeFactory) -> None:
    async with serve({"responses": [{"text": "x"}]}) as served, httpx.AsyncClient() as http:
        page = await http.get(f"{served.base}/")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert '<script type="module" src="/ui/app.js">' in page.text
        csp = page.headers["content-security-policy"]
        assert "script-src 'self'" in csp and "frame-ancestors 'none'" in csp
        script = await http.get(f"{served.base}/ui/app.js")
        assert script.headers["content-type"].startswith("text/javascript")
        assert (await http.get(f"{served.base}/ui/nothing.js")).status_code == 404


async def test_ui_api_needs_the_token_and_names_what_is_missing(serve: ServeFactory) -> None:
    async with serve({"responses": [{"text": "x"}]}) as served, httpx.AsyncClient() as http:
        assert (await http.get(f"{served.base}/ui/api/status")).status_code == 401
        status = await http.get(f"{served.base}/ui/api/status", headers=AUTH)
        agents = status.json()["status"]["agents"]
        assert {a["agentId"] for a in agents} == {"main", "helper"}
        missing = await http.get(f"{served.base}/ui/api/turns/nope", headers=AUTH)
        assert missing.status_code == 404 and "nope" in missing.json()["error"]["message"]
        empty = await http.get(f"{served.base}/ui/api/search", headers=AUTH)
        assert empty.status_code == 400 and empty.json()["error"]["param"] == "q"


async def test_the_ui_can_be_switched_off(serve: ServeFactory) -> None:
    gateway = {"port": 0, "auth": {"mode": "token", "token": TOKEN},
               "controlUi": {"enabled": False}}
    async with serve({"responses": [{"text": "x"}]}, gateway=gateway) as served, \
            httpx.AsyncClient() as http:
        assert (await http.get(f"{served.base}/")).status_code == 404
        assert (await http.get(f"{served.base}/ui/api/status", headers=AUTH)).status_code == 404
