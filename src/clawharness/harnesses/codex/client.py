"""A JSON-lines client of one `codex app-server` process over stdio.

- Requests are correlated by id and time out; `{id, error}` answers raise
  CodexRequestError.
- Server-to-client requests go to the listener of their `threadId` (else to a handler
  registered for the method) and are answered with its result; a listener may return
  `NO_RESPONSE` to leave a request for another client. A request nobody handles gets an
  error answer, so the server never waits forever.
- Notifications go to the listener of their `threadId` and to global listeners; the
  ones nobody listens to are dropped.
- When the process exits (or its stdout closes) every pending request and every thread
  listener fails with CodexProcessExitedError naming the exit status and stderr's tail.
- `close()` closes stdin, waits, then SIGTERM, then SIGKILL, for the whole process group
  (Codex's own children included).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final, Protocol

from clawharness.harnesses.codex.errors import (
    CodexProcessExitedError,
    CodexRequestError,
    CodexRequestTimeoutError,
)
from clawharness.harnesses.codex.protocol import (
    MAX_VALIDATED_CODEX_VERSION,
    MIN_CODEX_VERSION,
    Notification,
    Request,
    Response,
    ServerIdentity,
    check_server_version,
    decode_line,
    encode,
    initialize_params,
)
from clawharness.plugin_sdk.agent_harness_process import (
    MAX_NATIVE_FRAME_BYTES,
    InputLimitError,
    read_frame_line,
)

__all__ = [
    "NO_RESPONSE",
    "TAG_VARIABLE",
    "AppServerClient",
    "RequestHandler",
    "ThreadListener",
]

log = logging.getLogger("clawharness.harnesses.codex")


class _NoResponse:
    def __repr__(self) -> str:
        return "NO_RESPONSE"


#: returned by a request handler: leave the request unanswered (not ours to answer)
NO_RESPONSE: Final = _NoResponse()

RequestHandler = Callable[[Request], Awaitable[Any]]

#: lines up to this size are read whole (thread/resume answers carry whole histories)
STREAM_LIMIT = MAX_NATIVE_FRAME_BYTES
METHOD_NOT_FOUND = -32601
INTERNAL_ERROR = -32603
#: set in every app-server's environment; its children inherit it, even the ones that
#: leave its process group (Codex starts shells with setsid)
TAG_VARIABLE = "CLAWHARNESS_CODEX_PROCESS"


class ThreadListener(Protocol):
    """Receives one thread's traffic. `on_notification` must not block."""

    def on_notification(self, note: Notification) -> None: ...

    async def on_request(self, request: Request) -> Any: ...

    def on_closed(self, error: CodexProcessExitedError) -> None: ...


def _thread_of(params: Mapping[str, Any]) -> str | None:
    value = params.get("threadId", params.get("conversationId"))
    if isinstance(value, str):
        return value
    thread = params.get("thread")
    if isinstance(thread, Mapping) and isinstance(thread.get("id"), str):
        return str(thread["id"])
    return None


class AppServerClient:
    """One app-server process and the JSON-lines session with it."""

    def __init__(self, process: asyncio.subprocess.Process, *, label: str = "codex",
                 request_timeout: float = 60.0, stderr_lines: int = 40) -> None:
        self.process = process
        self.label = label
        self.request_timeout = request_timeout
        self.identity: ServerIdentity | None = None
        self._next_id = 1
        self._pending: dict[int | str, asyncio.Future[Any]] = {}
        self._listeners: dict[str, ThreadListener] = {}
        self._global: list[Callable[[Notification], None]] = []
        self._handlers: dict[str, RequestHandler] = {}
        self._request_tasks: set[asyncio.Task[None]] = set()
        self._stderr: deque[str] = deque(maxlen=stderr_lines)
        self._closing = False
        self._exit_error: CodexProcessExitedError | None = None
        self._closed = asyncio.Event()
        self._gone_task: asyncio.Task[CodexProcessExitedError] | None = None
        self._tag: str | None = None
        self._on_exit: list[Callable[[CodexProcessExitedError], None]] = []
        loop = asyncio.get_running_loop()
        self._reader = loop.create_task(self._read_stdout(), name=f"{label}-stdout")
        self._stderr_reader = loop.create_task(self._read_stderr(), name=f"{label}-stderr")

    # --- construction ----------------------------------------------------------------

    @classmethod
    async def spawn(cls, argv: Sequence[str], *, env: Mapping[str, str], cwd: str | None = None,
                    label: str = "codex", request_timeout: float = 60.0) -> AppServerClient:
        """Start `argv` in its own process group with exactly `env` (plus a tag that lets
        us find, and stop, the children it starts in sessions of their own)."""
        tag = f"{uuid.uuid4().hex}"
        process = await asyncio.create_subprocess_exec(
            *argv, stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, env={**env, TAG_VARIABLE: tag}, cwd=cwd,
            start_new_session=True, limit=STREAM_LIMIT)
        client = cls(process, label=label, request_timeout=request_timeout)
        client._tag = tag
        return client

    async def initialize(self, client_version: str, *, min_version: str = MIN_CODEX_VERSION,
                         max_validated_version: str | None = MAX_VALIDATED_CODEX_VERSION,
                         timeout: float | None = None) -> ServerIdentity:
        """The handshake: `initialize`, the version gate, then `initialized`.

        A refused version raises CodexVersionError before anything else is sent.
        """
        result = await self.request("initialize", initialize_params(client_version),
                                    timeout=timeout)
        identity = check_server_version(result, min_version=min_version,
                                        max_validated_version=max_validated_version)
        if identity.warning:
            log.warning("%s: %s", self.label, identity.warning)
        await self.notify("initialized")
        self.identity = identity
        return identity

    # --- state ---------------------------------------------------------------------------

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def closed(self) -> bool:
        """True once the process is gone (or going)."""
        return self._closing or self._exit_error is not None

    @property
    def exit_error(self) -> CodexProcessExitedError | None:
        return self._exit_error

    def stderr_tail(self) -> str:
        return "\n".join(self._stderr)

    def on_exit(self, callback: Callable[[CodexProcessExitedError], None]) -> None:
        """Call `callback(error)` once when the process is gone."""
        if self._exit_error is not None:
            callback(self._exit_error)
        else:
            self._on_exit.append(callback)

    async def wait_closed(self) -> None:
        await self._closed.wait()

    # --- routing ---------------------------------------------------------------------------

    def subscribe(self, thread_id: str, listener: ThreadListener) -> None:
        """Route `thread_id`'s notifications and requests to `listener` (one per thread)."""
        if self._exit_error is not None:
            listener.on_closed(self._exit_error)
            return
        self._listeners[thread_id] = listener

    def unsubscribe(self, thread_id: str, listener: ThreadListener) -> None:
        if self._listeners.get(thread_id) is listener:
            del self._listeners[thread_id]

    def add_listener(self, callback: Callable[[Notification], None]) -> None:
        """Receive every notification (after the thread's listener)."""
        self._global.append(callback)

    def set_request_handler(self, method: str, handler: RequestHandler) -> None:
        """Answer `method` requests that no thread listener takes."""
        self._handlers[method] = handler

    # --- requests --------------------------------------------------------------------------

    def _assert_open(self, method: str) -> None:
        if self._exit_error is not None:
            raise self._exit_error
        if self._closing:
            raise CodexProcessExitedError(
                f"{self.label}: cannot send {method}: the app-server is closing")

    async def _write(self, message: Mapping[str, Any], method: str) -> None:
        stdin = self.process.stdin
        assert stdin is not None
        try:
            stdin.write(encode(message))
            await stdin.drain()
        except (BrokenPipeError, ConnectionResetError) as exc:
            error = await self._gone(f"stdin closed while sending {method}")
            raise error from exc

    async def request(self, method: str, params: Mapping[str, Any] | None = None, *,
                      timeout: float | None = None) -> Any:
        """Send a request and wait for its result."""
        self._assert_open(method)
        request_id = self._next_id
        self._next_id += 1
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        limit = self.request_timeout if timeout is None else timeout
        try:
            await self._write({"id": request_id, "method": method,
                               "params": dict(params or {})}, method)
            async with asyncio.timeout(limit):
                response: Response = await future
        except TimeoutError:
            raise CodexRequestTimeoutError(method, limit) from None
        finally:
            self._pending.pop(request_id, None)
        if response.error is not None:
            error = response.error
            code = error.get("code")
            raise CodexRequestError(method, code if isinstance(code, int) else None,
                                    str(error.get("message", "error")), error.get("data"))
        return response.result

    async def notify(self, method: str, params: Mapping[str, Any] | None = None) -> None:
        self._assert_open(method)
        message: dict[str, Any] = {"method": method}
        if params is not None:
            message["params"] = dict(params)
        await self._write(message, method)

    # --- reading ---------------------------------------------------------------------------

    async def _read_stdout(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        why = "stdout closed"
        try:
            while True:
                try:
                    line = await read_frame_line(stdout, what="the Codex app-server's output",
                                                 max_bytes=STREAM_LIMIT)
                    if not line:
                        break
                    message = decode_line(line)
                except InputLimitError as exc:  # the stream is unusable past a limit
                    log.error("%s: %s", self.label, exc)
                    why = str(exc)
                    break
                except ValueError:
                    log.warning("%s: ignoring a non-JSON line: %.200r", self.label, line)
                    continue
                if message is not None:
                    self._dispatch(message)
        finally:
            await self._gone(why)

    async def _read_stderr(self) -> None:
        stderr = self.process.stderr
        assert stderr is not None
        with contextlib.suppress(ValueError, ConnectionError):
            while line := await stderr.readline():
                text = line.decode("utf-8", "replace").rstrip()
                self._stderr.append(text)
                log.debug("%s stderr: %s", self.label, text)

    def _dispatch(self, message: Notification | Request | Response) -> None:
        if isinstance(message, Response):
            future = self._pending.get(message.id)
            if future is not None and not future.done():
                future.set_result(message)
            return
        if isinstance(message, Notification):
            thread_id = _thread_of(message.params)
            listener = self._listeners.get(thread_id) if thread_id else None
            if listener is not None:
                listener.on_notification(message)
            for callback in self._global:
                callback(message)
            return
        # who answers is decided now, in stream order, not when the task first runs
        thread_id = _thread_of(message.params)
        listener = self._listeners.get(thread_id) if thread_id else None
        task = asyncio.get_running_loop().create_task(
            self._answer(message, thread_id, listener, self._handlers.get(message.method)))
        self._request_tasks.add(task)
        task.add_done_callback(self._request_tasks.discard)

    async def _answer(self, request: Request, thread_id: str | None,
                      listener: ThreadListener | None, handler: RequestHandler | None) -> None:
        reply: dict[str, Any]
        try:
            if listener is not None:
                result = await listener.on_request(request)
            elif handler is not None:
                result = await handler(request)
            else:
                result = None
                reply = {"id": request.id, "error": {
                    "code": METHOD_NOT_FOUND,
                    "message": f"{request.method} is not handled by this client"
                               + (f" for thread {thread_id}" if thread_id else "")}}
            if listener is not None or handler is not None:
                if result is NO_RESPONSE:
                    return
                reply = {"id": request.id, "result": result if result is not None else {}}
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("%s: handling %s failed: %s", self.label, request.method, exc)
            reply = {"id": request.id, "error": {"code": INTERNAL_ERROR,
                                                 "message": str(exc) or type(exc).__name__}}
        if self.closed:
            return
        with contextlib.suppress(CodexProcessExitedError):
            await self._write(reply, request.method)

    # --- ending ------------------------------------------------------------------------------

    async def _gone(self, why: str) -> CodexProcessExitedError:
        """Settle everything once the process is unusable; returns the exit error."""
        if self._exit_error is not None:
            return self._exit_error
        if self._gone_task is None:
            self._gone_task = asyncio.get_running_loop().create_task(self._settle_gone(why))
        return await asyncio.shield(self._gone_task)

    async def _settle_gone(self, why: str) -> CodexProcessExitedError:
        returncode = self.process.returncode
        if returncode is None:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(2.0):
                    returncode = await self.process.wait()
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(0.5):  # let stderr's last words arrive
                await asyncio.shield(self._stderr_reader)
        tail = self.stderr_tail()
        if self._closing:
            message = f"{self.label}: the app-server (pid {self.pid}) was closed"
        else:
            status = (f"exited with code {returncode}" if returncode is not None and returncode >= 0
                      else f"was killed by signal {-returncode}" if returncode is not None
                      else f"stopped answering ({why})")
            message = f"{self.label}: the Codex app-server (pid {self.pid}) {status}"
            if tail:
                message += f"; stderr: {tail[-800:]}"
        error = CodexProcessExitedError(message, returncode=returncode, stderr_tail=tail)
        self._exit_error = error
        self._kill_group(signal.SIGKILL)
        if self._tag is not None:
            await kill_tagged(self._tag)
        for future in self._pending.values():
            if not future.done():
                future.set_exception(error)
        listeners = list(self._listeners.values())
        self._listeners.clear()
        for listener in listeners:
            listener.on_closed(error)
        callbacks, self._on_exit = self._on_exit, []
        for callback in callbacks:
            callback(error)
        for task in list(self._request_tasks):
            task.cancel()
        self._closed.set()
        return error

    def _kill_group(self, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, sig)

    async def close(self, *, grace: float = 3.0, term_grace: float = 2.0) -> None:
        """Stop the process: close stdin, wait `grace`, SIGTERM, wait, SIGKILL."""
        if self._closed.is_set():
            await self._settle_tasks()
            return
        if self._closing:
            await self._closed.wait()
            return
        self._closing = True
        stdin = self.process.stdin
        if stdin is not None:
            with contextlib.suppress(Exception):
                stdin.close()
        try:
            async with asyncio.timeout(grace):
                await self.process.wait()
        except TimeoutError:
            self._kill_group(signal.SIGTERM)
            try:
                async with asyncio.timeout(term_grace):
                    await self.process.wait()
            except TimeoutError:
                self._kill_group(signal.SIGKILL)
                await self.process.wait()
        await self._gone("closed")
        await self._settle_tasks()

    async def _settle_tasks(self) -> None:
        tasks = [self._reader, self._stderr_reader, *self._request_tasks]
        for task in tasks:
            if not task.done() and task is not asyncio.current_task():
                task.cancel()
        await asyncio.gather(*(t for t in tasks if t is not asyncio.current_task()),
                             return_exceptions=True)


def _tagged_pids(needle: bytes) -> list[int]:
    found: list[int] = []
    try:
        entries = os.listdir("/proc")
    except OSError:  # no procfs: only the process group is reachable
        return found
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                if needle not in fh.read():
                    continue
            with open(f"/proc/{entry}/stat", "rb") as fh:
                state = fh.read().rsplit(b")", 1)[1].split()[0]
        except OSError:
            continue
        if state not in (b"Z", b"X"):
            found.append(int(entry))
    return found


async def kill_tagged(tag: str, *, wait: float = 2.0) -> None:
    """SIGKILL every live process carrying `TAG_VARIABLE=tag`, and wait until they die."""
    needle = f"{TAG_VARIABLE}={tag}".encode()
    loop = asyncio.get_running_loop()
    pids = await loop.run_in_executor(None, _tagged_pids, needle)
    if not pids:
        return
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    end = loop.time() + wait
    while pids and loop.time() < end:
        await asyncio.sleep(0.01)
        pids = await loop.run_in_executor(None, _tagged_pids, needle)
