"""The bundled Codex harness (`codex`, "OpenAI Codex"): agent turns on `codex app-server`.

Codex owns the native thread, its resume, compaction and execution, and its own login
(`auth_bootstrap = "harness"`); the host keeps the transcript mirror, tool policy,
approvals and delivery. One turn:

1. take the session's binding (its Codex thread id) under the binding lease, held for
   the whole turn;
2. get a process from the pool: the one that has the thread loaded, else any with room
   (resuming the thread there with `thread/resume`), else a new one;
3. `thread/start {cwd, approvalPolicy, sandbox, model, dynamicTools, config}` (config:
   the host's `mcp.servers` as `mcp_servers`, on resume too) when the session
   has no thread yet, and store the new thread id in the binding. A bound thread Codex
   answers `no rollout found for thread id <id>` for (a new CODEX_HOME, another machine)
   is dropped through the SDK's `NativeSessionRecovery` with one warning, and a new
   thread started; any other resume failure fails the turn and keeps the binding;
4. run the turn (`turn.CodexTurn`); a thread started for it gets the host transcript as
   an input item before the prompt.

Not implemented, on purpose: `finalize_settled_turn` (a Codex thread cannot be held to
the restricted no-tools, no-hooks finalization contract) and
`run_isolated_completion_v2` (every Codex turn offers tools; a zero-tool request cannot
be made).
"""

from __future__ import annotations

import asyncio
import importlib.metadata
import logging
import os
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from clawharness.harnesses.codex.bindings import BindingHandle, CodexBindings, binding_key
from clawharness.harnesses.codex.compaction import CompactionWatch
from clawharness.harnesses.codex.config import AppServerConfig
from clawharness.harnesses.codex.errors import (
    CodexAppServerError,
    CodexProcessExitedError,
    CodexRequestError,
    unknown_thread,
)
from clawharness.harnesses.codex.pool import AppServerPool, ProcessSlot
from clawharness.harnesses.codex.portable import adopt_rollout, handoff_thread
from clawharness.harnesses.codex.turn import HARNESS_ID, CodexTurn
from clawharness.plugin_sdk.agent_harness import (
    AttemptParams,
    AttemptResult,
    AttemptTerminal,
    SupportContext,
    Supported,
    SupportResult,
    ToolSpec,
    Unsupported,
)
from clawharness.plugin_sdk.agent_harness_mcp import codex_mcp_servers
from clawharness.plugin_sdk.agent_harness_runtime import AgentHarnessPreflightError
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    AdoptRequest,
    HandoffRequest,
    NativeAdoption,
    NativeHandoff,
    NativeSessionGone,
    NativeSessionRecovery,
    SessionHookParams,
)

__all__ = ["LEGACY_CODEX_PROVIDERS", "CodexHarness"]

log = logging.getLogger("clawharness.harnesses.codex")

#: legacy `codex/*`-style provider prefixes, still accepted as compatibility inputs
LEGACY_CODEX_PROVIDERS = ("codex", "openai-codex", "codex-cli")
_OFFICIAL_HOSTS = ("api.openai.com", "chatgpt.com")
#: how long `/compact` waits for a free app-server and for Codex to finish compacting
COMPACT_TIMEOUT_SECONDS = 300.0


def _client_version() -> str:
    try:
        return importlib.metadata.version("clawharness")
    except importlib.metadata.PackageNotFoundError:
        return "0.0.0"


def _plaintext_official(base_url: str | None) -> bool:
    if not base_url:
        return False
    try:
        parts = urlsplit(base_url.strip())
    except ValueError:
        return False
    return parts.scheme.lower() == "http" and (parts.hostname or "").lower() in _OFFICIAL_HOSTS


class CodexHarness:
    """The Codex app-server harness."""

    id = HARNESS_ID
    label = "OpenAI Codex"
    #: Codex owns its login and session; the host does not prepare credentials for it
    auth_bootstrap: Literal["harness"] = "harness"

    def __init__(self, config: AppServerConfig, *, bindings: CodexBindings,
                 home_root: str | os.PathLike[str], host_env: Mapping[str, str] | None = None,
                 client_version: str | None = None) -> None:
        self.config = config
        self.bindings = bindings
        self.pool = AppServerPool(config, home_root=home_root,
                                  client_version=client_version or _client_version(),
                                  host_env=host_env)

    # --- selection ------------------------------------------------------------------------

    def supports(self, ctx: SupportContext) -> SupportResult:
        """Claim OpenAI only on routes whose provider declares Codex compatible."""
        provider = (ctx.provider or "").strip().lower()
        facts = ctx.model_provider
        overrides = facts is not None and facts.request_transport_overrides == "present"
        if provider in LEGACY_CODEX_PROVIDERS:
            if overrides:
                return Unsupported("legacy codex/* ref with authored request overrides")
            return Supported(reason=f"legacy {provider}/* model ref (compatibility alias)")
        if provider != "openai":
            return Unsupported(f"the Codex harness serves provider openai, not {provider!r}")
        if facts is not None and _plaintext_official(facts.base_url):
            return Unsupported("plaintext HTTP official OpenAI endpoints are rejected")
        if facts is None:
            return Unsupported("no prepared route facts for openai", fallback_runtime="openclaw")
        if overrides:
            return Unsupported("the route has authored request overrides; they stay on the "
                               "built-in runtime", fallback_runtime="openclaw")
        if facts.runtime_policy is None:
            return Unsupported("the route's runtime policy is undeclared, which is never "
                               "permission", fallback_runtime="openclaw")
        if "codex" not in facts.runtime_policy.compatible_ids:
            return Unsupported("the route does not declare codex compatible (custom endpoints "
                               "and Chat Completions stay on the built-in runtime)",
                               fallback_runtime="openclaw")
        return Supported(priority=10, reason="the openai route declares codex compatible")

    # --- the attempt -----------------------------------------------------------------------

    async def run_attempt(self, params: AttemptParams) -> AttemptResult:
        if params.abort.is_set():
            return AttemptResult(AttemptTerminal("aborted", source="external",
                                                 error="aborted before start"),
                                 params.session_id, agent_harness_id=HARNESS_ID)
        key = binding_key(params.agent_id, params.session_key)

        async def bound(handle: BindingHandle) -> AttemptResult:
            return await self._bound(params, handle)

        return await self.bindings.with_turn(key, params.session_id, bound)

    def _remaining(self, params: AttemptParams) -> float | None:
        if params.deadline is None:
            return None
        return max(0.0, params.deadline - asyncio.get_running_loop().time())

    async def _bound(self, params: AttemptParams, handle: BindingHandle) -> AttemptResult:
        tools: Sequence[ToolSpec] = ()
        if params.tools:
            tools = params.host_capabilities.bind_tool_surface(params.tools)
        thread_id = handle.binding.thread_id
        recovery = handle.recovery(params, harness_id=HARNESS_ID)
        try:
            held = await self.pool.acquire(params.agent_id, thread_id,
                                           timeout=self._remaining(params))
        except TimeoutError:
            return AttemptResult(AttemptTerminal(
                "timeout", source="runtime", phase="prompt",
                error="no Codex app-server process became free before the deadline"),
                params.session_id, agent_harness_id=HARNESS_ID)
        try:
            handle.assert_lease()
            try:
                thread_id, fresh = await self._ensure_thread(params, handle, held, tools,
                                                             recovery)
            except AgentHarnessPreflightError:
                raise
            except CodexAppServerError as exc:
                return recovery.annotate(AttemptResult(
                    AttemptTerminal("failed", source="prompt", error=str(exc)),
                    params.session_id, agent_harness_id=HARNESS_ID))
            turn = CodexTurn(params, held.client, thread_id, cwd=params.workspace_dir,
                             tools=tools, context=recovery.context() if fresh else None)
            try:
                return recovery.annotate(await turn.run())
            finally:
                if turn.unconfirmed_interrupt:
                    # the native turn may still be running there: that process serves no
                    # new turn, and closes once its other turns end
                    log.warning("codex: turn %s on thread %s ended without a confirmed "
                                "interrupt; retiring its app-server once idle",
                                turn.turn_id, thread_id)
                    self.pool.retire_when_idle(held.process)
        finally:
            self.pool.release(held)

    def _thread_settings(self, params: AttemptParams) -> dict[str, Any]:
        settings: dict[str, Any] = {
            "cwd": params.workspace_dir, "approvalPolicy": self.config.approval_policy,
            "sandbox": self.config.sandbox, "model": params.model_id}
        if params.mcp_servers:
            # the host's mcp.servers, as the thread's config (on start and on resume)
            servers, left_out = codex_mcp_servers(params.mcp_servers)
            for note in left_out:
                log.warning("%s", note)
            if servers:
                settings["config"] = {"mcp_servers": servers}
        return settings

    async def _ensure_thread(self, params: AttemptParams, handle: BindingHandle,
                             held: ProcessSlot, tools: Sequence[ToolSpec],
                             recovery: NativeSessionRecovery[dict[str, Any]]
                             ) -> tuple[str, bool]:
        """The turn's thread: `(thread id, started now)`. A bound thread Codex no longer
        has is dropped (with a warning) and a new one started; any other resume failure
        fails the turn and keeps the binding."""
        client = held.client
        thread_id = handle.binding.thread_id
        if thread_id is not None:
            if held.loaded:
                return thread_id, False
            try:
                await client.request("thread/resume", {"threadId": thread_id,
                                                       **self._thread_settings(params),
                                                       "excludeTurns": True})
            except CodexRequestError as exc:
                if not unknown_thread(exc, thread_id):
                    raise
                outcome = await recovery.session_gone(NativeSessionGone(thread_id, exc.detail))
                handle.forget_thread()
                if not outcome.start_fresh:
                    raise CodexAppServerError(outcome.error or outcome.warning) from exc
            else:
                held.mark_loaded(thread_id)
                return thread_id, False
        start: dict[str, Any] = self._thread_settings(params)
        if tools:
            start["dynamicTools"] = [{"type": "function", "name": t.name,
                                      "description": t.description,
                                      "inputSchema": dict(t.parameters)} for t in tools]
        if params.system_prompt:
            start["developerInstructions"] = params.system_prompt
        result = await client.request("thread/start", start)
        thread_id = str(result["thread"]["id"])
        held.mark_loaded(thread_id)
        handle.assert_lease()
        await handle.store_thread(thread_id, cwd=params.workspace_dir, model=params.model_id)
        return thread_id, True

    # --- compaction (docs/compaction.md) --------------------------------------------------------

    async def compact(self, params: Any) -> dict[str, Any]:
        """`/compact` on a Codex session: `thread/compact/start` on its bound thread,
        done when Codex reports the compaction (`clawharness.harnesses.codex.compaction`)."""
        key = binding_key(params.agent_id, params.session_key)

        async def bound(handle: BindingHandle) -> dict[str, Any]:
            thread_id = handle.binding.thread_id
            if thread_id is None:
                return {"ok": True, "compacted": False,
                        "reason": "the session has no Codex thread yet: nothing to compact"}
            held = await self.pool.acquire(params.agent_id, thread_id,
                                           timeout=COMPACT_TIMEOUT_SECONDS)
            watch = CompactionWatch()
            try:
                client = held.client
                if not held.loaded:
                    settings = {"approvalPolicy": self.config.approval_policy,
                                "sandbox": self.config.sandbox}
                    if handle.binding.cwd:
                        settings["cwd"] = handle.binding.cwd
                    if handle.binding.model:
                        settings["model"] = handle.binding.model
                    await client.request("thread/resume", {"threadId": thread_id, **settings,
                                                           "excludeTurns": True})
                    held.mark_loaded(thread_id)
                client.subscribe(thread_id, watch)
                await client.request("thread/compact/start", {"threadId": thread_id})
                async with asyncio.timeout(COMPACT_TIMEOUT_SECONDS):
                    await watch.done.wait()
            except TimeoutError:
                self.pool.retire_when_idle(held.process)
                return {"ok": False, "compacted": False,
                        "reason": "Codex did not finish compacting in time",
                        "failure": {"reason": "timeout"}}
            except (CodexAppServerError, CodexProcessExitedError) as exc:
                return {"ok": False, "compacted": False, "reason": f"Codex: {exc}",
                        "failure": {"reason": "runtime"}}
            finally:
                held.client.unsubscribe(thread_id, watch)
                self.pool.release(held)
            if watch.failure is not None or watch.error is not None:
                return {"ok": False, "compacted": False,
                        "reason": f"Codex: {watch.error or watch.failure}",
                        "failure": {"reason": "runtime"}}
            return {"ok": True, "compacted": True, "reason": "native (codex thread/compact/start)"}

        return await self.bindings.with_turn(key, params.session_id, bound)

    # --- session hooks ------------------------------------------------------------------------

    async def reset(self, params: SessionHookParams) -> None:
        """An in-place reset: the binding is cleared; the next turn starts a new thread."""
        await self.bindings.reset(params)

    async def with_session_deletion(
        self, params: SessionHookParams,
        run: Callable[[Callable[[], None], Callable[[], None]], Awaitable[Any]]) -> Any:
        return await self.bindings.with_removal("deletion", params, run)

    async def with_session_context_reset(
        self, params: SessionHookParams,
        run: Callable[[Callable[[], None], Callable[[], None]], Awaitable[Any]]) -> Any:
        return await self.bindings.with_removal("context-reset", params, run)

    # --- inventory ------------------------------------------------------------------------------

    async def load_mcp_tool_catalog(self, params: Any) -> dict[str, Any] | None:
        """The MCP catalog of the session's live process and thread; None when the session
        has no live binding (a process is never started to answer)."""
        agent_id = getattr(params, "agent_id", None)
        session_key = getattr(params, "session_key", None)
        if not isinstance(agent_id, str) or not isinstance(session_key, str):
            return None
        record = await self.bindings.read(binding_key(agent_id, session_key))
        thread_id = record.get("threadId") if record else None
        session_id = getattr(params, "session_id", None)
        if not isinstance(thread_id, str) or (session_id and record
                                               and record.get("sessionId") != session_id):
            return None
        proc = self.pool.process_of(thread_id)
        if proc is None:
            return None
        try:
            listed = await proc.client.request("mcpServerStatus/list", {"threadId": thread_id})
        except (CodexRequestError, CodexProcessExitedError, TimeoutError):
            return None
        allowed = getattr(params, "mcp_server_names", None)
        wanted = set(allowed) if allowed is not None else None
        servers: dict[str, Any] = {}
        tools: list[dict[str, Any]] = []
        for status in (listed or {}).get("data") or ():
            name = status.get("name") if isinstance(status, Mapping) else None
            if not isinstance(name, str) or (wanted is not None and name not in wanted):
                continue
            servers[name] = {"serverName": name, "launchSummary": ""}
            for tool in (status.get("tools") or {}).values():
                if isinstance(tool, Mapping) and isinstance(tool.get("name"), str):
                    tools.append({"serverName": name, "toolName": tool["name"],
                                  "inputSchema": tool.get("inputSchema") or {"type": "object"},
                                  "title": tool.get("title"),
                                  "description": tool.get("description")})
        return {"version": 1, "generatedAt": int(time.time() * 1000), "servers": servers,
                "tools": tools}

    # --- portable sessions (docs/portable-sessions.md) -------------------------------------

    async def adopt_native_session(self, request: AdoptRequest) -> NativeAdoption:
        """Read a Codex thread's rollout, ready to bind to a host session: the next turn
        resumes the thread from the agent's own CODEX_HOME."""
        return await adopt_rollout(request, bindings=self.bindings,
                                   agent_home=Path(self.pool.home_for(request.agent_id)))

    async def handoff_native_session(self, request: HandoffRequest) -> NativeHandoff:
        """Have Codex make a thread holding the host transcript in the user's CODEX_HOME,
        for `codex resume <id>`."""
        return await handoff_thread(request, config=self.config,
                                    client_version=self.pool.client_version)

    async def dispose(self) -> None:
        """Close every app-server process and the binding store."""
        await self.pool.close()
        await self.bindings.close()


def default_home_root(state_dir: str | os.PathLike[str]) -> Path:
    """Where the per-agent CODEX_HOMEs live by default."""
    return Path(state_dir) / "homes"
