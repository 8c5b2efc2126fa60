"""The Codex harness's portable sessions (docs/portable-sessions.md).

Adopting reads a rollout (by path, or by thread id under the user's
`$CODEX_HOME/sessions`, default `~/.codex`), and binding it copies the file, as read, into
the agent's own CODEX_HOME under the same `sessions/YYYY/MM/DD/` name: the harness's next
`thread/resume {threadId}` finds it there (observed with 0.169: a copied rollout resumes
by id, with or without Codex's state databases in that home). The user's file is never
changed.

Handing off uses Codex's own API in the user's CODEX_HOME: `thread/start` in the
directory it is to run in, then `thread/inject_items` with the host transcript as
Responses API messages; Codex writes the rollout itself, and `codex resume <id>` (or
`codex exec resume <id> PROMPT`) continues it. The user's `config.toml` is read, never
written.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from clawharness.harnesses.codex.bindings import CodexBindings, binding_key
from clawharness.harnesses.codex.client import AppServerClient
from clawharness.harnesses.codex.config import AppServerConfig, build_env, resolve_command
from clawharness.harnesses.codex.rollouts import (
    WHAT,
    handoff_items,
    parse_rollout,
    rollout_date_dirs,
)
from clawharness.harnesses.codex.turn import HARNESS_ID
from clawharness.plugin_sdk.agent_harness_session_runtime import (
    AdoptRequest,
    HandoffRequest,
    NativeAdoption,
    NativeEntry,
    NativeHandoff,
    NativeSessionFormatError,
    NativeSessionNotFoundError,
    read_session_lines,
)

__all__ = ["adopt_rollout", "handoff_thread", "user_codex_home"]

#: the largest rollout adopted (read whole, and copied as it was read)
MAX_ROLLOUT_FILE: Final = 512 * 1024 * 1024


def user_codex_home(env: Mapping[str, str], home: str | None = None) -> Path:
    """The user's CODEX_HOME: `home`, else `$CODEX_HOME`, else `~/.codex`."""
    if home:
        return Path(home).expanduser()
    if env.get("CODEX_HOME"):
        return Path(env["CODEX_HOME"]).expanduser()
    return Path(env.get("HOME") or str(Path.home())) / ".codex"


def _locate(request: AdoptRequest) -> Path:
    source = request.source.strip()
    candidate = Path(source).expanduser()
    if candidate.suffix == ".jsonl" or os.sep in source or candidate.exists():
        if not candidate.exists():
            raise NativeSessionNotFoundError(f"{candidate}: no such file")
        if not candidate.is_file():
            raise NativeSessionFormatError(f"{candidate} is not a file, so not {WHAT}")
        return candidate
    home = user_codex_home(request.env, request.home)
    try:
        uuid.UUID(source)
    except ValueError:
        raise NativeSessionNotFoundError(
            f"{source!r} is neither a file nor a Codex thread id (a UUID)") from None
    found = [p for folder in ("sessions", "archived_sessions")
             for p in (home / folder).rglob(f"rollout-*-{source}.jsonl")]
    if not found:
        raise NativeSessionNotFoundError(
            f"no Codex thread {source} under {home / 'sessions'}",
            hint="pass the rollout file's path, or --home DIR for another CODEX_HOME")
    return max(found, key=lambda p: p.stat().st_mtime)


def _copy_path(agent_home: Path, source: Path) -> Path:
    """Where the agent's CODEX_HOME files the rollout: the same `sessions/` path."""
    parts = source.parts
    if "sessions" in parts[:-1]:
        index = len(parts) - 1 - parts[::-1].index("sessions")
        return agent_home.joinpath("sessions", *parts[index + 1:])
    dated = rollout_date_dirs(source.name)
    if dated is None:
        raise NativeSessionFormatError(
            f"{source}: Codex finds a thread by its rollout's file name "
            "(rollout-<YYYY-MM-DDThh-mm-ss>-<thread id>.jsonl), and this is not one")
    return agent_home.joinpath("sessions", *dated, source.name)


def _write_private(path: Path, data: bytes) -> None:
    """Write `data` to `path` whole or not at all, readable by this user only."""
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


async def adopt_rollout(request: AdoptRequest, *, bindings: CodexBindings,
                        agent_home: Path) -> NativeAdoption:
    """A Codex thread read from its rollout, ready to bind to a host session."""
    path = _locate(request)
    if path.stat().st_size > MAX_ROLLOUT_FILE:
        raise NativeSessionFormatError(
            f"{path}: {path.stat().st_size:,} bytes, over the limit of {MAX_ROLLOUT_FILE:,} "
            "for a rollout")
    data = path.read_bytes()
    rollout = parse_rollout(str(path), read_session_lines(path, what=WHAT, data=data))
    thread = rollout.thread_id
    if thread not in path.name:
        raise NativeSessionFormatError(
            f"{path}: the rollout of thread {thread} under another file name; Codex finds a "
            "thread by its file name, so it would not resume it")
    entries = tuple(NativeEntry(key, message) for key, message in rollout.messages)
    if not entries:
        raise NativeSessionFormatError(f"{path}: the thread holds no messages to adopt")
    bound = await bindings.thread_keys(thread)
    copy = _copy_path(agent_home, path)
    agent = request.agent_id
    cwd = os.path.realpath(request.workspace_dir)
    done: dict[str, Any] = {}

    async def bind(session_key: str, host_session_id: str) -> None:
        before = copy.read_bytes() if copy.exists() else None
        if before is not None and before != data and not data.startswith(before):
            raise NativeSessionFormatError(
                f"{copy} (the harness's copy of thread {thread}) holds turns {path} does "
                "not: the two have diverged; nothing was imported",
                hint="adopt it into a new session key with --as NEWKEY")
        if before != data:
            _write_private(copy, data)
        done["before"] = before
        record = {"state": "active", "sessionId": host_session_id, "threadId": thread,
                  "cwd": cwd, "model": rollout.model, "adoptedFrom": str(path)}
        key = binding_key(agent, session_key)
        try:
            previous = await bindings.replace(
                key, record, when=lambda current: current is None
                or current.get("threadId") in (None, thread))
        except BaseException:
            _restore(copy, before)
            done.clear()
            raise
        done.update(key=key, record=record, previous=previous)

    async def unbind() -> None:
        if "key" in done:
            record = done["record"]
            previous = done["previous"] or {"state": "pending", "sessionId": record["sessionId"]}
            await bindings.replace(done["key"], previous,
                                   when=lambda current: current == record)
        if "before" in done:
            _restore(copy, done["before"])
        done.clear()

    return NativeAdoption(
        harness_id=HARNESS_ID, native_session_id=thread, entries=entries, source=str(path),
        bind=bind, unbind=unbind, bound_keys=bound,
        model_ref=f"openai/{rollout.model}" if rollout.model else None, cwd=rollout.cwd,
        left_out=rollout.left_out)


def _restore(path: Path, before: bytes | None) -> None:
    if before is None:
        path.unlink(missing_ok=True)
    else:
        _write_private(path, before)


async def handoff_thread(request: HandoffRequest, *, config: AppServerConfig,
                         client_version: str) -> NativeHandoff:
    """A Codex thread holding the host transcript, made by Codex itself in the user's
    CODEX_HOME (`thread/start`, `thread/inject_items`)."""
    conversation = request.conversation()
    if not conversation:
        raise NativeSessionFormatError(
            f"host session {request.session_key} has no user or assistant text to hand off")
    if not os.path.isdir(request.cwd):
        raise NativeSessionNotFoundError(
            f"{request.cwd}: no such directory to resume the thread in")
    home = user_codex_home(request.env, request.home)
    home.mkdir(parents=True, exist_ok=True)
    cwd = os.path.realpath(request.cwd)
    argv = resolve_command(config)
    env = build_env(config, str(home), argv[0], host_env=request.env)
    client = await AppServerClient.spawn(argv, env=env, cwd=cwd, label="codex[handoff]",
                                         request_timeout=config.request_timeout_seconds)
    try:
        await client.initialize(client_version, min_version=config.min_version,
                                max_validated_version=config.max_validated_version,
                                timeout=config.startup_timeout_seconds)
        started = await client.request("thread/start", {"cwd": cwd})
        thread = started["thread"]
        thread_id = str(thread["id"])
        await client.request("thread/inject_items", {"threadId": thread_id,
                                                      "items": handoff_items(conversation)})
    finally:
        await client.close()
    location = thread.get("path") if isinstance(thread, Mapping) else None
    own = user_codex_home(request.env)
    return NativeHandoff(
        harness_id=HARNESS_ID, native_session_id=thread_id,
        location=str(location) if isinstance(location, str) else str(home / "sessions"),
        command=("codex", "resume", thread_id), cwd=cwd,
        env={} if home == own else {"CODEX_HOME": str(home)},
        carried=len(conversation), left_out=_notes(request))


def _notes(request: HandoffRequest) -> tuple[str, ...]:
    calls = sum(1 for m in request.history for b in m.get("content") or ()
                if isinstance(b, Mapping) and b.get("type") == "toolCall")
    images = sum(1 for m in request.history for b in m.get("content") or ()
                 if isinstance(b, Mapping) and b.get("type") == "image")
    notes = []
    if calls:
        notes.append(f"tool calls and their results, written into the replies as text "
                     f"({calls}); Codex sees no function_call items of them")
    if images:
        notes.append(f"images, written as [image] ({images})")
    return tuple(notes)
