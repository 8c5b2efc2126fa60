"""`clawharness demo`: the main job on a fresh machine — no key, no network.

Starts the scripted model server on loopback, writes a config pointing the `scripted`
provider at it, and runs a short multi-turn session through the whole host path (the
built-in runtime, the real OpenAI SDK over HTTP, host tools, tool policy, the SQLite
transcript), then shows the transcript and a search over it.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.panel import Panel

from clawharness.cli.common import console, run_async

__all__ = ["DEMO_SCRIPT", "register", "run_demo"]

DEMO_SCRIPT: dict[str, Any] = {
    "responses": [
        {"match": "^hello", "text": "Hello! I am running offline against a scripted model. "
                                    "Ask me to take a note."},
        {"match": "take a note", "tool_calls": [
            {"name": "write", "arguments": {"path": "notes/todo.md",
                                            "content": "- try clawharness\n- read the transcript\n"}}]},
        {"match": "Wrote|wrote", "text": "Saved your note to notes/todo.md."},
        {"match": "what is in", "tool_calls": [{"name": "read", "arguments": {"path": "notes/todo.md"}}]},
        {"match": "try clawharness", "text": "The note says: try clawharness, then read the transcript."},
    ],
    "exhausted": "text",
}

DEMO_TURNS = ("hello there", "please take a note for me", "what is in my note?")


async def run_demo(state_dir: Path, *, quiet: bool = False) -> list[Any]:
    """Run the demo session in `state_dir`; returns the turn results."""
    from clawharness.attempt.turn import TurnOptions
    from clawharness.cli.sessions_cmd import render_transcript
    from clawharness.host import Host
    from clawharness.testing import ScriptedModelServer

    results = []
    async with ScriptedModelServer(DEMO_SCRIPT) as server:
        config_path = state_dir / "config.json5"
        config_path.write_text(json.dumps({
            "models": {"providers": {"scripted": {
                "baseUrl": server.base_url_openai, "api": "openai-responses", "apiKey": "offline-demo",
                "models": [{"id": "demo-model"}]}}},
            "agents": {"defaults": {"model": "scripted/demo-model",
                                    "workspace": str(state_dir / "workspace")}},
        }, indent=2))
        env = {"CLAWHARNESS_STATE_DIR": str(state_dir)}
        async with Host.from_config(config_path, env=env) as host:
            for text in DEMO_TURNS:
                if not quiet:
                    console.print(f"[bold cyan]you[/]  {text}", highlight=False)
                result = await host.run_turn("agent:main:demo", text, TurnOptions())
                results.append(result)
                if not quiet:
                    tools = ", ".join(f"{c['name']}({'ok' if c['ok'] else 'failed'})" for c in result.tool_calls)
                    console.print(f"[bold green]agent[/] {result.text}" + (f"  [dim]tools: {tools}[/]" if tools else ""),
                                  highlight=False)
            if not quiet:
                entries = await host.history("agent:main:demo")
                console.print(Panel.fit("transcript of agent:main:demo (SQLite, "
                                        f"{host.store.url})", style="bold"))
                render_transcript(entries)
                hits = await host.search("note")
                console.print(f"[bold]search 'note'[/]: {len(hits)} hit(s) in "
                              f"{len({h.session_key for h in hits})} session(s)", highlight=False)
    return results


def register(app: typer.Typer) -> None:
    @app.command("demo")
    def demo(state_dir: Annotated[Path | None, typer.Option(help="Keep state here (default: a temp dir).")] = None) -> None:
        """Run a short offline agent session end to end and show its transcript."""
        async def go() -> list[Any]:
            if state_dir is not None:
                state_dir.mkdir(parents=True, exist_ok=True)
                return await run_demo(state_dir)
            with tempfile.TemporaryDirectory(prefix="clawharness-demo-") as tmp:
                return await run_demo(Path(tmp))
        results = run_async(go, as_json=False)
        if any(r.terminal != "ok" for r in results):
            console.print("[red]demo turn failed[/]")
            raise typer.Exit(1)
        console.print("[green]demo complete[/]")
