"""The `claude-cli` harness with portable sessions: adopt a Claude Code session into a
host session, and hand a host session to Claude Code (docs/portable-sessions.md).

Adopting reads the session file (by path, or by id under the user's
`$CLAUDE_CONFIG_DIR/projects`, default `~/.claude`), and binding it copies the file, as
it was read, into the harness's own config dir under the agent's workspace's project
slug: the next turn's `claude --resume <id>`, run in that workspace, continues it there.
The user's own file is never changed, so the two can go their own ways from there.

Handing off writes a new session file holding the host transcript into the user's
config dir under the project slug of the directory it is to run in, for
`claude --resume <id>`.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Final

from clawharness.harnesses.cli.claude_sessions import (
    WHAT,
    encode_lines,
    handoff_lines,
    parse_claude_session,
    project_slug,
    projects_dir,
    session_id_like,
)
from clawharness.plugin_sdk.agent_harness_cli import CliBackendHarness
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    AdoptRequest,
    HandoffRequest,
    NativeAdoption,
    NativeEntry,
    NativeHandoff,
    NativeSessionFormatError,
    NativeSessionNotFoundError,
    NativeSessionRecord,
    read_session_lines,
)

__all__ = ["ClaudeCliHarness", "user_config_dir", "write_private"]

#: the largest session file adopted (read whole, and copied as it was read)
MAX_SESSION_FILE: Final = 512 * 1024 * 1024
#: the session-file version a handed-off file says it was written in (the format read
#: and written here is Claude Code 2.1's)
FORMAT_VERSION: Final = "2.1.197"


def user_config_dir(env: Mapping[str, str], home: str | None = None) -> Path:
    """The Claude Code config dir of the user: `home`, else `$CLAUDE_CONFIG_DIR`, else
    `~/.claude` (with the environment's `HOME`)."""
    if home:
        return Path(home).expanduser()
    if env.get("CLAUDE_CONFIG_DIR"):
        return Path(env["CLAUDE_CONFIG_DIR"]).expanduser()
    return Path(env.get("HOME") or str(Path.home())) / ".claude"


def write_private(path: Path, data: bytes) -> None:
    """Write `data` to `path` whole or not at all (a temporary file renamed over it),
    readable by this user only."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise


class ClaudeCliHarness(CliBackendHarness):
    """Claude Code's CLI as a harness whose sessions can be adopted and handed off."""

    def _locate(self, request: AdoptRequest) -> Path:
        source = request.source.strip()
        candidate = Path(source).expanduser()
        if candidate.suffix == ".jsonl" or os.sep in source or candidate.exists():
            if not candidate.exists():
                raise NativeSessionNotFoundError(f"{candidate}: no such file")
            if not candidate.is_file():
                raise NativeSessionFormatError(f"{candidate} is not a file, so not {WHAT}")
            return candidate
        root = projects_dir(user_config_dir(request.env, request.home))
        if not session_id_like(source):
            raise NativeSessionNotFoundError(
                f"{source!r} is neither a file nor a Claude Code session id (a UUID)")
        found = sorted(root.glob(f"*/{source}.jsonl"), key=lambda p: p.stat().st_mtime,
                       reverse=True)
        if not found:
            raise NativeSessionNotFoundError(
                f"no Claude Code session {source} under {root}",
                hint="pass the session file's path, or --home DIR for another "
                     "CLAUDE_CONFIG_DIR")
        return found[0]

    async def adopt_native_session(self, request: AdoptRequest) -> NativeAdoption:
        """Read a Claude Code session (its file, or its id), ready to bind to a host
        session of `request.agent_id`."""
        path = self._locate(request)
        session_id = path.stem
        if not session_id_like(session_id):
            raise NativeSessionFormatError(
                f"{path}: Claude Code resumes a session by its file name, and "
                f"{session_id!r} is not a session id (a UUID)")
        if path.stat().st_size > MAX_SESSION_FILE:
            raise NativeSessionFormatError(
                f"{path}: {path.stat().st_size:,} bytes, over the limit of "
                f"{MAX_SESSION_FILE:,} for a session file")
        data = path.read_bytes()
        lines = read_session_lines(path, what=WHAT, data=data)
        session = parse_claude_session(str(path), lines, session_id=session_id,
                                       canonical=self.spec.canonical_tool)
        entries = tuple(NativeEntry(key, message) for key, message in session.messages)
        if not entries:
            raise NativeSessionFormatError(f"{path}: the session holds no messages to adopt")
        found = await self.bindings.find(lambda r: r.get("nativeSessionId") == session_id)
        bind, unbind = self._binder(request, session_id, data, path)
        return NativeAdoption(
            harness_id=self.id, native_session_id=session_id, entries=entries,
            source=str(path), bind=bind, unbind=unbind,
            bound_keys=tuple(key for _agent, key, _record in found),
            model_ref=f"anthropic/{session.model}" if session.model else None,
            cwd=session.cwd, left_out=session.left_out)

    def _binder(self, request: AdoptRequest, session_id: str, data: bytes, source: Path
                ) -> tuple[Callable[[str, str], Awaitable[None]], Callable[[], Awaitable[None]]]:
        """`bind` copies the file where the harness's `claude --resume` finds it and
        writes the binding; `unbind` takes both back."""
        agent = request.agent_id
        workspace = Path(request.workspace_dir)
        config_dir = self.agent_dir_for(request.state_dir, agent) / "claude-config"
        done: dict[str, object] = {}

        async def bind(session_key: str, host_session_id: str) -> None:
            workspace.mkdir(parents=True, exist_ok=True)
            cwd = os.path.realpath(workspace)
            copy = projects_dir(config_dir) / project_slug(cwd) / f"{session_id}.jsonl"
            before = copy.read_bytes() if copy.exists() else None
            if before is not None and before != data and not data.startswith(before):
                raise NativeSessionFormatError(
                    f"{copy} (the harness's copy of session {session_id}) holds turns "
                    f"{source} does not: the two have diverged; nothing was imported",
                    hint="adopt it into a new session key with --as NEWKEY")
            if before != data:
                write_private(copy, data)
            done["copy"], done["before"] = copy, before
            record: NativeSessionRecord = {
                "nativeSessionId": session_id, "hostSessionId": host_session_id,
                "cwd": cwd, "harness": self.id, "adoptedFrom": str(source)}
            try:
                previous = await self.bindings.replace(
                    agent, session_key, record,
                    when=lambda current: current is None
                    or current.get("nativeSessionId") == session_id)
            except BaseException:
                _restore(copy, before)
                done.clear()
                raise
            done["key"], done["record"], done["previous"] = session_key, record, previous

        async def unbind() -> None:
            key, record = done.get("key"), done.get("record")
            if isinstance(key, str) and isinstance(record, dict):
                previous = done.get("previous")
                await self.bindings.replace(
                    agent, key, previous if isinstance(previous, dict) else self.bindings.empty,
                    when=lambda current: current == record)
            copy = done.get("copy")
            if isinstance(copy, Path):
                before = done.get("before")
                _restore(copy, before if isinstance(before, bytes) else None)
            done.clear()

        return bind, unbind

    async def handoff_native_session(self, request: HandoffRequest) -> NativeHandoff:
        """Write a Claude Code session file holding the host transcript, for
        `claude --resume <id>` in `request.cwd`."""
        conversation = request.conversation()
        if not conversation:
            raise NativeSessionFormatError(
                f"host session {request.session_key} has no user or assistant text to "
                "hand off")
        if not os.path.isdir(request.cwd):
            raise NativeSessionNotFoundError(
                f"{request.cwd}: no such directory to resume the session in")
        config_dir = user_config_dir(request.env, request.home)
        cwd = os.path.realpath(request.cwd)
        session_id = str(uuid.uuid4())
        model = request.model_id if request.model_id and request.model_id.startswith(
            "claude") else None
        lines = handoff_lines(conversation, session_id=session_id, cwd=cwd, model=model,
                              version=FORMAT_VERSION, started_ms=int(time.time() * 1000))
        path = projects_dir(config_dir) / project_slug(cwd) / f"{session_id}.jsonl"
        write_private(path, encode_lines(lines))
        # the user's claude reads its own config dir; another one must be named
        own = user_config_dir(request.env)
        env = {} if config_dir == own else {"CLAUDE_CONFIG_DIR": str(config_dir)}
        return NativeHandoff(
            harness_id=self.id, native_session_id=session_id, location=str(path),
            command=("claude", "--resume", session_id), cwd=cwd, env=env,
            carried=len(lines), left_out=_handoff_notes(request))


def _restore(path: Path, before: bytes | None) -> None:
    if before is None:
        path.unlink(missing_ok=True)
    else:
        write_private(path, before)


def _handoff_notes(request: HandoffRequest) -> tuple[str, ...]:
    """What a handed-off Claude Code session does not carry as such."""
    calls = images = unanswered = 0
    for message in request.history:
        for block in message.get("content") or ():
            if isinstance(block, Mapping):
                calls += block.get("type") == "toolCall"
                images += block.get("type") == "image"
        unanswered += message.get("role") == "assistant" and message.get(
            "stopReason") in ("error", "aborted")
    notes = []
    if calls:
        notes.append(f"tool calls and their results, written into the replies as text "
                     f"({calls}); Claude Code sees no tool_use blocks of them")
    if images:
        notes.append(f"images, written as [image] ({images})")
    if unanswered:
        notes.append(f"failed or aborted replies ({unanswered})")
    return tuple(notes)
