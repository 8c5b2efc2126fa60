"""The tool-call session the real-model tests and `clawharness demo --real-model` start from.

SmolLM2-135M calls a tool reliably only when the history already shows one call (see
docs/real-model.md), so a session starts with one turn on a scripted model: asked
`SEED_REQUEST`, it calls `ls` (the host runs the real tool on the workspace) and answers
`SEED_ANSWER`. Then `READ_REQUEST` to the real model makes it call `read` on todo.txt.
Tools other than `read` and `ls` are left out (`TOOLS_POLICY`): with the full default set
the model's first-token margin for the call shrank from 1.25 to 0.2 in log probability.
"""

from __future__ import annotations

from typing import Any

__all__ = ["READ_REQUEST", "SEED_ANSWER", "SEED_REQUEST", "SEED_SCRIPT", "TOOLS_POLICY",
           "WORKSPACE_FILES", "scripted_provider"]

#: the workspace such a session starts with
WORKSPACE_FILES = {"notes.txt": "buy milk\n", "todo.txt": "call the plumber\n"}
SEED_REQUEST = "Use the ls tool to list the workspace."
SEED_ANSWER = "The workspace has notes.txt and todo.txt."
#: what the real model is asked after the seed turn: it answers with a `read` call
READ_REQUEST = "Use the read tool to read todo.txt."
#: `tools` in the config: only the two tools the session uses
TOOLS_POLICY: dict[str, Any] = {"allow": ["read", "ls"]}
#: the scripted model's part: the `ls` call, then the answer once its result is back
SEED_SCRIPT: dict[str, Any] = {"responses": [
    {"match": "ls tool", "repeat": True, "tool_calls": [{"name": "ls", "arguments": {}}]},
    {"match": "todo.txt", "repeat": True, "text": SEED_ANSWER},
]}


def scripted_provider(base_url_openai: str) -> dict[str, Any]:
    """The `models.providers.scripted` entry for the seed turn (model `scripted/m`)."""
    return {"baseUrl": base_url_openai, "api": "openai-completions", "apiKey": "offline",
            "models": [{"id": "m"}]}
