"""Does a request that ends with tool results continue a session's client tool calls?

A request continues the calls when:

- it says which session explicitly (Responses' `previous_response_id`), or names no
  session at all and its results answer calls this gateway handed to the same caller
  (`memory`): the results then go to that session's next turn, which refuses them (400)
  unless they answer exactly the calls it waits for;
- or it names a session (`x-openclaw-session-key`, `user`) that waits for calls its
  results answer.

Otherwise its tool messages are only context, flattened into the prompt as before (a
client replaying a conversation it made up).
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from typing import Final

from clawharness.attempt import pending_calls
from clawharness.errors import ClawHarnessError
from clawharness.gateway.openai_http.client_tools import ToolResults
from clawharness.gateway.openai_http.context import HttpApi
from clawharness.gateway.openai_http.errors import OpenAiHttpError

__all__ = ["Continuation", "continuation"]

#: transcript entries read to find the calls a session waits for
_TAIL: Final = 64


@dataclass(frozen=True, slots=True)
class Continuation:
    """The session whose calls the request's `results` answer."""

    session_key: str
    results: ToolResults


async def _waiting(api: HttpApi, session_key: str) -> dict[str, str]:
    with contextlib.suppress(ClawHarnessError):  # (no such session: it waits for nothing)
        return pending_calls(await api.host.history(session_key, last=_TAIL))
    return {}


async def continuation(api: HttpApi, results: ToolResults | None, *,
                       session_key: str | None, explicit: bool,
                       caller: str) -> Continuation | None:
    """The continuation the request asks for (see the module docstring), or None.
    `session_key`: the session the request names (None: none); `explicit`: it named it
    to continue it."""
    if results is None:
        return None
    if session_key is None:
        memory = api.keeper().memory
        found = {call.call_id: await memory.recall("call", call.call_id, caller=caller)
                 for call in results.results}
        sessions = {s for s in found.values() if s is not None}
        if not sessions:
            return None
        if len(sessions) > 1:
            raise OpenAiHttpError(400, "these tool results answer calls of different "
                                  f"sessions ({', '.join(sorted(sessions))}): send one "
                                  "session's results per request",
                                  code="tool_results_mixed")
        return Continuation(sessions.pop(), results)
    if explicit:
        return Continuation(session_key, results)
    waiting = await _waiting(api, session_key)
    if any(call.call_id in waiting for call in results.results):
        return Continuation(session_key, results)
    return None
