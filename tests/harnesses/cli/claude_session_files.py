"""Claude Code session files for tests, line for line in the shape Claude Code 2.1 writes
(as observed from the real CLI: tests/integration/cli/test_claude_cli_portable.py reads
files the CLI itself wrote)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

SESSION = "04b9692a-f263-42ab-a5b0-b60236e1cec9"
CWD = "/home/someone/project"


def line(kind: str, uuid: str, parent: str | None, message: dict[str, Any] | None = None,
         **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"parentUuid": parent, "isSidechain": False, "type": kind,
                           "uuid": uuid, "timestamp": "2026-12-06T22:04:23.328Z",
                           "userType": "external", "entrypoint": "sdk-cli", "cwd": CWD,
                           "sessionId": SESSION, "version": "2.1.197", "gitBranch": "HEAD"}
    if message is not None:
        out["message"] = message
    out.update(extra)
    return out


def user(uuid: str, parent: str | None, content: Any, **extra: Any) -> dict[str, Any]:
    return line("user", uuid, parent, {"role": "user", "content": content}, **extra)


def reply(uuid: str, parent: str, msg_id: str, *blocks: dict[str, Any],
          stop: str = "end_turn", **extra: Any) -> dict[str, Any]:
    return line("assistant", uuid, parent, {
        "id": msg_id, "type": "message", "role": "assistant", "model": "claude-opus-5",
        "content": list(blocks), "stop_reason": stop, "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 2}}, **extra)


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def conversation() -> list[dict[str, Any]]:
    """A session with a text exchange, a Bash call split over two lines of one reply, its
    result, the CLI's own bookkeeping and a sub-agent's line."""
    return [
        {"type": "queue-operation", "operation": "enqueue", "sessionId": SESSION,
         "timestamp": "2026-12-06T22:04:23.096Z", "content": "remember"},
        user("u1", None, "remember: the code word is pelican", promptId="p1"),
        line("attachment", "at1", "u1", attachment={"type": "skill_listing", "content": "x"}),
        reply("a1", "at1", "msg_1", text("noted: the code word is pelican")),
        {"type": "last-prompt", "lastPrompt": "remember", "leafUuid": "a1",
         "sessionId": SESSION},
        user("u2", "a1", "list the files please"),
        user("m1", "u2", "<system-reminder>context</system-reminder>", isMeta=True),
        reply("a2", "m1", "msg_2", {"type": "thinking", "thinking": "hmm", "signature": "s"},
              stop="tool_use"),
        reply("a3", "a2", "msg_2", text("Let me look."), stop="tool_use"),
        reply("a4", "a3", "msg_2", {"type": "tool_use", "id": "toolu_1", "name": "Bash",
                                    "input": {"command": "ls"}}, stop="tool_use"),
        user("u3", "a4", [{"tool_use_id": "toolu_1", "type": "tool_result",
                           "content": "a.txt\nb.txt", "is_error": False}],
             toolUseResult={"stdout": "a.txt\nb.txt"}, sourceToolAssistantUUID="a4"),
        {**reply("s1", "u3", "msg_side", text("sub-agent talk")), "isSidechain": True},
        reply("a5", "u3", "msg_3", text("Two files: a.txt and b.txt.")),
        {"type": "last-prompt", "lastPrompt": "list", "leafUuid": "a5", "sessionId": SESSION},
        {"type": "mode", "mode": "normal", "sessionId": SESSION},
    ]


def write_session(folder: Path, lines: list[dict[str, Any]], *, session: str = SESSION,
                  tail: str = "\n") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{session}.jsonl"
    path.write_text("\n".join(json.dumps(o) for o in lines) + tail)
    return path


CODEX_ROLLOUT_LINE = {"timestamp": "2026-12-06T22:04:43.226Z", "ordinal": 0,
                      "type": "session_meta",
                      "payload": {"id": "01a24d63-4cb2-7182-861f-700078109f27",
                                  "cwd": "/tmp/x", "cli_version": "0.169.0"}}
