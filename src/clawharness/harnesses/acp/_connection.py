"""The `acp` harness's connection to one agent process (see `wire`): the process
spawned, initialized and given its session (`open_live`), the `acp` library's
`ClientSideConnection` on it, and the client side it serves (updates, permissions,
files), which routes to the turn attached."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, cast

from acp import Client, RequestError
from acp.client.connection import ClientSideConnection
from acp.schema import (
    AcpMcpServer,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    HttpMcpServer,
    Implementation,
    McpServerStdio,
    PermissionOption,
    ReadTextFileResponse,
    RequestPermissionResponse,
    SseMcpServer,
    ToolCallUpdate,
    UsageUpdate,
    WriteTextFileResponse,
)

from clawharness.harnesses.acp.common import (
    ACP_PROTOCOL_VERSION,
    AcpAgentConfig,
    AcpHarnessError,
    agent_environment,
    load_refused_as_gone,
)
from clawharness.plugin_sdk.agent_harness import AttemptParams
from clawharness.plugin_sdk.agent_harness_mcp import acp_mcp_servers
from clawharness.plugin_sdk.agent_harness_process import (
    BoundedLineReader,
    ChildProcess,
    SupervisedProcesses,
    spawn,
)
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    NativeSessionGone,
    NativeSessionRecord,
    NativeSessionRecovery,
    SessionBindings,
)
from clawharness.plugin_sdk.agent_harness_tool_runtime import (
    WorkspacePathEscapeError,
    resolve_workspace_path,
)

__all__ = ["CLIENT_INFO", "COST_KEY", "AcpTurnOwner", "AttachedTurn", "Live", "guard", "open_live",
           "recorded_cost"]

log = logging.getLogger("clawharness.harnesses.acp")


class AttachedTurn(Protocol):
    """What the client side needs of the turn attached to a `Live` (`wire.AcpTurn`)."""

    async def on_update(self, update: Any) -> None: ...

    async def on_permission(self, tool_call: ToolCallUpdate,
                            options: list[PermissionOption]) -> RequestPermissionResponse: ...


class AcpTurnOwner(Protocol):
    """What the wire needs of the harness that owns the agents' processes (`AcpHarness`)."""

    @property
    def bindings(self) -> SessionBindings[NativeSessionRecord]: ...

    @property
    def processes(self) -> SupervisedProcesses[Live]: ...

    def native_state_dir(self, params: AttemptParams) -> Path: ...

CLIENT_INFO = Implementation(name="clawharness", title="clawharness", version="0.1")

# --- the client side of the connection ---------------------------------------------------


class _Client:
    """`acp.Client` for one agent process; routes to the turn currently attached."""

    def __init__(self, live: Live) -> None:
        self.live = live

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        live = self.live
        if session_id != live.session_id:
            return
        if isinstance(update, UsageUpdate):
            # before a turn too: what `session/load` replays is the session's cost so far
            live.note_cost(update)
        turn = live.turn
        if turn is None:
            return  # e.g. history replayed by session/load: already in the transcript
        await turn.on_update(update)

    async def request_permission(self, session_id: str, tool_call: ToolCallUpdate,
                                 options: list[PermissionOption],
                                 **kwargs: Any) -> RequestPermissionResponse:
        turn = self.live.turn
        if turn is None or session_id != self.live.session_id:
            return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))
        return await turn.on_permission(tool_call, options)

    def _path(self, path: str) -> Path:
        try:
            return resolve_workspace_path(self.live.cwd, path)
        except (WorkspacePathEscapeError, ValueError) as exc:
            raise RequestError.invalid_params({"path": path, "message": str(exc)}) from exc

    async def read_text_file(self, session_id: str, path: str, line: int | None = None,
                             limit: int | None = None, **kwargs: Any) -> ReadTextFileResponse:
        target = self._path(path)
        try:
            text = await asyncio.to_thread(target.read_text, encoding="utf-8")
        except FileNotFoundError as exc:
            raise RequestError.invalid_params({"path": path, "message": "file not found"}) from exc
        except (OSError, UnicodeDecodeError) as exc:
            raise RequestError.internal_error({"path": path, "message": str(exc)}) from exc
        if line is not None or limit is not None:
            lines = text.splitlines(keepends=True)
            start = max(0, (line or 1) - 1)
            end = len(lines) if limit is None else start + max(0, limit)
            text = "".join(lines[start:end])
        return ReadTextFileResponse(content=text)

    async def write_text_file(self, session_id: str, path: str, content: str,
                              **kwargs: Any) -> WriteTextFileResponse | None:
        target = self._path(path)

        def write() -> None:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(content, encoding="utf-8")

        try:
            await asyncio.to_thread(write)
        except OSError as exc:
            raise RequestError.internal_error({"path": path, "message": str(exc)}) from exc
        return WriteTextFileResponse()


@dataclass(slots=True)
class Live:
    """One binding's agent process and connection."""

    agent: AcpAgentConfig
    child: ChildProcess
    cwd: str
    fingerprint: str
    conn: ClientSideConnection | None = None
    session_id: str | None = None
    turn: AttachedTurn | None = None
    load_session: bool = False
    #: a session made by `session/new` for this turn: its first prompt carries the
    #: host transcript
    fresh: bool = False
    #: the agent's stdout, read within the frame limits
    lines: BoundedLineReader | None = None
    #: the session's cumulative cost in USD: as the agent last reported it
    #: (`usage_update`), else as the binding recorded it, 0 for a session made here;
    #: None while unknown (a resumed session whose cost the host never saw)
    cost_usd: float | None = None
    #: how many costs in USD the agent reported (a turn reads whether it reported one)
    cost_reports: int = 0
    #: a cost in another currency was reported (and ignored) and said so once
    other_currency: bool = False

    def stopped_reading(self) -> str | None:
        """Why the agent's output stopped being read (a frame past a limit), if it did."""
        return self.lines.problem if self.lines is not None else None

    def note_cost(self, update: UsageUpdate) -> None:
        """A `usage_update`'s cumulative cost of the session, when it is in USD."""
        cost = update.cost
        if cost is None:
            return
        if cost.currency.upper() != "USD":
            if not self.other_currency:
                self.other_currency = True
                log.info("ACP agent %r reports its cost in %s, not USD: ignored (the "
                         "config's cost prices its turns)", self.agent.name, cost.currency)
            return
        amount = float(cost.amount)
        if not math.isfinite(amount) or amount < 0:
            return
        self.cost_usd = amount
        self.cost_reports += 1


async def open_live(harness: AcpTurnOwner, params: AttemptParams, key: str, agent: AcpAgentConfig,
                    record: NativeSessionRecord | None,
                    recovery: NativeSessionRecovery[NativeSessionRecord]) -> Live:
    """The binding's live agent: reused, or spawned + initialized + session new/load.

    A bound session the agent says it does not have (or cannot load at all) is
    dropped through `recovery` before `session/new`; any other load failure fails
    the turn and keeps the binding."""
    _home, env = agent_environment(harness.native_state_dir(params), params.agent_id, agent)
    cwd = params.workspace_dir
    # a change of the host's MCP servers needs a new process (a session keeps its own)
    fingerprint = json.dumps([list(agent.command), sorted(env.items()), cwd,
                              [dataclasses.asdict(s) for s in params.mcp_servers]],
                             default=str)
    native = record.get("nativeSessionId") if record else None
    live = harness.processes.get(key)
    if live is not None and (not live.child.alive or live.fingerprint != fingerprint
                             or live.conn is None or live.session_id != native):
        await harness.processes.close(key)
        live = None
    if live is not None:
        return live
    try:
        child = await spawn(agent.command, env=env, cwd=cwd)
    except OSError as exc:
        raise AcpHarnessError(f"could not start ACP agent {agent.name!r}: {exc}") from exc
    live = Live(agent, child, cwd, fingerprint)
    harness.processes.put(key, live)
    try:
        process = child.process
        assert process.stdin is not None and process.stdout is not None
        # terminals and elicitation are not offered (capabilities), so `_Client` serves
        # only the fs / permission / update part of `acp.Client`
        client = cast(Client, _Client(live))
        live.lines = BoundedLineReader(process.stdout, what=f"ACP agent {agent.name!r}")
        live.conn = ClientSideConnection(client, process.stdin,
                                         cast(asyncio.StreamReader, live.lines))
        init = await guard(live, live.conn.initialize(
            protocol_version=ACP_PROTOCOL_VERSION,
            client_capabilities=ClientCapabilities(
                fs=FileSystemCapabilities(read_text_file=True, write_text_file=True),
                terminal=False),
            client_info=CLIENT_INFO))
        caps = getattr(init, "agent_capabilities", None)
        live.load_session = bool(getattr(caps, "load_session", False))
        mcp_servers = _mcp_servers(params, getattr(caps, "mcp_capabilities", None))
        if isinstance(native, str) and native:
            gone: str | None = None
            if not live.load_session:
                gone = (f"ACP agent {agent.name!r} does not offer session/load, so the "
                        "session cannot be resumed in a new process")
            else:
                try:
                    live.session_id = native  # replayed updates route nowhere: no turn
                    await guard(live, live.conn.load_session(
                        cwd=cwd, session_id=native, mcp_servers=mcp_servers))
                    # the replayed notifications run as tasks started before the answer
                    # was read: one turn of the loop lets the last of them be noted
                    await asyncio.sleep(0)
                    if live.cost_usd is None:
                        live.cost_usd = recorded_cost(record)
                except RequestError as exc:
                    live.session_id = None
                    gone = load_refused_as_gone(exc)
                    if gone is None:
                        raise AcpHarnessError(
                            f"ACP agent {agent.name!r} could not load session {native} "
                            f"({exc.code}: {exc}; {exc.data}); the binding is kept and "
                            "the next turn tries again") from exc
            if gone is not None:
                outcome = await recovery.session_gone(NativeSessionGone(native, gone))
                if not outcome.start_fresh:
                    raise AcpHarnessError(outcome.error or outcome.warning)
        if live.session_id is None:
            created = await guard(live, live.conn.new_session(
                cwd=cwd, mcp_servers=mcp_servers))
            live.session_id = str(created.session_id)
            live.fresh = True
            live.cost_usd = 0.0  # a new session has cost nothing yet
    except BaseException:
        await harness.processes.close(key)
        raise
    return live


#: the binding record's key for the session's cumulative cost in USD, as last seen
COST_KEY = "cumulativeCostUsd"


def recorded_cost(record: NativeSessionRecord | None) -> float | None:
    """The session's cumulative cost in USD the binding recorded (None when none)."""
    value = record.get(COST_KEY) if record else None
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return float(value)
    return None


async def guard(live: Live, request: Any) -> Any:
    """Await an agent request, failing fast if the agent process exits meanwhile."""
    task = asyncio.ensure_future(request)
    exited = asyncio.ensure_future(live.child.process.wait())
    try:
        done, _ = await asyncio.wait({task, exited}, return_when=asyncio.FIRST_COMPLETED)
        if task in done:
            if isinstance(task.exception(), ConnectionError) and live.stopped_reading():
                raise AcpHarnessError(str(live.stopped_reading()))
            return task.result()
        raise AcpHarnessError(
            f"ACP agent {live.agent.name!r} exited (code {live.child.process.returncode})"
            + (f": {live.child.stderr_text()[-600:]}" if live.child.stderr_text() else ""))
    finally:
        for pending in (task, exited):
            if not pending.done():
                pending.cancel()
                with contextlib.suppress(BaseException):
                    await pending


AcpMcpServerParam = HttpMcpServer | SseMcpServer | AcpMcpServer | McpServerStdio


def _mcp_servers(params: AttemptParams, caps: Any) -> list[AcpMcpServerParam]:
    """The host's configured MCP servers as ACP `mcpServers`, by the agent's
    `mcpCapabilities` (a server it cannot take is left out, with a warning)."""
    if not params.mcp_servers:
        return []
    listed, left_out = acp_mcp_servers(params.mcp_servers,
                                       http=bool(getattr(caps, "http", False)),
                                       sse=bool(getattr(caps, "sse", False)))
    for note in left_out:
        log.warning("%s", note)
    out: list[AcpMcpServerParam] = []
    for entry in listed:
        kind = entry.get("type")
        model = HttpMcpServer if kind == "http" else SseMcpServer if kind == "sse" else McpServerStdio
        out.append(model.model_validate(entry))
    return out
