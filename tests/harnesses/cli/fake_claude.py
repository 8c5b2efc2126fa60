"""A fake `claude -p` speaking Claude Code's two-way stream-json control protocol.

What a turn does depends on the prompt's first word:

    text WORDS     streams WORDS and ends the turn
    tool CMD       asks can_use_tool for Bash {"command": CMD}; reports the answer as the
                   tool result ("ran: <command actually allowed>" or the deny message)
    hang MARKER    runs `sleep` in a new session (as Claude Code's Bash does) and waits;
                   an interrupt ends the turn with error_during_execution
    stubborn M     the same, but ignores the interrupt
    crash          exits with status 3 in the middle of the turn
    error          ends the turn with an API error result
    gone WORDS     streams WORDS, then reports the resumed conversation missing (what the
                   real CLI never does after output: it tests the no-replay rule)
    host TOOL ARGS calls TOOL (ARGS: JSON) of the `type: "sdk"` MCP server `--mcp-config`
                   names, as Claude Code does: `mcp_message` control requests (initialize
                   and tools/list once per process, can_use_tool, then tools/call naming
                   the tool use in `_meta`); the result is JSON {"listed", "text",
                   "isError"} (or {"error"} when the host refused the message)
    stale TOOL     a tools/call of TOOL naming the previous turn's tool use

The prompt is the turn's last text block (a fresh session's first turn carries the host
transcript in a block before it). Like the real CLI, a session lives in
$CLAUDE_CONFIG_DIR: `--resume` of one it does not hold prints the real CLI's
"No conversation found" result and exits 1. With FAKE_CLAUDE_RESUME_FAILS set, every
`--resume` fails with a connection error instead (a transient failure).

Every start appends `{"argv": [...], "env": {...}}` to $FAKE_CLAUDE_LOG; every turn
appends its text blocks to $FAKE_CLAUDE_TURNS. A successful turn's result reports the
process's `total_cost_usd` so far, each such turn adding 0.25, as the real CLI counts it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

LOG = os.environ.get("FAKE_CLAUDE_LOG")
TURNS = os.environ.get("FAKE_CLAUDE_TURNS")
CONFIG_DIR = os.environ.get("CLAUDE_CONFIG_DIR")
#: what each successful turn adds to the process's `total_cost_usd`
COST_PER_TURN = 0.25


def session_file(sid: str) -> str | None:
    return os.path.join(CONFIG_DIR, "fake-sessions", sid) if CONFIG_DIR else None


def remember(sid: str) -> None:
    path = session_file(sid)
    if path is not None:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        open(path, "a").close()


def refuse_resume(resumed: str) -> int | None:
    """The real CLI's answer to `--resume` it cannot serve, before any turn."""
    if os.environ.get("FAKE_CLAUDE_RESUME_FAILS"):
        error = "API Error: Connection error."
    else:
        path = session_file(resumed)
        if path is None or os.path.exists(path):
            return None
        error = f"No conversation found with session ID: {resumed}"
    out({"type": "result", "subtype": "error_during_execution", "is_error": True,
         "num_turns": 0, "session_id": resumed, "errors": [error]})
    sys.stderr.write(error + "\n")
    return 1


def out(obj: dict[str, object]) -> None:
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def read() -> dict[str, object] | None:
    line = sys.stdin.readline()
    if not line:
        return None
    return json.loads(line)


def sdk_server(argv: list[str]) -> str | None:
    """The `type: "sdk"` MCP server an `--mcp-config` JSON names, if any."""
    for i, arg in enumerate(argv):
        if arg == "--mcp-config" and argv[i + 1].startswith("{"):
            for name, server in json.loads(argv[i + 1])["mcpServers"].items():
                if server.get("type") == "sdk":
                    return str(name)
    return None


class McpClient:
    """Claude Code's side of an SDK MCP server: JSON-RPC over control requests."""

    def __init__(self, server: str | None) -> None:
        self.server = server or "clawharness"
        self.n = 0
        self.listed: list[str] | None = None

    def send(self, message: dict[str, object]) -> dict[str, object]:
        self.n += 1
        out({"type": "control_request", "request_id": f"mcp{self.n}", "request": {
            "subtype": "mcp_message", "server_name": self.server, "message": message}})
        answer = read()
        assert answer is not None
        response = answer["response"]
        assert isinstance(response, dict)
        if response["subtype"] != "success":
            return {"error": response.get("error")}
        return response["response"]["mcp_response"]  # type: ignore[no-any-return]

    def connect(self) -> None:
        if self.listed is not None:
            return
        self.send({"jsonrpc": "2.0", "id": 0, "method": "initialize",
                   "params": {"protocolVersion": "2025-06-18", "capabilities": {}}})
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        tools = self.send({"jsonrpc": "2.0", "id": 1, "method": "tools/list"})
        result = tools.get("result")
        self.listed = [t["name"] for t in result["tools"]] if isinstance(result, dict) else []

    def call(self, tool: str, args: object, tool_use_id: str) -> dict[str, object]:
        return self.send({"jsonrpc": "2.0", "id": 2 + self.n, "method": "tools/call",
                          "params": {"name": tool, "arguments": args,
                                     "_meta": {"claudecode/toolUseId": tool_use_id}}})


def main() -> int:
    argv = sys.argv[1:]
    if LOG:
        with open(LOG, "a") as fh:
            fh.write(json.dumps({"argv": argv, "env": dict(os.environ)}) + "\n")
    sid = str(uuid.uuid4())
    resumed = None
    if "--resume" in argv:
        sid = resumed = argv[argv.index("--resume") + 1]
        if "--fork-session" in argv:
            sid = str(uuid.uuid4())
    n = 0
    cost = 0.0
    refused = False
    mcp = McpClient(sdk_server(argv))
    while True:
        msg = read()
        if msg is None:
            return 0
        if msg.get("type") == "control_request":
            request = msg["request"]
            assert isinstance(request, dict)
            out({"type": "control_response", "response": {
                "subtype": "success", "request_id": msg["request_id"], "response": {}}})
            continue
        if msg.get("type") != "user":
            continue
        if resumed is not None and not refused:
            refused = True
            status = refuse_resume(resumed)
            if status is not None:
                return status
        n += 1
        content = msg["message"]["content"]  # type: ignore[index]
        texts = [b["text"] for b in content if b.get("type") == "text"]
        if TURNS:
            with open(TURNS, "a") as fh:
                fh.write(json.dumps({"session": sid, "texts": texts}) + "\n")
        prompt = texts[-1]
        word, _, rest = prompt.partition(" ")
        remember(sid)
        out({"type": "system", "subtype": "init", "session_id": sid, "cwd": os.getcwd()})
        if word == "text":
            for piece in rest.split(" "):
                out({"type": "stream_event", "event": {"type": "content_block_delta",
                     "delta": {"type": "text_delta", "text": piece + " "}}, "session_id": sid})
            out({"type": "assistant", "message": {"id": f"m{n}", "content": [
                {"type": "text", "text": rest + " "}]}, "session_id": sid})
        elif word == "tool":
            tool_id = f"toolu_{n}"
            out({"type": "assistant", "message": {"id": f"m{n}", "content": [
                {"type": "tool_use", "id": tool_id, "name": "Bash",
                 "input": {"command": rest}}]}, "session_id": sid})
            out({"type": "control_request", "request_id": f"perm{n}", "request": {
                "subtype": "can_use_tool", "tool_name": "Bash", "input": {"command": rest},
                "tool_use_id": tool_id}})
            answer = read()
            assert answer is not None
            verdict = answer["response"]["response"]  # type: ignore[index]
            if verdict["behavior"] == "allow":
                result = {"tool_use_id": tool_id, "type": "tool_result", "is_error": False,
                          "content": "ran: " + verdict["updatedInput"]["command"]}
            else:
                result = {"tool_use_id": tool_id, "type": "tool_result", "is_error": True,
                          "content": verdict["message"]}
            out({"type": "user", "message": {"role": "user", "content": [result]},
                 "session_id": sid})
            out({"type": "assistant", "message": {"id": f"m{n}b", "content": [
                {"type": "text", "text": "after tool"}]}, "session_id": sid})
        elif word in ("hang", "stubborn"):
            tool_id = f"toolu_{n}"
            out({"type": "assistant", "message": {"id": f"m{n}", "content": [
                {"type": "tool_use", "id": tool_id, "name": "Bash",
                 "input": {"command": rest}}]}, "session_id": sid})
            subprocess.Popen(["sleep", rest], start_new_session=True)
            while True:
                msg = read()
                if msg is None:
                    return 0
                if word == "hang" and msg.get("type") == "control_request":
                    out({"type": "control_response", "response": {
                        "subtype": "success", "request_id": msg["request_id"]}})
                    out({"type": "user", "message": {"role": "user", "content": [
                        {"tool_use_id": tool_id, "type": "tool_result", "is_error": True,
                         "content": "interrupted"}]}, "session_id": sid})
                    out({"type": "result", "subtype": "error_during_execution",
                         "is_error": True, "session_id": sid})
                    break
            continue
        elif word in ("host", "stale"):
            tool, _, raw = rest.partition(" ")
            mcp.connect()
            tool_id = f"toolu_{n}"
            args = json.loads(raw or "{}")
            if word == "host":
                native = f"mcp__{mcp.server}__{tool}"
                out({"type": "assistant", "message": {"id": f"m{n}", "content": [
                    {"type": "tool_use", "id": tool_id, "name": native, "input": args}]},
                    "session_id": sid})
                out({"type": "control_request", "request_id": f"perm{n}", "request": {
                    "subtype": "can_use_tool", "tool_name": native, "input": args,
                    "tool_use_id": tool_id}})
                assert read() is not None
            answer = mcp.call(tool, args, tool_id if word == "host" else f"toolu_{n - 1}")
            result = answer.get("result")
            if isinstance(result, dict):
                report = {"listed": mcp.listed, "isError": result.get("isError", False),
                          "text": "".join(c.get("text", "") for c in result["content"])}
            else:
                report = {"listed": mcp.listed, "error": answer.get("error")}
            if word == "host":
                out({"type": "user", "message": {"role": "user", "content": [
                    {"tool_use_id": tool_id, "type": "tool_result",
                     "is_error": bool(report.get("isError")),
                     "content": str(report.get("text"))}]}, "session_id": sid})
            rest = json.dumps(report)
            out({"type": "assistant", "message": {"id": f"m{n}b", "content": [
                {"type": "text", "text": rest}]}, "session_id": sid})
        elif word == "crash":
            sys.stderr.write("fake claude: simulated crash\n")
            sys.stderr.flush()
            return 3
        elif word == "gone":
            out({"type": "stream_event", "event": {"type": "content_block_delta",
                 "delta": {"type": "text_delta", "text": rest}}, "session_id": sid})
            out({"type": "result", "subtype": "error_during_execution", "is_error": True,
                 "num_turns": 0, "session_id": sid,
                 "errors": [f"No conversation found with session ID: {resumed or sid}"]})
            return 1
        elif word == "error":
            out({"type": "assistant", "message": {"id": f"m{n}", "model": "<synthetic>",
                 "content": [{"type": "text", "text": "API Error: 400 nope"}]},
                 "session_id": sid})
            out({"type": "result", "subtype": "success", "is_error": True,
                 "result": "API Error: 400 nope", "session_id": sid})
            continue
        cost += COST_PER_TURN  # like the real CLI: the process's total since it started
        out({"type": "result", "subtype": "success", "is_error": False, "result": rest,
             "session_id": sid, "usage": {"input_tokens": 5, "output_tokens": 2},
             "total_cost_usd": cost})


if __name__ == "__main__":
    sys.exit(main())
