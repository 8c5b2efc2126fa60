"""The session errors (`SessionError`): keys, lookups, the writer, queued messages,
forks, sub-agents, and adopting or handing off native sessions. Import them from
`clawharness.errors`."""

from __future__ import annotations

from clawharness.errors._root import ClawHarnessError

__all__ = [
    "InvalidSessionKeyError",
    "MessageWithdrawnError",
    "NativeSessionBoundError",
    "NativeSessionError",
    "NativeSessionFormatError",
    "NativeSessionNotFoundError",
    "NativeSessionUnsupportedError",
    "SessionBusyError",
    "SessionError",
    "SessionForkError",
    "SessionNotFoundError",
    "SubagentError",
    "SubagentForbiddenError",
    "UnknownAgentError",
]


class SessionError(ClawHarnessError):
    code = "session_error"


class InvalidSessionKeyError(SessionError):
    code = "invalid_session_key"


class SessionNotFoundError(SessionError):
    code = "session_not_found"


class SessionBusyError(SessionError):
    code = "session_busy"


class MessageWithdrawnError(SessionError):
    """A message waiting behind its session's running turn was aborted before it ran
    (`clawharness.sessions.queue`): it was never run and is not in the transcript."""

    code = "message_withdrawn"


class UnknownAgentError(SessionError):
    """A session key names an agent the config does not define (`agent:ghost:x`): its
    turn would otherwise run under `agents.defaults` and escape the agent's own policy."""

    code = "unknown_agent"


class SessionForkError(SessionError):
    """A fork that cannot be made: a fork point the transcript does not have (or one that
    cuts a tool call from its result), a target key already in use, a runtime the
    chosen model's route does not allow. Nothing was written."""

    code = "session_fork"

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


class SubagentError(SessionError):
    """A sub-agent that cannot be spawned (a limit, an agent not allowed), found or
    killed (docs/portable-sessions.md, sub-agents)."""

    code = "subagent_error"

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


class SubagentForbiddenError(SubagentError):
    """A spawn a limit or the policy refuses: the depth limit, too many active children,
    an agent the parent may not spawn (`sessions_spawn` answers `status: "forbidden"`)."""

    code = "subagent_forbidden"


class NativeSessionError(SessionError):
    """Adopting a native runtime's session into the host, or handing a host session to a
    native runtime, failed (docs/portable-sessions.md). Nothing was stored: an adoption
    is all or nothing."""

    code = "native_session_error"

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


class NativeSessionFormatError(NativeSessionError):
    """A file that is not a session of the runtime named (another runtime's, not JSON
    lines, cut off mid-line); the message names the file and the line."""

    code = "native_session_format"


class NativeSessionNotFoundError(NativeSessionError):
    """No native session by that id, or no file at that path, where the runtime keeps
    its sessions; the message names where it looked."""

    code = "native_session_not_found"


class NativeSessionBoundError(NativeSessionError):
    """The native session is already adopted by another host session, or the host
    session holds another conversation."""

    code = "native_session_bound"


class NativeSessionUnsupportedError(NativeSessionError):
    """The runtime (or its harness) cannot adopt or hand off sessions, or not this way."""

    code = "native_session_unsupported"
