"""One attempt of a CLI agent on one binding's process (`CliTurn`): the process it
runs on, the turn's course (handshake, send, read, recover a gone session, interrupt)
and its end. What it does with each event it reads is `CliTurnEvents` (`turn_events`)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from clawharness.plugin_sdk._cli_backend.live import LiveProcess, ProcessStopped, user_message
from clawharness.plugin_sdk._cli_backend.spec import CliBackendError, EnvContext, LaunchRequest
from clawharness.plugin_sdk._cli_backend.turn_events import CliTurnEvents, CliTurnOwner
from clawharness.plugin_sdk.agent_harness import AttemptParams, AttemptResult, AttemptTerminal
from clawharness.plugin_sdk.agent_harness_process import (
    InputLimitError,
    decode_json_frame,
    kill_stray_groups,
    read_frame_line,
    spawn,
)
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    BoundSession,
    NativeSessionGone,
    NativeSessionRecord,
    native_session_recovery,
)
from clawharness.records import UsageCost

__all__ = ["CliTurn", "CliTurnOwner"]

log = logging.getLogger("clawharness.harnesses.cli")


class CliTurn(CliTurnEvents):
    """One attempt on one binding."""

    def __init__(self, harness: CliTurnOwner, params: AttemptParams, key: str,
                 command: tuple[str, ...], env_extra: Mapping[str, str], grace: float,
                 idle: float, config: Mapping[str, Any]) -> None:
        super().__init__(harness, params)
        self.key = key
        self.command = command
        self.env_extra = env_extra
        self.grace = grace
        self.idle = idle
        self.config = config
        self.started = False
        self.killed = False

    # --- process -------------------------------------------------------------------------

    def environment(self, agent_dir: Path) -> dict[str, str]:
        home = agent_dir / "home"
        home.mkdir(parents=True, exist_ok=True)
        env = {"PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
               "HOME": str(home)}
        env.update(self.spec.command_line.environment(EnvContext(home, agent_dir, self.p)))
        env.update(self.env_extra)
        return env

    async def ensure_process(self, record: NativeSessionRecord | None) -> LiveProcess:
        p = self.p
        agent_dir = self.h.agent_dir(p)
        cwd = str(record.get("cwd")) if record and record.get("cwd") else p.workspace_dir
        if not os.path.isdir(cwd):
            cwd = p.workspace_dir
        env = self.environment(agent_dir)
        native = record.get("nativeSessionId") if record else None
        fork = bool(native and record and record.get("hostSessionId")
                    and record.get("hostSessionId") != p.session_id)
        host_tools = self.host_server.tool_names if self.host_server is not None else ()
        base = LaunchRequest(self.command, p.model_id, cwd, options=self.config,
                             mcp_servers=tuple(p.mcp_servers), agent_dir=agent_dir,
                             host_tools=host_tools)
        # the runtime lists the host's tools once per process: another set, another one
        fingerprint = json.dumps([self.spec.command_line.argv(base), sorted(env.items()), cwd,
                                  host_tools])
        live = self.h.processes.get(self.key)
        if live is not None and (not live.child.alive or live.fingerprint != fingerprint
                                 or fork or live.session_id != native):
            await self.h.processes.close(self.key)
            live = None
        if live is not None:
            return live
        launch = LaunchRequest(self.command, p.model_id, cwd,
                               resume_session_id=native if isinstance(native, str) else None,
                               fork=fork, options=self.config,
                               mcp_servers=tuple(p.mcp_servers), agent_dir=agent_dir,
                               host_tools=host_tools)
        argv = self.spec.command_line.argv(launch)
        try:
            child = await spawn(argv, env=env, cwd=cwd)
        except OSError as exc:
            raise CliBackendError(f"could not start {argv[0]}: {exc}") from exc
        resumed = native if isinstance(native, str) else None
        live = LiveProcess(child, fingerprint, cwd, resumed, resumed=resumed, fresh=resumed is None)
        self.h.processes.put(self.key, live)
        return live

    # --- the turn --------------------------------------------------------------------------

    async def run(self, bound: BoundSession[NativeSessionRecord]) -> AttemptResult:
        p = self.p
        assert_lease = bound.assert_lease
        record = bound.record
        self.recovery = native_session_recovery(
            p, harness_id=self.spec.id, lifecycle=await self.h.bindings.lifecycle(),
            key=bound.key, logger=log)
        await self.emit("lifecycle", {"phase": "start", "runId": p.run_id,
                                      "sessionId": p.session_id, "harnessId": self.spec.id})
        await self.settle(user_message(p.prompt, p.images), f"{p.run_id}:user")
        if p.abort.is_set():
            return await self.finish(AttemptTerminal("aborted", source="external",
                                                     error="aborted before start"))
        self.live = await self.ensure_process(record)
        self.session_id = self.live.session_id
        self.started = True
        assert_lease()
        error = await self.guarded_drive()
        terminal: AttemptTerminal | None = None
        if self.gone is not None:
            terminal, error = await self.recover(assert_lease)
        if terminal is None:
            terminal = await self.terminal(error)
        if self.session_id is not None:
            self.live.session_id = self.session_id
            new_record: NativeSessionRecord = {
                "nativeSessionId": self.session_id, "hostSessionId": p.session_id,
                "cwd": self.live_cwd(), "harness": self.spec.id}
            with contextlib.suppress(Exception):
                assert_lease()
            await bound.write(new_record)
        return await self.finish(terminal)

    async def guarded_drive(self) -> str | None:
        assert self.live is not None
        live = self.live
        try:
            return await self.drive()
        except BaseException:
            # cancelled from outside (or a host callback failed): nothing may outlive us
            self.h.processes.pop(self.key)
            live.child.kill()
            raise

    async def recover(self, assert_lease: Any) -> tuple[AttemptTerminal | None, str | None]:
        """The session this process resumed is gone: drop the binding, and run the turn on
        a fresh native session unless that would replay output or a tool. Returns the
        terminal when the attempt ends here, else the fresh run's stop error."""
        gone, self.gone = self.gone, None
        assert gone is not None and self.recovery is not None
        await self.h.processes.close(self.key)
        self.session_id = None  # the stale id is never written back
        outcome = await self.recovery.session_gone(NativeSessionGone(gone.session_id,
                                                                     gone.detail))
        if not outcome.start_fresh:
            return AttemptTerminal("failed", source="prompt", error=outcome.error), None
        if self.stop_kind is not None or self.p.abort.is_set():
            self.stop_kind = self.stop_kind or "aborted"
            return None, None  # stopped meanwhile: the next turn starts the fresh session
        assert_lease()
        self.live = await self.ensure_process(None)
        self.session_id = self.live.session_id
        return None, await self.guarded_drive()

    def turn_context(self) -> str | None:
        """The host transcript, for the first turn of a fresh native session."""
        assert self.live is not None
        if not self.live.fresh:
            return None
        self.live.fresh = False
        return self.recovery.context() if self.recovery is not None else None

    async def drive(self) -> str | None:
        """Handshake (once per process), send the turn, read it to its end."""
        assert self.live is not None
        stopped_with: list[str] = []
        try:
            if not self.live.handshake_sent:
                for obj in self.spec.control.handshake():
                    await self.write(obj)
                self.live.handshake_sent = True
            await self.write(self.spec.control.user_turn(self.p.prompt, self.p.images,
                                                         context=self.turn_context()))
            async with asyncio.TaskGroup() as group:
                reader = group.create_task(self.read_turn())
                watcher = group.create_task(self.watch())
                reader.add_done_callback(lambda _: watcher.cancel())
        except* ProcessStopped as stopped:
            stopped_with.append(str(stopped.exceptions[0]))
        return stopped_with[0] if stopped_with else None

    async def terminal(self, error: str | None) -> AttemptTerminal:
        live = self.live
        assert live is not None
        done = self.finished
        unanswered = bool(self.steer_batches)
        if unanswered:
            await self.unanswered_steering()
        if done is None or not live.child.alive or unanswered:
            # the process is gone or unusable: reap it and whatever it left behind
            await self.h.processes.close(self.key)
        else:
            kill_stray_groups(live.child.pid, live.child.pgid)
            if self.h.processes.get(self.key) is live:
                self.h.processes.expire_after(self.key, self.idle)
        if self.stop_kind == "aborted":
            return AttemptTerminal("aborted", source="external", error="aborted")
        if self.stop_kind == "timeout":
            return AttemptTerminal("timeout", source="runtime", phase="prompt",
                                   error="the attempt deadline passed")
        if done is None:
            tail = live.child.stderr_text()
            detail = error or "the process ended before the turn finished"
            code = live.child.process.returncode
            message = f"{self.spec.id} exited (code {code}): {detail}"
            if tail:
                message += f"; stderr: {tail[-600:]}"
            return AttemptTerminal("failed", source="prompt", error=message)
        if done.is_error:
            return AttemptTerminal("failed", source="prompt",
                                   error=done.error or done.text or "the turn failed")
        return AttemptTerminal.ok()

    async def finish(self, terminal: AttemptTerminal) -> AttemptResult:
        if self.host_server is not None:
            self.host_server.close()  # nothing the runtime sends after the turn is served
        await self.flush_assistant(terminal_error=None)
        note = "aborted" if terminal.kind == "aborted" else (
            "stopped: the attempt timed out" if terminal.kind == "timeout"
            else "the runtime stopped before the tool finished")
        for tool in list(self.tools.values()):
            if not tool.settled:
                await self.tool_done(tool, f"Tool call {note}.", True, None)
        end: dict[str, Any] = {"phase": "end", "terminal": terminal.kind}
        if terminal.error:
            end["error"] = terminal.error
        await self.emit("lifecycle", end)
        if self.cost_usd is not None and self.p.auth.api_key:
            # what the provider bills the key the host gave the runtime; without one (a
            # local server, a proxy) the runtime's own prices are not what anyone pays
            self.usage = replace(self.usage, cost=UsageCost(total=self.cost_usd))
        result = self.result(terminal, native_session_id=self.session_id)
        return self.recovery.annotate(result) if self.recovery is not None else result

    async def watch(self) -> None:
        """Wait for abort or the deadline; then interrupt, and kill as a last resort."""
        await self.wait_for_stop()
        request = self.spec.control.interrupt(self.h.next_request_id("interrupt"))
        if request is not None:
            with contextlib.suppress(ProcessStopped, OSError):
                await self.write(request)
            await asyncio.sleep(self.grace)  # the reader cancels us once the turn ends
        assert self.live is not None
        self.killed = True
        self.live.child.kill()

    async def read_turn(self) -> None:
        assert self.live is not None
        stdout = self.live.child.process.stdout
        assert stdout is not None
        what = f"the {self.spec.id} CLI's output"
        while True:
            try:
                line = await read_frame_line(stdout, what=what)
            except InputLimitError as exc:
                raise ProcessStopped(str(exc)) from exc
            if not line:
                raise ProcessStopped("the process closed its output" if not self.killed
                            else "the process was killed")
            text = line.decode("utf-8", "replace").strip()
            if not text:
                continue
            try:
                obj = decode_json_frame(text, what=what)
            except InputLimitError as exc:
                raise ProcessStopped(str(exc)) from exc
            except ValueError:
                log.debug("%s: non-JSON output: %s", self.spec.id, text[:200])
                continue
            if not isinstance(obj, Mapping):
                continue
            for event in self.spec.events.map(obj):
                if await self.handle(event):
                    return
