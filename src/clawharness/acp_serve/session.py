"""One ACP session as this connection holds it, and how its updates reach the client.

ACP session ids are host session keys: `session/new` makes `agent:<agent>:acp-<uuid>`
(the agent from `_meta.agentId`, else the one `clawharness acp --agent` names, else the
default agent); `session/load` and `session/resume` take any host key (a bare name means
the default agent's, as everywhere), so a conversation begun in a terminal or over the
gateway opens in an editor. What ACP knows of a session that the host does not (its
working directory, its mode, a title) is kept in the session's meta under `acp`, so it
survives the process: a client reconnecting later finds it as it left it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Protocol

from clawharness.acp_serve.updates import SessionUpdate
from clawharness.runs import RunHandle

__all__ = ["META_KEY", "AcpSession", "UpdateSender", "acp_meta", "new_session_key"]

log = logging.getLogger("clawharness.acp")

#: where a host session's meta keeps what ACP knows of it
META_KEY: Final = "acp"
#: the name part of a session key `session/new` makes
KEY_PREFIX: Final = "acp-"


def new_session_key(agent_id: str) -> str:
    return f"agent:{agent_id}:{KEY_PREFIX}{uuid.uuid4()}"


class UpdateClient(Protocol):
    """What the sender needs of the connection to the client."""

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None: ...


class UpdateSender:
    """Sends one session's updates to the client in the order they were made.

    Turn events arrive synchronously (a run's listener must not block), so they are
    queued here and one task sends them. `flush()` waits until everything queued so far
    is sent: a request to the client about a tool call (a permission, a file write) is
    made only after the client heard of the call.
    """

    def __init__(self, client: UpdateClient, session_id: str) -> None:
        self._client = client
        self._session_id = session_id
        self._queue: asyncio.Queue[SessionUpdate] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    def send(self, update: SessionUpdate) -> None:
        self._queue.put_nowait(update)
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(
                self._pump(), name=f"acp-updates-{self._session_id}")

    async def _pump(self) -> None:
        while True:
            update = await self._queue.get()
            try:
                await self._client.session_update(self._session_id, update)
            except Exception as exc:  # a client gone or refusing must not stop the turn
                log.warning("session/update to the client failed: %s", exc)
            finally:
                self._queue.task_done()

    async def flush(self) -> None:
        """Wait until every update queued so far was sent."""
        await self._queue.join()

    async def close(self) -> None:
        with contextlib.suppress(asyncio.TimeoutError):
            await asyncio.wait_for(self.flush(), 5.0)
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task


@dataclass(slots=True)
class AcpSession:
    """An ACP session this connection opened (`session/new|load|resume`)."""

    #: the ACP session id: the host session key, as the client spelled it
    id: str
    #: the host session key
    key: str
    agent_id: str
    #: the client's working directory: the session's turns work in it
    cwd: str
    mode: str
    sender: UpdateSender
    title: str | None = None
    #: the runs of this session's prompts still going, and the ones a cancel stopped
    runs: list[RunHandle] = field(default_factory=list)
    cancelled: set[str] = field(default_factory=set)
    #: tool calls whose content (a diff, a terminal) a preview must not replace
    rich_calls: set[str] = field(default_factory=set)
    #: what "always allow" answers granted, for the rest of this session here (the
    #: approval subject's grant keys: an exec command's programs, a tool)
    grants: set[str] = field(default_factory=set)
    #: what the session's priced turns cost, in USD (the store's spend rows when it was
    #: opened, plus each prompt's turn here); None while no turn of it was priced
    cost_usd: float | None = None

    def add_cost(self, usd: float | None) -> None:
        if usd is not None:
            self.cost_usd = usd if self.cost_usd is None else self.cost_usd + usd

    def meta(self) -> dict[str, Any]:
        """What the host session's meta keeps for ACP."""
        kept: dict[str, Any] = {"cwd": self.cwd, "mode": self.mode}
        if self.title:
            kept["title"] = self.title
        return {META_KEY: kept}


def acp_meta(meta: Mapping[str, Any]) -> Mapping[str, Any]:
    """The `acp` part of a host session's meta (empty when ACP never opened it)."""
    kept = meta.get(META_KEY)
    return kept if isinstance(kept, Mapping) else {}
