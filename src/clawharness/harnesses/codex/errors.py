"""Errors of the Codex harness, a branch of clawharness's one error tree.

    HarnessError
    └── CodexAppServerError
        ├── CodexConfigError              plugins.entries.codex.config.appServer is invalid
        ├── CodexBinaryNotFoundError      no `codex` binary (also a harness-scoped preflight)
        ├── CodexVersionError             the server's version is refused (also preflight)
        ├── CodexProtocolError            a handshake answer of the wrong shape (also preflight)
        ├── CodexRequestError             the server answered a request with an error
        ├── CodexRequestTimeoutError      no answer in time
        ├── CodexProcessExitedError       the app-server process exited or crashed
        ├── CodexPoolClosedError          the process pool was closed
        └── CodexBindingChangedError      a binding changed while an adoption wrote it
"""

from __future__ import annotations

import re
from typing import Any, Final

from clawharness.plugin_sdk.agent_harness_runtime import AgentHarnessPreflightError, HarnessError

__all__ = [
    "CodexAppServerError",
    "CodexBinaryNotFoundError",
    "CodexBindingChangedError",
    "CodexConfigError",
    "CodexPoolClosedError",
    "CodexProcessExitedError",
    "CodexProtocolError",
    "CodexRequestError",
    "CodexRequestTimeoutError",
    "CodexVersionError",
    "unknown_thread",
]


class CodexAppServerError(HarnessError):
    """Root of the Codex harness's errors."""

    code = "codex_app_server_error"


class CodexBindingChangedError(CodexAppServerError):
    """A session's thread binding changed between an adoption's check and its write
    (another adoption, or a turn, got there first); nothing was written."""

    code = "codex_binding_changed"


class CodexConfigError(CodexAppServerError):
    """`plugins.entries.codex.config.appServer` has a value of the wrong shape."""

    code = "codex_config_invalid"

    def __init__(self, key: str, message: str) -> None:
        super().__init__(f"plugins.entries.codex.config.appServer.{key}: {message}")
        self.key = key


class CodexBinaryNotFoundError(AgentHarnessPreflightError, CodexAppServerError):
    """The configured (or PATH) `codex` binary does not exist."""

    code = "codex_binary_not_found"

    def __init__(self, command: str, detail: str) -> None:
        super().__init__(
            f"Codex app-server binary {command!r} {detail}. Install the npm package "
            "@openai/codex (npm install -g @openai/codex) or set "
            "plugins.entries.codex.config.appServer.command to the codex binary.",
            scope="harness",
        )
        self.command = command


class CodexVersionError(AgentHarnessPreflightError, CodexAppServerError):
    """The app-server's version is older than the minimum, malformed or missing."""

    code = "codex_app_server_version"

    def __init__(self, message: str, *, user_agent: str | None = None,
                 version: str | None = None) -> None:
        super().__init__(message, scope="harness")
        self.user_agent = user_agent
        self.version = version


class CodexProtocolError(AgentHarnessPreflightError, CodexAppServerError):
    """The app-server answered the handshake with something of the wrong shape."""

    code = "codex_app_server_protocol"

    def __init__(self, message: str) -> None:
        super().__init__(message, scope="harness")


class CodexRequestError(CodexAppServerError):
    """An `{id, error}` answer to one of our requests."""

    code = "codex_request_failed"

    def __init__(self, method: str, error_code: int | None, message: str,
                 data: Any = None) -> None:
        super().__init__(f"Codex app-server {method} failed: {message}")
        self.method = method
        self.error_code = error_code
        self.detail = message
        self.data = data


class CodexRequestTimeoutError(CodexAppServerError):
    """A request got no answer within its timeout."""

    code = "codex_request_timeout"

    def __init__(self, method: str, timeout: float) -> None:
        super().__init__(f"Codex app-server {method} got no answer within {timeout:g} s")
        self.method = method
        self.timeout = timeout


class CodexProcessExitedError(CodexAppServerError):
    """The app-server process is gone: it exited, crashed or was closed."""

    code = "codex_app_server_exited"

    def __init__(self, message: str, *, returncode: int | None = None,
                 stderr_tail: str = "") -> None:
        super().__init__(message)
        self.returncode = returncode
        self.stderr_tail = stderr_tail


class CodexPoolClosedError(CodexAppServerError):
    """The process pool is closed; no new turns start."""

    code = "codex_pool_closed"


#: Codex's own words (0.169) when `thread/resume` names a thread whose rollout its
#: CODEX_HOME does not hold (a new CODEX_HOME, another machine, a deleted rollout)
_NO_ROLLOUT: Final = re.compile(r"no rollout found for (?:thread|conversation) id (\S+)")


def unknown_thread(error: CodexRequestError, thread_id: str) -> bool:
    """Whether `error` is Codex saying that `thread/resume` of `thread_id` found no such
    thread. Anything else (a malformed id, a timeout, a dead process) is not: it must
    not cost the session its binding."""
    if error.method != "thread/resume":
        return False
    match = _NO_ROLLOUT.fullmatch(error.detail.strip())
    return match is not None and match.group(1) == thread_id
