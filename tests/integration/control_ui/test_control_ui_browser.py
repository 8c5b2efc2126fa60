"""The Control UI in headless Chromium (Debian's `chromium`, driven by Playwright).

One walk through the page against a real gateway (real `Host`, scripted model): sign in,
a streamed reply, an exec approval answered in the page, the session opened and searched,
the inspector of the tool turn with its timeline, a delete with its confirmation, status.
Screenshots go to `artifacts/control-ui/` (gitignored).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARTIFACTS = Path(__file__).resolve().parents[3] / "artifacts" / "control-ui"

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason="Debian's chromium is not installed (scripts/test.sh installs it)"),
]

SCRIPT = {"responses": [
    {"match": "^hello", "text": "Hi there, this reply was streamed."},
    {"match": "^run", "tool_calls": [{"name": "exec", "arguments": {"command": "echo ui-approved"},
                                      "id": "call_ui"}]},
    {"text": "The command ran after approval."},
]}


async def test_sign_in_chat_approve_inspect_and_delete(tmp_path: Path) -> None:
    from http_support import TOKEN, serve_factory
    from playwright.async_api import async_playwright, expect

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    serve = serve_factory(tmp_path)
    tools = {"exec": {"security": "full", "ask": "always"}}
    async with serve(SCRIPT, tools=tools) as served, async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True,
                                           args=["--no-sandbox"])
        try:
            page = await browser.new_page()
            problems: list[str] = []
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            await page.goto(served.base + "/")

            # sign in: a wrong token is refused, the right one opens the app
            await page.fill("#token", "not-the-token")
            await page.click("#sign-in-form button")
            await expect(page.locator("#sign-in-error")).to_contain_text("Sign-in failed")
            await page.fill("#token", TOKEN)
            await page.click("#sign-in-form button")
            await expect(page.locator("#tabs")).to_be_visible()
            assert TOKEN not in page.url
            stored = await page.evaluate("sessionStorage.getItem('clawharness.gatewayToken')")
            assert stored == TOKEN

            # a streamed reply
            await page.fill("#chat-session", "agent:main:ui-test")
            await page.fill("#chat-input", "hello agent")
            await page.click("#chat-send")
            reply = page.locator('.msg.assistant[data-state="final"]').first
            await expect(reply).to_have_text("Hi there, this reply was streamed.")
            deltas = await reply.get_attribute("data-deltas")
            assert deltas is not None and int(deltas) >= 2, "the reply did not stream"
            await page.screenshot(path=str(ARTIFACTS / "1-chat.png"))

            # an exec approval answered in the page
            await page.fill("#chat-input", "run the command")
            await page.click("#chat-send")
            approval = page.locator(".approval")
            await expect(approval).to_contain_text("exec")
            await page.screenshot(path=str(ARTIFACTS / "2-approval.png"))
            await approval.get_by_role("button", name="Allow once").click()
            await expect(page.locator('.msg.assistant[data-state="final"]').nth(1)).to_have_text(
                "The command ran after approval.")
            await expect(page.locator(".msg.tool").filter(has_text="← exec ok")).to_have_count(1)

            # sessions: search, open, inspect the tool turn
            await page.click('nav button[data-tab="sessions"]')
            await page.fill("#search-input", "streamed")
            await page.click("#search-form button")
            await expect(page.locator(".hit").first).to_contain_text("agent:main:ui-test")
            row = page.locator('#session-table tr[data-key="agent:main:ui-test"]')
            await row.get_by_role("button", name="Open").click()
            await expect(page.locator("#session-history")).to_contain_text("ui-approved")
            turns = page.locator("#turn-table tbody tr")
            await expect(turns).to_have_count(2)
            tool_turn = turns.filter(has=page.locator("td:nth-child(4)", has_text="1"))
            await tool_turn.get_by_role("button", name="Inspect").click()
            timeline = page.locator("#timeline")
            await expect(timeline.locator('tr[data-kind="tool.end"]')).to_have_count(1)
            await expect(timeline.locator('tr[data-kind="approval.answered"]')).to_have_count(1)
            await expect(page.locator("#inspector")).to_contain_text("allow-once")
            await expect(page.locator("#inspector")).to_contain_text("echo ui-approved")
            await page.screenshot(path=str(ARTIFACTS / "3-inspector.png"), full_page=True)

            # status
            await page.click('nav button[data-tab="status"]')
            await expect(page.locator("#status-body")).to_contain_text("scripted/m")

            # delete, with the confirmation accepted
            await page.click('nav button[data-tab="sessions"]')
            await row.get_by_role("button", name="Open").click()
            page.once("dialog", lambda dialog: dialog.accept())
            await page.click("#session-delete")
            await expect(row).to_have_count(0)
            assert all(r.key != "agent:main:ui-test" for r in await served.host.list_sessions())
            await page.screenshot(path=str(ARTIFACTS / "4-deleted.png"))
            assert problems == [], problems  # CSP violations and script errors land here
        finally:
            await browser.close()
