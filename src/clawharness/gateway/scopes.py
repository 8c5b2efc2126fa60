"""Which operator scope each gateway method needs, as the original maps them.

The rules carried over (`src/gateway/methods/core-descriptors.ts`, `method-scopes.ts`):

- `health` is open to every authenticated connection.
- `operator.admin` satisfies every scope. `operator.write` also satisfies `operator.read`
  (and the session read/write scopes). Session read methods accept
  `operator.sessions.read`; session write methods accept `operator.sessions.write`.
- `agent` needs `operator.write`, or `operator.admin` when the message is `/new` or
  `/reset`. `sessions.reset` needs `operator.admin`; `sessions.delete` needs
  `operator.admin` unless it only deletes archived sessions (`archivedOnly: true`).
- clawharness's own `sessions.adopt` and `sessions.handoff` need `operator.admin`: they
  read and write files of the gateway's machine.
- A method without a policy entry (an unknown method) needs `operator.admin`; an admin
  then gets `unknown method: <name>`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Final

from clawharness.gateway.protocol import missing_scope_error

__all__ = [
    "ADMIN",
    "APPROVALS",
    "OPERATOR_SCOPES",
    "QUESTIONS",
    "READ",
    "WRITE",
    "authorize_method",
    "required_scope",
    "scope_satisfied",
]

READ: Final = "operator.read"
WRITE: Final = "operator.write"
ADMIN: Final = "operator.admin"
APPROVALS: Final = "operator.approvals"
QUESTIONS: Final = "operator.questions"
PAIRING: Final = "operator.pairing"
TALK: Final = "operator.talk"
TALK_SECRETS: Final = "operator.talk.secrets"
SESSIONS_READ: Final = "operator.sessions.read"
SESSIONS_WRITE: Final = "operator.sessions.write"

OPERATOR_SCOPES: Final = frozenset(
    {READ, WRITE, ADMIN, APPROVALS, QUESTIONS, PAIRING, TALK, TALK_SECRETS}
)

_DYNAMIC: Final = "dynamic"

#: static method -> scope (or "dynamic"), for the methods this gateway knows
METHOD_SCOPES: Final[Mapping[str, str]] = {
    "health": READ,
    "status": READ,
    "agent": _DYNAMIC,
    "agent.wait": WRITE,
    "agent.identity.get": READ,
    "chat.send": WRITE,
    "chat.abort": WRITE,
    "chat.history": READ,
    "sessions.list": READ,
    "sessions.subscribe": READ,
    "sessions.unsubscribe": READ,
    "sessions.messages.subscribe": READ,
    "sessions.messages.unsubscribe": READ,
    "sessions.describe": READ,
    "sessions.get": READ,
    "sessions.preview": READ,
    "sessions.resolve": READ,
    "sessions.abort": WRITE,
    "sessions.reset": ADMIN,
    "sessions.delete": _DYNAMIC,
    # clawharness's own: they read and write files of the gateway's machine
    "sessions.adopt": ADMIN,
    "sessions.handoff": ADMIN,
    "sessions.fork": WRITE,
    "sessions.children": READ,
    "sessions.kill": WRITE,
    "sessions.compact": WRITE,
    "sessions.patch": WRITE,
    "agents.list": READ,
    "commands.list": READ,
    "models.list": READ,
    "plugin.approval.list": APPROVALS,
    "plugin.approval.resolve": APPROVALS,
    "config.get": ADMIN,
    "question.list": QUESTIONS,
    "taskSuggestions.list": READ,
    "system-presence": READ,
    "last-heartbeat": READ,
}

_SESSION_READ_METHODS: Final = frozenset({
    "sessions.list", "sessions.subscribe", "sessions.messages.subscribe",
    "sessions.messages.unsubscribe", "sessions.preview", "sessions.describe", "sessions.get",
    "sessions.resolve", "chat.history",
})
_SESSION_WRITE_METHODS: Final = frozenset({
    "question.list", "chat.send", "chat.abort", "sessions.delete", "sessions.abort",
    "sessions.fork", "sessions.compact", "sessions.patch",
})
_RESET_COMMAND: Final = re.compile(r"^/(new|reset)(?:\s+[\s\S]*)?$", re.IGNORECASE)
_DELETE_WRITE_FIELDS: Final = frozenset(
    {"key", "agentId", "deleteTranscript", "expectedSessionId", "archivedOnly"}
)


def scope_satisfied(required: str, granted: Sequence[str]) -> bool:
    """Whether `granted` covers `required`, with the original's implications."""
    if not required.startswith("operator."):
        return False
    if required in granted or ADMIN in granted:
        return True
    if required in (READ, TALK, SESSIONS_READ, SESSIONS_WRITE) and WRITE in granted:
        return True
    return required == SESSIONS_READ and (READ in granted or SESSIONS_WRITE in granted)


def required_scope(method: str, params: Any) -> str:
    """The scope `method` needs with these params (admin for an unclassified method)."""
    scope = METHOD_SCOPES.get(method)
    if scope is None:
        return ADMIN
    if scope != _DYNAMIC:
        return scope
    record = params if isinstance(params, Mapping) else {}
    if method == "agent":
        message = record.get("message")
        return ADMIN if isinstance(message, str) and _RESET_COMMAND.match(message) else WRITE
    if method == "sessions.delete":
        if record.get("archivedOnly") is True and set(record) <= _DELETE_WRITE_FIELDS:
            return WRITE
        return ADMIN
    return WRITE


def _session_scope(method: str, required: str) -> str | None:
    if method in _SESSION_READ_METHODS:
        return SESSIONS_READ
    if method in _SESSION_WRITE_METHODS and required != ADMIN:
        return SESSIONS_WRITE
    return None


def authorize_method(method: str, role: str, scopes: Sequence[str],
                     params: Any) -> dict[str, Any] | None:
    """None when allowed, else the error shape to answer with."""
    if method == "health":
        return None
    if role != "operator":
        return {"code": "INVALID_REQUEST", "message": f"unauthorized role: {role}"}
    if ADMIN in scopes:
        return None
    required = required_scope(method, params)
    if scope_satisfied(required, scopes):
        return None
    session_scope = _session_scope(method, required)
    if session_scope is not None:
        read_ok = required == READ and session_scope == SESSIONS_READ
        write_ok = (required == WRITE or (required == QUESTIONS and method.startswith("question.")))
        if (read_ok or (write_ok and session_scope == SESSIONS_WRITE)) and scope_satisfied(
                session_scope, scopes):
            return None
    return missing_scope_error(required, [required])
