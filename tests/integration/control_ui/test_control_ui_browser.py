"""The Control UI in headless Chromium (Debian's `chromium`, driven by Playwright) against
a real `clawharness serve` answering from the scripted model server.

One walk as a user would take it: sign in (a wrong token first), send with Enter (and a
newline with Shift+Enter), watch the reply stream, a tool call rendered with its name,
arguments, status and result, an exec approval answered inline, usage under each turn,
a reload that keeps the conversation, turns named by time and first words, a second
conversation, a search that finds the first one, the turn inspector, a delete, the
Status page; then a 390 px phone in dark mode. Screenshots land in
`artifacts/control-ui/` (gitignored); any console error (a CSP violation included) fails.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
ARTIFACTS = Path(__file__).resolve().parents[3] / "artifacts" / "control-ui"
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason="Debian's chromium is not installed (scripts/test.sh installs it)"),
]

REPLY = "Hi there! This reply was streamed to you in several small chunks."
SCRIPT = {"responses": [
    {"match": "^hello agent", "text": REPLY,
     "usage": {"input_tokens": 120, "output_tokens": 14}},
    {"match": "^line one", "text": "Both lines arrived."},
    {"match": "^run the command", "text": "Let me run that.",
     "tool_calls": [{"name": "exec", "arguments": {"command": "echo ui-approved"},
                     "id": "call_ui"}]},
    {"match": "ui-approved", "text": "The command printed ui-approved."},
    {"match": "^weather", "text": "Sunny, as far as a scripted model knows."},
]}


def _watch_text_script() -> str:
    """Records every text the newest assistant bubble shows, to see it stream."""
    return """() => {
      window.seenTexts = [];
      new MutationObserver(() => {
        const bubbles = document.querySelectorAll("#conversation .bubble.assistant");
        const last = bubbles[bubbles.length - 1];
        if (last) window.seenTexts.push(last.textContent);
      }).observe(document.querySelector("#conversation"),
                 { childList: true, subtree: true, characterData: true });
    }"""


async def _sign_in(page: Any, token: str) -> None:
    from playwright.async_api import expect

    await page.fill("#token", token)
    await page.click("#sign-in-form button")
    await expect(page.locator("#tabs")).to_be_visible()


async def test_a_day_in_the_control_ui(tmp_path: Path) -> None:
    from playwright.async_api import async_playwright, expect
    from serve_rig import TOKEN, served

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    tools = {"exec": {"security": "full", "ask": "always"}}
    async with served(tmp_path, SCRIPT, tools=tools) as serve, async_playwright() as pw:
        # serve says where the UI is and which HTTP endpoints it answers
        banner = "\n".join(serve.lines)
        assert f"Control UI  {serve.base}/" in banner, banner
        assert "GET /v1/models" in banner and "gateway.http.endpoints.responses.enabled" in banner

        browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            context = await browser.new_context(viewport={"width": 1280, "height": 860},
                                                color_scheme="light")
            page = await context.new_page()
            problems: list[str] = []
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            await page.goto(serve.base + "/")

            # sign in: a wrong token is refused, the right one opens the chat
            await page.fill("#token", "not-the-token")
            await page.click("#sign-in-form button")
            await expect(page.locator("#sign-in-error")).to_contain_text("Sign-in failed")
            await _sign_in(page, TOKEN)
            assert TOKEN not in page.url
            # the chat opens a new conversation once its session list is read
            await expect(page.locator("#conversation-key")).to_have_text(
                re.compile(r"^agent:main:ui-\d{8}-\d{6}$"))
            first_key = await page.locator("#conversation-key").text_content()
            assert first_key

            # Enter sends; the reply streams in
            await page.evaluate(_watch_text_script())
            composer = page.locator("#chat-input")
            await composer.fill("hello agent, how are you?")
            await composer.press("Enter")
            turns = page.locator("#conversation article.turn")
            await expect(turns.nth(0).locator(".bubble.assistant")).to_have_text(REPLY)
            seen = await page.evaluate("window.seenTexts")
            partial = [t for t in seen if t and t != REPLY and REPLY.startswith(t)]
            assert partial, f"the reply did not stream: {seen}"
            await expect(turns.nth(0).locator(".turn-foot .usage")).to_contain_text("120 in")
            # its cost: 120 in at $10/M and 14 out at $20/M
            await expect(turns.nth(0).locator(".turn-foot .cost")).to_have_text("$0.0015")
            await expect(composer).to_have_value("")

            # Shift+Enter is a newline, not a send
            await composer.type("line one")
            await composer.press("Shift+Enter")
            await composer.type("line two")
            await expect(composer).to_have_value("line one\nline two")
            await expect(turns).to_have_count(1)
            await composer.press("Enter")
            await expect(turns.nth(1).locator(".bubble.user")).to_have_text("line one\nline two")
            await expect(turns.nth(1).locator(".bubble.assistant")).to_have_text(
                "Both lines arrived.")

            # a tool call, its approval answered inline, then its result
            await composer.fill("run the command please")
            await composer.press("Enter")
            tool = turns.nth(2).locator(".tool")
            await expect(tool.locator(".tool-name")).to_have_text("exec")
            await expect(tool.locator(".tool-brief")).to_have_text("echo ui-approved")
            await expect(tool).to_have_attribute("data-status", "awaiting-approval")
            approval = tool.locator(".approval")
            await expect(approval).to_contain_text("echo ui-approved")
            await page.screenshot(path=str(ARTIFACTS / "1-approval-inline.png"))
            await approval.get_by_role("button", name="Allow once").click()
            await expect(tool).to_have_attribute("data-status", "ok")
            await expect(tool.locator(".tool-result")).to_have_text("ui-approved")
            await expect(tool.locator(".tool-status")).to_contain_text("done")
            await expect(turns.nth(2).locator(".bubble.assistant")).to_have_text(
                ["Let me run that.", "The command printed ui-approved."])
            await tool.locator(".tool-args summary").click()
            await expect(tool.locator(".tool-args pre")).to_contain_text('"command": "echo ui-approved"')
            await expect(turns.nth(2).locator(".turn-foot .model")).to_have_text("scripted/demo")
            await page.screenshot(path=str(ARTIFACTS / "2-chat.png"))

            # a reload keeps the conversation, turns named by time and first words
            await page.reload()
            await expect(page.locator("#tabs")).to_be_visible()
            await expect(page.locator("#conversation-key")).to_have_text(first_key)
            await expect(turns).to_have_count(3)
            await expect(page.locator(".turn-title")).to_have_text(
                ["hello agent, how are you?", "line one line two", "run the command please"])
            for head in await page.locator(".turn-head").all_text_contents():
                assert re.search(r"\d{1,2}:\d{2}", head) and not UUID.search(head), head
            await expect(turns.nth(0).locator(".bubble.assistant")).to_have_text(REPLY)
            await expect(turns.nth(2).locator(".tool .tool-result")).to_have_text("ui-approved")
            await expect(turns.nth(2).locator(".tool")).to_have_attribute("data-status", "ok")
            await expect(page.locator("#session-list .session.current .session-title")).to_have_text(
                "run the command please")

            # a second conversation, then a search that finds the first one
            await page.click("#new-chat")
            await expect(turns).to_have_count(0)
            await composer.fill("weather today?")
            await composer.press("Enter")
            await expect(turns.nth(0).locator(".bubble.assistant")).to_have_text(
                "Sunny, as far as a scripted model knows.")
            second_key = await page.locator("#conversation-key").text_content()
            assert second_key != first_key
            await expect(page.locator("#session-list .session")).to_have_count(2)
            await page.fill("#search-input", "streamed")
            await page.press("#search-input", "Enter")
            hit = page.locator("#search-results .hit")
            await expect(hit).to_have_count(1)
            await expect(hit).to_contain_text("streamed to you")
            await page.screenshot(path=str(ARTIFACTS / "3-search.png"))
            await hit.click()
            await expect(page.locator("#conversation-key")).to_have_text(first_key)
            await expect(page.locator("#conversation .found")).to_contain_text("streamed")

            # the inspector of the tool turn
            await turns.nth(2).get_by_role("button", name="Inspect").click()
            timeline = page.locator("#timeline")
            await expect(timeline.locator('tr[data-kind="tool.end"]')).to_have_count(1)
            await expect(timeline.locator('tr[data-kind="approval.answered"]')).to_have_count(1)
            await expect(page.locator("#inspector-body")).to_contain_text("allow-once")
            await page.screenshot(path=str(ARTIFACTS / "4-inspector.png"), full_page=True)
            await page.click("#inspector-back")

            # the Sessions page: delete the second conversation after the confirmation
            await page.click('nav button[data-page="sessions"]')
            row = page.locator(f'#session-table tr[data-key="{second_key}"]')
            await expect(row).to_contain_text("weather today?")
            page.once("dialog", lambda dialog: dialog.accept())
            await row.get_by_role("button", name="Delete").click()
            await expect(row).to_have_count(0)
            await expect(page.locator("#session-table tbody tr")).to_have_count(1)

            # the Status page
            await page.click('nav button[data-page="status"]')
            await expect(page.locator("#status-body")).to_contain_text("scripted/demo")
            await page.screenshot(path=str(ARTIFACTS / "5-status.png"))
            assert problems == [], problems
            await context.close()

            # a phone, 390 px wide, in dark mode
            phone = await browser.new_context(viewport={"width": 390, "height": 844},
                                              color_scheme="dark", device_scale_factor=2,
                                              is_mobile=True, has_touch=True)
            page = await phone.new_page()
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            await page.goto(f"{serve.base}/#session={first_key}")
            await _sign_in(page, TOKEN)
            turns = page.locator("#conversation article.turn")
            await expect(turns).to_have_count(3)
            background = await page.evaluate("getComputedStyle(document.body).backgroundColor")
            red, green, blue = (int(v) for v in re.findall(r"\d+", background)[:3])
            assert red + green + blue < 120, f"not dark: {background}"
            width = await page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, f"the page scrolls sideways: {width} px"
            await expect(page.locator("#sidebar")).to_be_hidden()
            await expect(page.locator("#chat-input")).to_be_visible()
            await page.screenshot(path=str(ARTIFACTS / "6-phone-dark.png"))
            await page.click("#sidebar-toggle")
            await expect(page.locator("#sidebar")).to_be_visible()
            await page.screenshot(path=str(ARTIFACTS / "7-phone-dark-drawer.png"))
            await page.locator("#session-list .session").first.click()
            await expect(page.locator("#sidebar")).to_be_hidden()
            await page.click('nav button[data-page="sessions"]')
            width = await page.evaluate("document.documentElement.scrollWidth")
            assert width <= 390, f"the sessions page scrolls sideways: {width} px"
            await page.screenshot(path=str(ARTIFACTS / "8-phone-dark-sessions-page.png"))
            assert problems == [], problems
            await phone.close()
        finally:
            await browser.close()
