"""The llama.cpp server subprocess serving SmolLM2 on loopback (`LlamaServer`).

Starting it loads the model (a few seconds), so a test session starts one and shares it;
`RealModelServer` (front.py) puts a recording front before it per test. The subprocess
serves until `stop()`, and also ends by itself when this process dies (its standard
input is a pipe from here; `_serve.py` exits at EOF).
"""

from __future__ import annotations

import json
import os
import selectors
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import TracebackType
from typing import IO, Any

from clawharness.errors import RealModelError
from clawharness.testing.real_model.runtime import CONTEXT_WINDOW, MODEL_ID, RealModelRuntime

__all__ = ["CHATML_TOOLS_TEMPLATE", "LlamaServer", "LlamaSettings", "default_threads"]

_HERE = Path(__file__).resolve().parent
_SERVE_SCRIPT = _HERE / "_serve.py"
#: the chat template that lets SmolLM2 see tools and call them (see the file's comment)
CHATML_TOOLS_TEMPLATE = _HERE / "chatml_tools.jinja"
#: how long the model may take to load (a cold page cache on a busy 2-core machine)
START_TIMEOUT = 180.0
THREADS_ENV = "CLAWHARNESS_REAL_MODEL_THREADS"


def default_threads() -> int:
    """`CLAWHARNESS_REAL_MODEL_THREADS`, else two (or one on a one-core machine).

    The server runs with `OMP_WAIT_POLICY=PASSIVE`: this build of llama.cpp syncs its
    threads with OpenMP barriers, which by default spin, and on a machine whose cores are
    busy with other work two spinning threads generated at 1 token/s instead of 20-40
    (docs/real-model.md).
    """
    value = os.environ.get(THREADS_ENV, "")
    if value.isdigit() and int(value) > 0:
        return int(value)
    return max(1, min(2, os.cpu_count() or 1))


@dataclass(frozen=True, slots=True)
class LlamaSettings:
    """How the server runs. Sampling is greedy unless a request says otherwise."""

    context_window: int = CONTEXT_WINDOW
    threads: int = field(default_factory=default_threads)
    #: the cap on one answer when a request sets no `max_tokens` (greedy decoding of a
    #: small model can repeat itself until the context is full)
    max_output_tokens: int = 512
    seed: int = 42
    #: reuse the KV cache of the previous request's common prefix. Off by default: a
    #: prefix from the cache gives logits a little different from a fresh evaluation
    #: (measured: up to 0.3 in log probability), so with it an answer would depend on the
    #: requests before it; off, every request is evaluated whole and is repeatable.
    cache_prompt: bool = False
    host: str = "127.0.0.1"
    port: int = 0
    template: Path = CHATML_TOOLS_TEMPLATE


class LlamaServer:
    """The llama.cpp server subprocess. `with LlamaServer(runtime) as server: server.url`."""

    def __init__(self, runtime: RealModelRuntime, settings: LlamaSettings | None = None,
                 *, log_path: Path | None = None) -> None:
        self.runtime = runtime.require()
        self.settings = settings or LlamaSettings()
        self.model_id = MODEL_ID
        self._log_path = log_path
        #: a log file this object made up (removed at `stop`; the caller's stays)
        self._own_log = log_path is None
        self._log: IO[bytes] | None = None
        self._process: subprocess.Popen[bytes] | None = None
        self._url: str | None = None
        #: seconds from spawning the process to the server answering (model load included)
        self.startup_seconds: float | None = None

    @property
    def url(self) -> str:
        """`http://127.0.0.1:PORT` (after `start`)."""
        if self._url is None:
            raise RuntimeError("the llama.cpp server is not started")
        return self._url

    @property
    def log_path(self) -> Path:
        """llama.cpp's own log (stderr of the subprocess)."""
        if self._log_path is None:
            raise RuntimeError("the llama.cpp server is not started")
        return self._log_path

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process is not None else None

    def start(self, timeout: float = START_TIMEOUT) -> None:
        """Spawn the server and wait until it has loaded the model and listens."""
        if self._process is not None:
            raise RuntimeError("the llama.cpp server is already running")
        settings = self.settings
        if self._log_path is None:
            handle, name = tempfile.mkstemp(prefix="llama-server-", suffix=".log")
            os.close(handle)
            self._log_path = Path(name)
        payload: dict[str, Any] = asdict(settings)
        payload.update(template=str(settings.template),
                       chat_template=settings.template.read_text(encoding="utf-8"),
                       model_path=str(self.runtime.model_path),
                       site_dir=str(self.runtime.site_dir), model_id=self.model_id)
        self._log = self._log_path.open("ab")
        started = time.monotonic()
        self._process = subprocess.Popen(
            [sys.executable, "-u", str(_SERVE_SCRIPT), json.dumps(payload)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
            env={**os.environ, "OMP_WAIT_POLICY": os.environ.get("OMP_WAIT_POLICY", "PASSIVE")},
        )
        try:
            line = self._first_line(timeout)
            message = json.loads(line) if line.strip() else {}
            if "listening" not in message:
                raise RealModelError(
                    f"the llama.cpp server did not start: {message.get('error') or 'it exited'}"
                    f"\n{self._log_tail()}")
        except BaseException:
            self.stop()
            raise
        self._url = str(message["listening"]).rstrip("/")
        self.startup_seconds = time.monotonic() - started

    def _first_line(self, timeout: float) -> str:
        process = self._process
        assert process is not None and process.stdout is not None
        deadline = time.monotonic() + timeout
        with selectors.DefaultSelector() as selector:
            selector.register(process.stdout, selectors.EVENT_READ)
            while True:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise RealModelError(
                        f"the llama.cpp server did not listen within {timeout:.0f} s\n"
                        f"{self._log_tail()}")
                if selector.select(left):
                    return process.stdout.readline().decode("utf-8", "replace")

    def _log_tail(self, lines: int = 20) -> str:
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
        except (OSError, RuntimeError):
            return ""
        tail = "\n".join(text.splitlines()[-lines:])
        return f"last lines of its log ({self._log_path}):\n{tail}"

    def stop(self, timeout: float = 15.0) -> None:
        """End the subprocess (idempotent): close its stdin, then SIGTERM, then SIGKILL."""
        process, self._process = self._process, None
        self._url = None
        if process is not None:
            if process.stdin is not None:
                process.stdin.close()
            try:
                process.wait(timeout / 3)
            except subprocess.TimeoutExpired:
                process.terminate()
                try:
                    process.wait(timeout)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            if process.stdout is not None:
                process.stdout.close()
        if self._log is not None:
            self._log.close()
            self._log = None
            if self._own_log and self._log_path is not None:
                self._log_path.unlink(missing_ok=True)
                self._log_path = None

    def __enter__(self) -> LlamaServer:
        self.start()
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.stop()
