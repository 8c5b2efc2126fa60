"""A page of another origin cannot start a turn on the gateway (issue 31), tried in
headless Chromium (Debian's `chromium`, driven by Playwright) as an attacker's page would:
a `text/plain` POST with `mode: "no-cors"` (no preflight), a JSON POST (preflighted), a
`sendBeacon`, a WebSocket `connect` + `agent`, and a form POST. The page is served from
another port of 127.0.0.1 (another origin) and, for DNS rebinding, from a name Chromium
resolves to 127.0.0.1 on the gateway's own port. The same script run on the gateway's own
origin does start a turn, so the rig would see one."""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--host-resolver-rules=MAP rebind.test 127.0.0.1"]

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason="Debian's chromium is not installed (scripts/test.sh installs it)"),
]

SCRIPT = {"responses": [{"text": "a turn ran"}], "exhausted": "text"}
GATEWAY = {"port": 0, "auth": {"mode": "none"},
           "http": {"endpoints": {"chatCompletions": {"enabled": True},
                                  "responses": {"enabled": True}}}}
BODY = json.dumps({"model": "openclaw", "messages": [{"role": "user", "content": "pwned"}]})

#: everything a page can try without a token; resolves to what each attempt saw
ATTACK = """async ([gateway, body, token]) => {
  const seen = {};
  const auth = token ? {"Authorization": "Bearer " + token} : {};
  try {
    await fetch(gateway + "/v1/chat/completions", {method: "POST", mode: "no-cors",
      headers: {"Content-Type": "text/plain"}, body});
    seen.simplePost = "sent";
  } catch (err) { seen.simplePost = "failed: " + err; }
  try {
    const answer = await fetch(gateway + "/v1/chat/completions", {method: "POST",
      headers: {"Content-Type": "application/json", ...auth}, body});
    seen.jsonPost = answer.status;
  } catch (err) { seen.jsonPost = "failed: " + err; }
  seen.beacon = navigator.sendBeacon(gateway + "/v1/responses",
    new Blob([JSON.stringify({model: "openclaw", input: "pwned"})], {type: "text/plain"}));
  seen.websocket = await new Promise((resolve) => {
    let socket;
    try { socket = new WebSocket(gateway.replace("http", "ws") + "/"); }
    catch (err) { resolve("failed: " + err); return; }
    socket.onmessage = (message) => {
      const frame = JSON.parse(message.data);
      if (frame.event === "connect.challenge") {
        socket.send(JSON.stringify({type: "req", id: "c", method: "connect", params: {
          minProtocol: 4, maxProtocol: 4, role: "operator", scopes: ["operator.write"],
          client: {id: "cli", version: "1", platform: "web", mode: "cli"},
          ...(token ? {auth: {token}} : {})}}));
      } else if (frame.id === "c") {
        socket.send(JSON.stringify({type: "req", id: "a", method: "agent",
          params: {message: "pwned", idempotencyKey: "attack-" + Math.random()}}));
      } else if (frame.id === "a") {
        resolve("agent answered " + (frame.ok ? "ok" : "error"));
      }
    };
    socket.onerror = () => resolve("error");
    socket.onclose = (event) => resolve("closed " + event.code);
    setTimeout(() => resolve("no answer"), 10000);
  });
  return seen;
}"""

FORM = """([gateway, body]) => {
  const form = document.createElement("form");
  form.method = "POST"; form.enctype = "text/plain";
  form.action = gateway + "/v1/chat/completions";
  const field = document.createElement("input");
  field.name = body.slice(0, -2); field.value = body.slice(-2);
  form.appendChild(field); document.body.appendChild(form); form.submit();
}"""


@contextmanager
def attacker_site() -> Iterator[str]:
    """A page on another origin: another port of 127.0.0.1."""
    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            page = b"<!doctype html><title>elsewhere</title><body>another origin</body>"
            self.send_response(200)
            self.send_header("content-type", "text/html")
            self.send_header("content-length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, *_args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


async def turns_run(served: Any) -> tuple[int, list[str]]:
    return len(served.model.requests), [s.key for s in await served.host.list_sessions()]


async def test_a_page_of_another_origin_cannot_start_a_turn(tmp_path: Path) -> None:
    from http_support import serve_factory
    from playwright.async_api import async_playwright

    serve = serve_factory(tmp_path)
    with attacker_site() as elsewhere:
        async with serve(SCRIPT, gateway=GATEWAY) as served, async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                               args=FLAGS)
            try:
                page = await browser.new_page()
                gateway = served.base
                port = served.server.port

                # another port of the same machine
                await page.goto(elsewhere + "/")
                seen = await page.evaluate(ATTACK, [gateway, BODY, None])
                assert seen["jsonPost"] != 200, seen  # the preflight is never granted
                assert not str(seen["websocket"]).startswith("agent answered"), seen

                # DNS rebinding: a name of the attacker's resolving to 127.0.0.1, on the
                # gateway's own port, so the page is same-origin with the gateway
                rebound = f"http://rebind.test:{port}"
                answer = await page.goto(rebound + "/")
                assert answer is not None and answer.status == 403
                seen_rebound = await page.evaluate(ATTACK, [rebound, BODY, None])
                assert seen_rebound["jsonPost"] == 403, seen_rebound
                assert not str(seen_rebound["websocket"]).startswith("agent answered")

                # a form POST from another origin (a navigation with an Origin header)
                await page.goto(elsewhere + "/")
                async with page.expect_navigation():
                    await page.evaluate(FORM, [gateway, BODY])
                assert "origin_not_allowed" in await page.content()

                assert await turns_run(served) == (0, [])

                # the same script on the gateway's own origin does run turns
                await page.goto(gateway + "/health")
                seen_own = await page.evaluate(ATTACK, [gateway, BODY, None])
                assert seen_own["jsonPost"] == 200, seen_own
                assert seen_own["websocket"] == "agent answered ok", seen_own
                requests, sessions = await turns_run(served)
                assert requests == 2 and len(sessions) == 2, (requests, sessions)
            finally:
                await browser.close()


async def test_with_a_token_a_page_of_another_origin_that_holds_it_cannot_act(
        tmp_path: Path) -> None:
    # the token is no ambient credential, but even a page that has it gets no CORS grant
    # for HTTP and no WebSocket from another origin
    from http_support import TOKEN, serve_factory
    from playwright.async_api import async_playwright

    gateway_config = {**GATEWAY, "auth": {"mode": "token", "token": TOKEN}}
    serve = serve_factory(tmp_path)
    with attacker_site() as elsewhere:
        async with serve(SCRIPT, gateway=gateway_config) as served, \
                async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                               args=FLAGS)
            try:
                page = await browser.new_page()
                await page.goto(elsewhere + "/")
                seen = await page.evaluate(ATTACK, [served.base, BODY, TOKEN])
                assert seen["jsonPost"] != 200, seen
                assert not str(seen["websocket"]).startswith("agent answered"), seen
                assert await turns_run(served) == (0, [])
                # the same page on the gateway's own origin, with the token, acts
                await page.goto(served.base + "/health")
                seen_own = await page.evaluate(ATTACK, [served.base, BODY, TOKEN])
                assert seen_own["jsonPost"] == 200, seen_own
                assert seen_own["websocket"] == "agent answered ok", seen_own
            finally:
                await browser.close()
