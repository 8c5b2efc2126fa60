"""A small ACP agent written with the `acp` library, for the harness's unit tests.

A prompt's first word picks the behaviour:

    text WORDS      streams WORDS (an empty first chunk, like real agents)
    write NAME      announces a tool call twice (merge by id), asks permission with
                    oddly named options, and on approval writes NAME through fs
    read PATH       reads PATH through fs and reports the text (or the failure)
    hang SECONDS    starts `sleep SECONDS` in a new session and waits for session/cancel
    stubborn S      the same, but ignores session/cancel
    counted IN OUT CACHED   says "counted" and reports the turn's usage on its answer
                    (IN uncached input tokens, OUT output, CACHED cache reads)
    cost AMOUNT CUR sends `usage_update`s (context used/size, and the session's cumulative
                    cost: half of AMOUNT, then AMOUNT, in currency CUR), says "costed"
                    and reports 1,000 input and 500 output tokens on its answer

The behaviour is the prompt's last text block (a fresh session's first prompt carries
the host transcript in a block before it).

History is kept in $HOME/sessions.json so `session/load` in a new process replays it; a
session it does not hold is refused with ACP's "resource not found". FAKE_ACP_LOAD=
`unsupported` offers no `session/load`; `broken` refuses every load with an internal
error in other words (a transient failure). Every request's method is appended to
$FAKE_ACP_LOG (a prompt's with its `_meta` keys).
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import uuid
from pathlib import Path
from typing import Any

from acp import (
    Agent,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PromptResponse,
    RequestError,
    run_agent,
    start_tool_call,
    text_block,
    update_agent_message,
    update_tool_call,
    update_user_message,
)
from acp.interfaces import Client
from acp.schema import AgentCapabilities, Cost, PermissionOption, Usage, UsageUpdate

HISTORY = Path(os.environ.get("HOME", ".")) / "sessions.json"
LOG = os.environ.get("FAKE_ACP_LOG")
LOAD = os.environ.get("FAKE_ACP_LOAD", "")


def log(method: str, **data: Any) -> None:
    if LOG:
        with open(LOG, "a") as fh:
            fh.write(json.dumps({"method": method, **data}) + "\n")


def load_history() -> dict[str, list[list[str]]]:
    return json.loads(HISTORY.read_text()) if HISTORY.exists() else {}


class FakeAgent(Agent):
    _conn: Client

    def __init__(self) -> None:
        self.cancelled: dict[str, asyncio.Event] = {}

    def on_connect(self, conn: Client) -> None:
        self._conn = conn

    async def initialize(self, protocol_version: int, client_capabilities: Any = None,
                         client_info: Any = None, **kwargs: Any) -> InitializeResponse:
        log("initialize", fs=bool(client_capabilities and client_capabilities.fs
                                  and client_capabilities.fs.write_text_file))
        return InitializeResponse(protocol_version=protocol_version,
                                  agent_capabilities=AgentCapabilities(
                                      load_session=LOAD != "unsupported"))

    async def new_session(self, cwd: str, additional_directories: Any = None,
                          mcp_servers: Any = None, **kwargs: Any) -> NewSessionResponse:
        sid = uuid.uuid4().hex
        log("session/new", cwd=cwd, sessionId=sid)
        return NewSessionResponse(session_id=sid)

    async def load_session(self, cwd: str, session_id: str, mcp_servers: Any = None,
                           additional_directories: Any = None,
                           **kwargs: Any) -> LoadSessionResponse | None:
        log("session/load", sessionId=session_id)
        if LOAD == "broken":
            raise RequestError.internal_error({"details": "database is locked"})
        if session_id not in load_history():
            raise RequestError.resource_not_found(session_id)
        for user, agent in load_history().get(session_id, []):
            await self._conn.session_update(session_id, update_user_message(text_block(user)))
            await self._conn.session_update(session_id,
                                            update_agent_message(text_block(agent)))
        return LoadSessionResponse()

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        log("session/cancel", sessionId=session_id)
        self.cancelled.setdefault(session_id, asyncio.Event()).set()

    async def say(self, sid: str, text: str) -> None:
        await self._conn.session_update(sid, update_agent_message(text_block(text)))

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        text = prompt[-1].text
        log("session/prompt", text=text, blocks=[block.text for block in prompt], meta=kwargs)
        word, _, rest = text.partition(" ")
        sid = session_id
        self.cancelled[sid] = asyncio.Event()
        reply = ""
        if word == "text":
            await self.say(sid, "")
            for piece in rest.split(" "):
                await self.say(sid, piece + " ")
            reply = rest + " "
        elif word == "write":
            await self._conn.session_update(sid, start_tool_call(
                "call-1", "Write", kind="edit", status="pending", raw_input={}))
            target = os.path.join(os.getcwd(), rest) if not rest.startswith("/") else rest
            raw = {"path": target, "content": "fake content"}
            await self._conn.session_update(sid, start_tool_call(
                "call-1", f"Write {rest}", kind="edit", status="pending", raw_input=raw))
            options = [PermissionOption(option_id="zz-first", name="No", kind="reject_once"),
                       PermissionOption(option_id="aa-second", name="Yes", kind="allow_once"),
                       PermissionOption(option_id="always", name="Always",
                                        kind="allow_always")]
            answer = await self._conn.request_permission(
                options=options, session_id=sid,
                tool_call=update_tool_call("call-1", title=f"Write {rest}", raw_input=raw))
            chosen = getattr(answer.outcome, "option_id", None)
            log("permission", chosen=chosen)
            if chosen == "aa-second":
                await self._conn.write_text_file(path=target, content="fake content",
                                                 session_id=sid)
                await self._conn.session_update(sid, update_tool_call(
                    "call-1", status="completed", raw_output={"written": target}))
                reply = "wrote it"
            else:
                await self._conn.session_update(sid, update_tool_call(
                    "call-1", status="failed", raw_output="refused"))
                reply = "was refused"
            await self.say(sid, reply)
        elif word == "read":
            await self._conn.session_update(sid, start_tool_call(
                "call-r", f"Read {rest}", kind="read", status="pending",
                raw_input={"path": rest}))
            try:
                got = await self._conn.read_text_file(path=rest, session_id=sid, line=2,
                                                      limit=1)
                status, reply = "completed", got.content
            except Exception as exc:
                status, reply = "failed", f"read failed: {exc}"
            await self._conn.session_update(sid, update_tool_call(
                "call-r", status=status, raw_output=reply))
            await self.say(sid, reply)
        elif word == "counted":
            uncached, out, cached = (int(n) for n in rest.split())
            await self.say(sid, "counted")
            return PromptResponse(stop_reason="end_turn", usage=Usage(
                input_tokens=uncached, output_tokens=out, cached_read_tokens=cached,
                total_tokens=uncached + out + cached))
        elif word == "cost":
            amount, currency = rest.split()
            for part in (float(amount) / 2, float(amount)):  # cumulative: the last counts
                await self._conn.session_update(sid, UsageUpdate(
                    session_update="usage_update", used=1500, size=200_000,
                    cost=Cost(amount=part, currency=currency)))
            reply = "costed"
            await self.say(sid, reply)
            history = load_history()
            history.setdefault(sid, []).append([text, reply])
            HISTORY.write_text(json.dumps(history))
            return PromptResponse(stop_reason="end_turn", usage=Usage(
                input_tokens=1000, output_tokens=500, total_tokens=1500))
        elif word in ("hang", "stubborn"):
            await self._conn.session_update(sid, start_tool_call(
                "call-h", "Terminal", kind="execute", status="in_progress",
                raw_input={"command": f"sleep {rest}"}))
            subprocess.Popen(["sleep", rest], start_new_session=True)
            if word == "hang":
                await self.cancelled[sid].wait()
                return PromptResponse(stop_reason="cancelled")
            await asyncio.sleep(3600)
        history = load_history()
        history.setdefault(sid, []).append([text, reply])
        HISTORY.write_text(json.dumps(history))
        return PromptResponse(stop_reason="end_turn")


if __name__ == "__main__":
    asyncio.run(run_agent(FakeAgent()))
