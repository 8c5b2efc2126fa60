"""The Control UI's fork buttons in headless Chromium against a real `clawharness serve`
and the scripted model server: "Fork here" on a turn opens a new conversation holding
the turns through it, whose next turn sends them to the model; the Sessions page's
"Fork" asks for a model and runtime and refuses one the route does not allow, saying
why (docs/control-ui.md, docs/portable-sessions.md)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason="Debian's chromium is not installed (scripts/test.sh installs it)"),
]

SCRIPT = {"responses": [
    {"match": "^the ship is called Argo", "text": "Argo it is."},
    {"match": "^and the captain", "text": "Jason, then."},
    {"match": "^which ship", "text": "The Argo."},
]}


async def test_fork_here_and_the_sessions_fork_button(tmp_path: Path) -> None:
    from playwright.async_api import async_playwright, expect
    from serve_rig import TOKEN, served

    async with served(tmp_path, SCRIPT) as serve, async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=ARGS)
        try:
            page = await browser.new_page(viewport={"width": 1280, "height": 860})
            problems: list[str] = []
            page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: problems.append(str(e)))
            await page.goto(serve.base + "/")
            await page.fill("#token", TOKEN)
            await page.click("#sign-in-form button")
            await expect(page.locator("#tabs")).to_be_visible()
            await expect(page.locator("#conversation-key")).to_have_text(
                re.compile(r"^agent:main:ui-"))
            first_key = await page.locator("#conversation-key").text_content()
            assert first_key
            composer = page.locator("#chat-input")
            turns = page.locator("#conversation article.turn")
            for text, reply in (("the ship is called Argo", "Argo it is."),
                                ("and the captain is Jason", "Jason, then.")):
                await composer.fill(text)
                await composer.press("Enter")
                await expect(turns.last.locator(".bubble.assistant")).to_have_text(reply)

            # "Fork here" on the first turn: a new conversation holding that turn only
            await turns.nth(0).get_by_role("button", name="Fork here").click()
            key = page.locator("#conversation-key")
            await expect(key).not_to_have_text(first_key)
            await expect(key).to_contain_text("-fork-")
            await expect(turns).to_have_count(1)
            await expect(turns.nth(0).locator(".bubble.user")).to_have_text(
                "the ship is called Argo")
            sent = len(serve.model.requests)
            await composer.fill("which ship was it?")
            await composer.press("Enter")
            await expect(turns.nth(1).locator(".bubble.assistant")).to_have_text("The Argo.")
            request = json.dumps(serve.model.requests[sent].body)
            assert "the ship is called Argo" in request and "captain" not in request

            # the Sessions page: Fork asks for a model and a runtime; codex cannot run
            # the scripted provider, and the page says so
            await page.click('nav button[data-page="sessions"]')
            row = page.locator(f'#session-table tr[data-key="{first_key}"]')
            answers = iter(["", "codex"])
            page.on("dialog", lambda dialog: dialog.accept(next(answers)))
            await row.get_by_role("button", name="Fork").click()
            await expect(page.locator("#conn-state")).to_contain_text(
                "cannot fork onto runtime codex")
            await expect(page.locator("#session-table tbody tr")).to_have_count(2)
            assert [p for p in problems if "cannot fork" not in p] == [], problems
        finally:
            await browser.close()
