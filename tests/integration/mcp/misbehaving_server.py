"""A stdio MCP server that misbehaves on request (raw JSON-RPC lines, on purpose: the
point is what a well-behaved SDK server would never send).

Tools: `pid` (its process id), `flood` (thousands of notifications before answering),
`garbage` (a line that is not JSON-RPC), `grow` (adds a tool and announces
`notifications/tools/list_changed`), `big` (a long text), `bad schema` (an array schema),
`sleep` (answers after 30 s; its start and any `notifications/cancelled` are appended to
the file named by `$MCP_TEST_LOG`). With `$MCP_TEST_HANG_INIT` set it never answers
`initialize`. `$MCP_TEST_PAGING` makes `tools/list` misbehave: `huge-page` (3,000 tools in
one page), `endless` (pages of 40 new tools, forever), `empty-endless` (empty pages with a
new cursor, forever), `repeat` (the same cursor again and again).
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from typing import Any

OBJ = {"type": "object", "properties": {}}
tools: list[dict[str, Any]] = [
    {"name": "pid", "description": "this process's id", "inputSchema": OBJ},
    {"name": "flood", "description": "floods notifications", "inputSchema": OBJ},
    {"name": "garbage", "description": "sends a malformed line", "inputSchema": OBJ},
    {"name": "grow", "description": "adds a tool", "inputSchema": OBJ},
    {"name": "big", "description": "a long text", "inputSchema": OBJ},
    {"name": "sleep", "description": "answers after 30 s", "inputSchema": OBJ},
    {"name": "bad schema", "description": "an unusable schema", "inputSchema": {"type": "array"}},
]


_out = threading.Lock()


def send(message: dict[str, Any]) -> None:
    with _out:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def log(line: str) -> None:
    path = os.environ.get("MCP_TEST_LOG")
    if path:
        with open(path, "a") as f:
            f.write(line + "\n")


def sleep_then_answer(ident: Any) -> None:
    time.sleep(30)
    send({"jsonrpc": "2.0", "id": ident, "result": text("slept")})


def text(value: str) -> dict[str, Any]:
    return {"content": [{"type": "text", "text": value}], "isError": False}


def call(name: str) -> dict[str, Any]:
    if name == "pid":
        return text(str(os.getpid()))
    if name == "flood":
        for i in range(20_000):
            send({"jsonrpc": "2.0", "method": "notifications/message",
                  "params": {"level": "info", "data": f"noise {i}"}})
        return text("flooded")
    if name == "garbage":
        sys.stdout.write("this is not json-rpc\n")
        sys.stdout.flush()
        return text("sent garbage")
    if name == "grow":
        if not any(t["name"] == "extra" for t in tools):
            tools.append({"name": "extra", "description": "added later", "inputSchema": OBJ})
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        return text("grown")
    if name == "big":
        return text("y" * 5_000)
    if name == "extra":
        return text("extra here")
    return {"content": [{"type": "text", "text": f"no tool {name}"}], "isError": True}


def tools_page(cursor: str | None) -> dict[str, Any]:
    mode = os.environ.get("MCP_TEST_PAGING")
    page = int(cursor[1:]) if cursor else 0
    if mode == "huge-page":
        return {"tools": [*tools, *({"name": f"t{i}", "inputSchema": OBJ}
                                    for i in range(3_000))]}
    if mode == "endless":
        return {"tools": [{"name": f"p{page}-{i}", "inputSchema": OBJ} for i in range(40)],
                "nextCursor": f"c{page + 1}"}
    if mode == "empty-endless":
        return {"tools": [], "nextCursor": f"c{page + 1}"}
    if mode == "repeat":
        return {"tools": tools, "nextCursor": "c1"}
    return {"tools": tools}


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        method, ident = message.get("method"), message.get("id")
        if method == "notifications/cancelled":
            log(f"cancelled {message['params'].get('requestId')}")
        if ident is None:
            continue  # a notification
        if method == "tools/call" and message["params"]["name"] == "sleep":
            log(f"started {ident}")
            threading.Thread(target=sleep_then_answer, args=(ident,), daemon=True).start()
            continue
        if method == "initialize" and os.environ.get("MCP_TEST_HANG_INIT"):
            continue  # never answers: a server that hangs at start
        if method == "initialize":
            result: dict[str, Any] = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {"listChanged": True}},
                "serverInfo": {"name": "misbehaving", "version": "1.0"}}
        elif method == "tools/list":
            result = tools_page((message.get("params") or {}).get("cursor"))
        elif method == "tools/call":
            result = call(message["params"]["name"])
        elif method == "ping":
            result = {}
        else:
            send({"jsonrpc": "2.0", "id": ident,
                  "error": {"code": -32601, "message": f"no method {method}"}})
            continue
        send({"jsonrpc": "2.0", "id": ident, "result": result})


if __name__ == "__main__":
    main()
