"""`HostAgent`: the host as an ACP agent (the `acp` library's `Agent` protocol).

Every turn starts on the run service (`clawharness.runs`), like every front's; its
events become the session's updates (`updates.py`), its approvals the client's
permission requests (`approvals.py`), and its file and exec tools use the client's files
and terminals where the client offers them (`client_io.py`). ACP session ids are host
session keys (`session.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from acp import PROTOCOL_VERSION, RequestError
from acp.interfaces import Client
from acp.schema import (
    AgentCapabilities,
    AuthenticateResponse,
    ClientCapabilities,
    CloseSessionResponse,
    CurrentModeUpdate,
    ForkSessionResponse,
    Implementation,
    InitializeResponse,
    ListSessionsResponse,
    LoadSessionResponse,
    McpCapabilities,
    NewSessionResponse,
    PromptCapabilities,
    PromptResponse,
    ResumeSessionResponse,
    SessionCapabilities,
    SessionCloseCapabilities,
    SessionInfo,
    SessionListCapabilities,
    SessionResumeCapabilities,
    SetSessionConfigOptionResponse,
    SetSessionModeResponse,
)

from clawharness.acp_serve.answers import (
    check_cwd,
    check_mcp,
    decode_cursor,
    encode_cursor,
    error_of,
    invalid,
    iso_time,
    replayed_context,
)
from clawharness.acp_serve.approvals import ClientApprovals
from clawharness.acp_serve.client_io import client_backends
from clawharness.acp_serve.modes import DEFAULT_MODE, known_mode, mode_state, restriction_for
from clawharness.acp_serve.prompt_run import PromptRun
from clawharness.acp_serve.session import (
    AcpSession,
    UpdateSender,
    acp_meta,
    new_session_key,
)
from clawharness.acp_serve.updates import (
    PromptBlock,
    PromptRefused,
    prompt_text,
    replay_entries,
)
from clawharness.errors import ClawHarnessError
from clawharness.host import Host
from clawharness.observability import caller_trace_context
from clawharness.runs import (
    RunOptions,
    RunService,
)
from clawharness.sessions.keys import parse_session_key
from clawharness.tools import ToolBackends

__all__ = ["AcpServeOptions", "HostAgent"]

log = logging.getLogger("clawharness.acp")

#: transcript entries a `session/load` replays at most (the newest)
REPLAY_LIMIT: Final = 2000
#: sessions per `session/list` page
LIST_PAGE: Final = 100
#: the characters of a first prompt kept as the session's title
TITLE_CHARS: Final = 80


@dataclass(frozen=True, slots=True)
class AcpServeOptions:
    """How `clawharness acp` serves.

    `agent_id`: the agent of new sessions (None: the default agent; a client may name
    another in `_meta.agentId`). `mode`: the mode new sessions start in. `workspace`:
    `"cwd"` makes each session's turns work in the client's working directory (an
    editor's project), `"agent"` in the agent's configured workspace. `unstable`: also
    serve what the protocol library still marks unstable (`session/resume`,
    `session/close`). `client_tools`: use the client's files and terminals for the
    file and exec tools when it offers them.
    """

    agent_id: str | None = None
    mode: str = DEFAULT_MODE
    workspace: Literal["cwd", "agent"] = "cwd"
    unstable: bool = False
    client_tools: bool = True


class HostAgent:
    """The host, serving ACP to one client connection."""

    def __init__(self, host: Host, options: AcpServeOptions | None = None) -> None:
        self._host = host
        self._options = options or AcpServeOptions()
        self._client: Client | None = None
        self._capabilities: ClientCapabilities | None = None
        self._approvals: ClientApprovals | None = None
        self._backends: ToolBackends | None = None
        #: by ACP session id, and by host session key (tools and approvals know the key)
        self._sessions: dict[str, AcpSession] = {}
        self._by_key: dict[str, AcpSession] = {}
        self.runs = RunService(host, approvals=lambda _agent: self._approvals)

    # --- the connection -------------------------------------------------------------

    def on_connect(self, conn: Client) -> None:
        self._client = conn
        self._approvals = ClientApprovals(conn, self._by_key.get)

    @property
    def client(self) -> Client:
        if self._client is None:
            raise RequestError.internal_error({"details": "no client connected"})
        return self._client

    async def close(self) -> None:
        """Stop every running turn and send what is still queued."""
        for session in self._sessions.values():
            for run in session.runs:
                session.cancelled.add(run.run_id)
        await self.runs.shutdown()
        for session in list(self._sessions.values()):
            await session.sender.close()

    # --- initialize -----------------------------------------------------------------

    async def initialize(self, protocol_version: int,
                         client_capabilities: ClientCapabilities | None = None,
                         client_info: Implementation | None = None,
                         **_meta: Any) -> InitializeResponse:
        from clawharness import __version__

        self._capabilities = client_capabilities
        if self._options.client_tools:
            backends = client_backends(self.client, client_capabilities, self._by_key.get)
            self._backends = None if backends.empty else backends
        if client_info is not None:
            log.info("ACP client %s %s", client_info.name, client_info.version)
        sessions = SessionCapabilities(list=SessionListCapabilities())
        if self._options.unstable:
            sessions.resume = SessionResumeCapabilities()
            sessions.close = SessionCloseCapabilities()
        return InitializeResponse(
            protocol_version=min(protocol_version, PROTOCOL_VERSION),
            agent_capabilities=AgentCapabilities(
                load_session=True,
                prompt_capabilities=PromptCapabilities(image=False, audio=False,
                                                       embedded_context=True),
                mcp_capabilities=McpCapabilities(http=False, sse=False),
                session_capabilities=sessions),
            auth_methods=[],
            agent_info=Implementation(name="clawharness", title="clawharness",
                                      version=__version__))

    async def authenticate(self, method_id: str, **_meta: Any) -> AuthenticateResponse:
        raise invalid(f"no authentication method {method_id!r}: this agent offers none (it "
                       "runs as you, with the models and keys of your clawharness config)")

    # --- sessions ---------------------------------------------------------------------

    def _session(self, session_id: str) -> AcpSession:
        session = self._sessions.get(session_id)
        if session is None:
            raise RequestError(-32002, f"Resource not found: no open session {session_id!r}: "
                               "open it with session/new or session/load first",
                               {"sessionId": session_id})
        return session

    def _open(self, session_id: str, key: str, agent_id: str, cwd: str, mode: str,
              title: str | None) -> AcpSession:
        previous = self._sessions.get(session_id)
        sender = previous.sender if previous is not None else UpdateSender(self.client,
                                                                           session_id)
        session = AcpSession(id=session_id, key=key, agent_id=agent_id, cwd=cwd, mode=mode,
                             sender=sender, title=title)
        if previous is not None:  # loaded again: its running prompts stay its own
            session.runs, session.cancelled = previous.runs, previous.cancelled
            session.grants = previous.grants
        self._sessions[session_id] = session
        self._by_key[key] = session
        return session

    async def _remember(self, session: AcpSession) -> None:
        try:
            await self._host.ensure_session(session.key, meta=session.meta())
        except ClawHarnessError as exc:
            raise error_of(exc) from None

    async def new_session(self, cwd: str, additional_directories: list[str] | None = None,
                          mcp_servers: list[Any] | None = None,
                          **meta: Any) -> NewSessionResponse:
        cwd = check_cwd(cwd)
        check_mcp(mcp_servers)
        agent = meta.get("agentId") or self._options.agent_id or self._host.default_agent_id()
        if not isinstance(agent, str):
            raise invalid(f"_meta.agentId must be a string, not {agent!r}")
        wanted = meta.get("sessionKey")
        try:
            key = (self._host.session_key(wanted) if isinstance(wanted, str) and wanted
                   else new_session_key(agent))
        except ClawHarnessError as exc:
            raise error_of(exc) from None
        mode = known_mode(meta.get("mode")) or self._options.mode
        session = self._open(key, key, parse_session_key(key).agent_id, cwd, mode, None)
        await self._remember(session)
        log.info("session/new %s in %s", key, cwd)
        return NewSessionResponse(session_id=key, modes=mode_state(mode))

    async def _reopen(self, session_id: str, cwd: str,
                      mcp_servers: Sequence[Any] | None) -> tuple[AcpSession, str]:
        cwd = check_cwd(cwd)
        check_mcp(mcp_servers)
        try:
            record = await self._host.get_session(session_id)
        except ClawHarnessError as exc:
            raise error_of(exc) from None
        kept = acp_meta(record.meta.extra)
        mode = known_mode(kept.get("mode")) or self._options.mode
        title = kept.get("title") if isinstance(kept.get("title"), str) else None
        session = self._open(session_id, record.key, record.agent_id, cwd, mode, title)
        spent = await self._host.usage(by="session", session_key=record.key)
        session.add_cost(None if not spent or spent[0].nano_usd is None
                         else spent[0].nano_usd / 1e9)
        await self._remember(session)
        return session, record.session_id

    async def load_session(self, cwd: str, session_id: str,
                           mcp_servers: list[Any] | None = None,
                           additional_directories: list[str] | None = None,
                           **_meta: Any) -> LoadSessionResponse:
        session, _physical = await self._reopen(session_id, cwd, mcp_servers)
        try:
            entries = await self._host.history(session.key, last=REPLAY_LIMIT)
        except ClawHarnessError as exc:
            raise error_of(exc) from None
        messages = [e.content if isinstance(e.content, dict)
                    else {"role": e.role, "content": e.content} for e in entries]
        for update in replay_entries(messages, session.cwd):
            session.sender.send(update)
        meter = replayed_context(messages, self._host.context_window, session.cost_usd)
        if meter is not None:
            session.sender.send(meter)
        await session.sender.flush()  # the whole conversation before the response
        log.info("session/load %s (%d entries replayed)", session.key, len(entries))
        return LoadSessionResponse(modes=mode_state(session.mode))

    async def resume_session(self, session_id: str, cwd: str,
                             additional_directories: list[str] | None = None,
                             mcp_servers: list[Any] | None = None,
                             **_meta: Any) -> ResumeSessionResponse:
        if not self._options.unstable:
            raise RequestError.method_not_found("session/resume")
        session, _physical = await self._reopen(session_id, cwd, mcp_servers)
        return ResumeSessionResponse(modes=mode_state(session.mode))

    async def close_session(self, session_id: str, **_meta: Any) -> CloseSessionResponse:
        if not self._options.unstable:
            raise RequestError.method_not_found("session/close")
        session = self._session(session_id)
        self._stop(session)
        for run in list(session.runs):
            await run.wait()
        await session.sender.close()
        self._sessions.pop(session_id, None)
        if self._by_key.get(session.key) is session:
            del self._by_key[session.key]
        return CloseSessionResponse()

    async def list_sessions(self, cwd: str | None = None, cursor: str | None = None,
                            **_meta: Any) -> ListSessionsResponse:
        if cwd is not None:
            cwd = check_cwd(cwd)
        offset = decode_cursor(cursor, cwd)
        try:
            records = await self._host.list_sessions()
        except ClawHarnessError as exc:
            raise error_of(exc) from None
        rows: list[SessionInfo] = []
        for record in records:
            kept = acp_meta(record.meta.extra)
            where = kept.get("cwd")
            if cwd is not None and where != cwd:
                continue
            title = kept.get("title")
            rows.append(SessionInfo(
                session_id=record.key,
                cwd=where if isinstance(where, str) else self._host.agent_workspace(
                    record.agent_id),
                title=title if isinstance(title, str) else None,
                updated_at=iso_time(record.updated_at),
                field_meta={"clawharness": {"agentId": record.agent_id,
                                            "model": record.model_ref,
                                            "runtime": record.agent_harness_id}}))
        page = rows[offset:offset + LIST_PAGE]
        more = offset + LIST_PAGE < len(rows)
        return ListSessionsResponse(
            sessions=page, next_cursor=encode_cursor(offset + LIST_PAGE, cwd) if more else None)

    async def set_session_mode(self, session_id: str, mode_id: str,
                               **_meta: Any) -> SetSessionModeResponse:
        session = self._session(session_id)
        mode = known_mode(mode_id)
        if mode is None:
            raise invalid(f"no session mode {mode_id!r}: this agent has "
                           f"{', '.join(m.id for m in mode_state(session.mode).available_modes)}")
        session.mode = mode
        await self._remember(session)
        session.sender.send(CurrentModeUpdate(session_update="current_mode_update",
                                              current_mode_id=mode))
        await session.sender.flush()
        return SetSessionModeResponse()

    # --- prompts ------------------------------------------------------------------------

    async def prompt(self, session_id: str, prompt: list[PromptBlock],
                     **meta: Any) -> PromptResponse:
        session = self._session(session_id)
        try:
            text = prompt_text(prompt)
        except PromptRefused as exc:
            raise invalid(str(exc)) from None
        if not text.strip():
            raise invalid("the prompt has no text")
        if session.title is None:
            session.title = text.strip().splitlines()[0][:TITLE_CHARS]
            await self._remember(session)
        options = RunOptions(
            agent_id=session.agent_id, kind="acp", origin=f"acp:{session.id}",
            workspace=session.cwd if self._options.workspace == "cwd" else None,
            tool_backends=self._backends, tool_restriction=restriction_for(session.mode),
            # the client's trace (`_meta.traceparent`, ACP's place for W3C trace context)
            trace_context=caller_trace_context(meta))
        run = self.runs.start(session.key, text, options)
        session.runs.append(run)
        state = PromptRun(session)
        # subscribed before the run's task first runs: no event is missed
        unsubscribe = run.subscribe(state.on_event)
        try:
            ended = await run.wait()
        except asyncio.CancelledError:  # the connection is going away: stop the turn
            run.abort("acp-disconnected")
            raise
        finally:
            unsubscribe()
            with contextlib.suppress(ValueError):
                session.runs.remove(run)
        cancelled = run.run_id in session.cancelled
        session.cancelled.discard(run.run_id)
        try:
            return state.answer(ended, cancelled=cancelled,
                                context_window=self._host.context_window)
        finally:
            await session.sender.flush()

    def _stop(self, session: AcpSession) -> None:
        for run in session.runs:
            session.cancelled.add(run.run_id)
            run.abort("cancelled")

    # --- what this agent does not serve -------------------------------------------------

    async def set_config_option(self, config_id: str, session_id: str, value: str | bool,
                                **_meta: Any) -> SetSessionConfigOptionResponse | None:
        raise invalid(f"no config option {config_id!r}: this agent offers none (use "
                       "session/set_mode for the session's mode)")

    async def fork_session(self, session_id: str, cwd: str,
                           additional_directories: list[str] | None = None,
                           mcp_servers: list[Any] | None = None,
                           **_meta: Any) -> ForkSessionResponse:
        raise RequestError.method_not_found("session/fork")

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        raise RequestError.method_not_found(method)

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        log.info("ignored the extension notification %s", method)

    async def cancel(self, session_id: str, **_meta: Any) -> None:
        session = self._sessions.get(session_id)
        if session is None:
            log.warning("session/cancel for a session not open here: %s", session_id)
            return
        self._stop(session)
