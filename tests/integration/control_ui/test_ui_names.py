"""The page's JavaScript uses only names the Python schema defines (or the browser's own).

Every property name `static/*.js` reads or writes (`x.name`), and every key it writes in
an object literal (`{name: ...}`, `{name}`), must be a wire name of a model in
`gateway/control_ui/schema.py` / `wire.py` (`ui_field_names()`), a name of the browser's
own objects (asked of real Chromium, not listed by hand), or a name the page's own code
declares (a class's methods and `this.x` fields, its functions and constants). So a
field read as `turn.run_id` or `turn.runID` fails here, as does a schema name that
changed on one side only. Write literal keys that are not such names (HTML attribute
names) as strings: `{"datetime": ...}`.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from clawharness.gateway.control_ui.schema import ui_field_names

CHROMIUM = "/usr/bin/chromium"
STATIC = Path(__file__).resolve().parents[3] / "src" / "clawharness" / "gateway" / \
    "control_ui" / "static"
IDENT = r"[A-Za-z_$][\w$]*"
KEYWORDS = frozenset({
    "await", "break", "case", "catch", "class", "const", "continue", "default", "delete",
    "do", "else", "export", "extends", "false", "finally", "for", "function", "if",
    "import", "in", "instanceof", "let", "new", "null", "of", "return", "static", "super",
    "switch", "this", "throw", "true", "try", "typeof", "undefined", "var", "void", "while",
    "yield", "async"})

#: the browser's objects whose property names (along each prototype chain) the page may use
BROWSER_NAMES = """() => {
  const names = new Set();
  const add = (value) => {
    for (let p = value; p; p = Object.getPrototypeOf(p)) {
      for (const name of Object.getOwnPropertyNames(p)) names.add(name);
    }
  };
  const tags = ["div", "input", "textarea", "button", "form", "select", "option", "details",
                "summary", "time", "pre", "table", "code", "li", "ul", "article", "header",
                "footer", "span", "p", "h2", "h3", "section", "aside", "nav", "strong", "td"];
  for (const tag of tags) add(document.createElement(tag));
  const objects = [window, document, document.body.classList, document.body.style,
    new KeyboardEvent("keydown"), new MouseEvent("click"), new MessageEvent("message"),
    new CloseEvent("close"), new Event("x"), sessionStorage, location, history, [],
    String.prototype, Number.prototype, {}, new Map(), new Set(), Promise.resolve(), JSON, Math, new Date(), Date, Intl,
    new Intl.NumberFormat(), new Intl.DateTimeFormat(), Object, Array, Number, String,
    new Error("x"), new URLSearchParams(), new Headers(), new Response(""), crypto,
    console, document.createTextNode(""), WebSocket.prototype, new RegExp("x"), CSS,
    new Intl.DateTimeFormat(undefined, { hour: "2-digit", minute: "2-digit",
      weekday: "short", day: "numeric", month: "short" }).resolvedOptions()];
  for (const value of objects) add(value);
  return Array.from(names);
}"""

pytestmark = [
    pytest.mark.integration,
    pytest.mark.skipif(not os.path.exists(CHROMIUM),
                       reason="Debian's chromium is not installed (scripts/test.sh installs it)"),
]


def code_only(source: str) -> str:
    """The source without comments and without the text of string literals (a template
    literal's `${...}` expressions stay: they are code)."""
    out: list[str] = []
    i, n = 0, len(source)
    stack: list[str] = []  # "`" while inside a template, "{" for braces inside ${...}
    while i < n:
        c = source[i]
        in_template = bool(stack) and stack[-1] == "`"
        if in_template:
            if c == "\\":
                i += 2
            elif c == "`":
                stack.pop()
                out.append('""')
                i += 1
            elif source.startswith("${", i):
                stack.append("{")
                out.append(" (")
                i += 2
            else:
                i += 1
            continue
        if source.startswith("//", i):
            i = source.find("\n", i)
            i = n if i < 0 else i
        elif source.startswith("/*", i):
            i = source.index("*/", i) + 2
        elif c in "\"'":
            j = i + 1
            while source[j] != c:
                j += 2 if source[j] == "\\" else 1
            out.append('""')
            i = j + 1
        elif c == "`":
            stack.append("`")
            i += 1
        elif c == "{" and stack:
            stack.append("{")
            out.append(c)
            i += 1
        elif c == "}" and stack:
            stack.pop()
            out.append(") " if not stack or stack[-1] == "`" else c)
            i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def used_names(code: str) -> set[str]:
    """Property names accessed, and keys written in object literals."""
    names = set(re.findall(rf"(?<=[\w$)\]])\??\.\s*({IDENT})", code))
    names |= set(re.findall(rf"[{{,]\s*({IDENT})\s*:(?!:)", code))
    for group in re.findall(rf"\{{\s*({IDENT}(?:\s*,\s*{IDENT})*)\s*,?\s*\}}", code):
        names |= {name.strip() for name in group.split(",")}
    return {name for name in names if name not in KEYWORDS}


def declared_names(code: str) -> set[str]:
    """Names the page's own code declares: functions, classes, constants, variables,
    methods (`name(...) {`) and fields (`this.name =`)."""
    names = set(re.findall(rf"\b(?:function|class|const|let|var)\s+({IDENT})", code))
    names |= set(re.findall(rf"^\s*(?:async\s+)?({IDENT})\s*\([^()]*\)\s*\{{", code, re.M))
    names |= set(re.findall(rf"\bthis\.({IDENT})\s*=[^=]", code))
    return names - KEYWORDS


def unknown_names(sources: dict[str, str], allowed: set[str]) -> dict[str, set[str]]:
    codes = {name: code_only(text) for name, text in sources.items()}
    declared = set().union(*(declared_names(code) for code in codes.values()))
    return {name: bad for name, code in codes.items()
            if (bad := used_names(code) - allowed - declared)}


@pytest.fixture(scope="module")
def browser_names() -> set[str]:
    import asyncio

    from playwright.async_api import async_playwright

    async def ask() -> set[str]:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(
                executable_path=CHROMIUM, headless=True,
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking"])
            try:
                page = await browser.new_page()
                # a page of its own origin (localhost is a secure context, as the UI's is)
                await page.route("http://localhost/", lambda route: route.fulfill(
                    body="<!doctype html><body></body>", content_type="text/html"))
                await page.goto("http://localhost/")
                return set(await page.evaluate(BROWSER_NAMES))
            finally:
                await browser.close()

    return asyncio.run(ask())


def _sources() -> dict[str, str]:
    return {path.name: path.read_text() for path in sorted(STATIC.glob("*.js"))}


def test_the_page_uses_only_schema_and_browser_names(browser_names: set[str]) -> None:
    sources = _sources()
    assert {"app.js", "chat.js", "render.js"} <= set(sources)
    allowed = set(ui_field_names()) | browser_names
    assert unknown_names(sources, allowed) == {}


def test_the_schema_is_camel_case_only() -> None:
    names = ui_field_names()
    assert "runId" in names and "toolCallId" in names and "totalTokens" in names
    assert [n for n in names if "_" in n] == []


def test_a_misspelt_or_snake_case_field_is_caught(browser_names: set[str]) -> None:
    sources = _sources()
    allowed = set(ui_field_names()) | browser_names
    bad = dict(sources)
    bad["chat.js"] += ("\nfunction broken(turn) { return turn.run_id + turn.runID; }\n"
                       "const sent = { sessionkey: 1 };\n"
                       "const short = { toolcallid };\n")
    found = unknown_names(bad, allowed)
    assert found == {"chat.js": {"run_id", "runID", "sessionkey", "toolcallid"}}


def test_the_scanner_reads_templates_strings_and_comments_right() -> None:
    code = code_only('const a = `x ${turn.runId} "y" ${ {k: 1}.k }`; // b.c\n'
                     '/* d.e */ f("g.h", \'i.j\');')
    assert used_names(code) == {"runId", "k"}
