"""Approvals and questions for the user across the cluster: the turn runs on a worker,
the person who can answer is at its front.

A front whose caller has an approval gate (or a user-input channel) says so in the turn
request; the worker then gives the turn a gate that relays each question: an `approval`
(or `question`) row on the turn's events, which the front hands to its caller's gate, and
the answer back as a row of its own (`reply/<turn id>/<question id>`) that the worker
waits on. A front with neither gets none: its turns run as they do in-process without
one (approvals refused, questions unanswered). A worker waits a bounded time; a front
that died leaves the question unanswered, which is a refusal.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, get_args

from clawharness._ids import new_id
from clawharness.cluster.events import TurnEventRelay, reply_key
from clawharness.harness.capabilities import ApprovalDecision, ApprovalRequest, ApprovalSubject
from clawharness.harness.user_input import UserInputOption, UserInputQuestion
from clawharness.harness.user_input_delivery import UserInputPrompt

if TYPE_CHECKING:
    from clawharness.attempt.turn import TurnOptions
    from clawharness.cluster.events import TurnEvent

__all__ = [
    "APPROVAL_WAIT_SECONDS",
    "QUESTION_KINDS",
    "RelayedApprovals",
    "RelayedUserInput",
    "answer_question",
]

log = logging.getLogger("clawharness.cluster.questions")

#: the longest a worker waits for an approval (the front's gate has its own, shorter,
#: timeout; this bounds a front that died with the question open)
APPROVAL_WAIT_SECONDS: Final = 900.0
#: beyond a question's own timeout, for the answer to travel back
REPLY_GRACE_SECONDS: Final = 10.0
QUESTION_KINDS: Final = frozenset({"approval", "question"})
_DECISIONS: Final = frozenset(get_args(ApprovalDecision))


# the wire ------------------------------------------------------------------------------

def approval_to_wire(request: ApprovalRequest) -> dict[str, Any]:
    subject = request.subject
    return {"run_id": request.run_id, "session_key": request.session_key,
            "tool_name": request.tool_name, "arguments": dict(request.arguments),
            "reason": request.reason, "cwd": request.cwd, "tool_call_id": request.tool_call_id,
            "subject": {"programs": list(subject.programs),
                        "grant_keys": (None if subject.grant_keys is None
                                       else sorted(subject.grant_keys)),
                        "grant_label": subject.grant_label}}


def approval_from_wire(wire: Mapping[str, Any]) -> ApprovalRequest:
    subject = wire.get("subject") or {}
    keys = subject.get("grant_keys")
    return ApprovalRequest(
        run_id=str(wire["run_id"]), session_key=str(wire["session_key"]),
        tool_name=str(wire["tool_name"]), arguments=dict(wire.get("arguments") or {}),
        reason=str(wire.get("reason", "")), cwd=str(wire.get("cwd", "")),
        tool_call_id=wire.get("tool_call_id"),
        subject=ApprovalSubject(programs=tuple(subject.get("programs") or ()),
                                grant_keys=None if keys is None else frozenset(keys),
                                grant_label=subject.get("grant_label")))


def prompt_to_wire(prompt: UserInputPrompt) -> dict[str, Any]:
    return dataclasses.asdict(prompt)


def prompt_from_wire(wire: Mapping[str, Any]) -> UserInputPrompt:
    questions = tuple(
        UserInputQuestion(**{**q, "options": tuple(UserInputOption(**o)
                                                   for o in q.get("options") or ())})
        for q in wire.get("questions") or ())
    return UserInputPrompt(
        question_id=str(wire["question_id"]), text=str(wire.get("text", "")),
        questions=questions, timeout_seconds=float(wire.get("timeout_seconds") or 0),
        run_id=wire.get("run_id"), session_key=wire.get("session_key"))


# the worker's side ---------------------------------------------------------------------

async def _ask(relay: TurnEventRelay, turn_id: str, kind: str, payload: dict[str, Any],
               wait_seconds: float) -> dict[str, Any] | None:
    """Put the question on the turn's events; the front's answer, or None after
    `wait_seconds` without one."""
    question_id = new_id()
    key = reply_key(turn_id, question_id)
    woke = relay.subscribe(key)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + wait_seconds
    try:
        await relay.append(turn_id, kind, {"id": question_id, **payload})
        while True:
            woke.clear()
            for event in await relay.read(key):
                relay.discard_soon(key)
                return event.payload
            left = deadline - loop.time()
            if left <= 0:
                log.info("turn %s: no answer to its %s %s", turn_id, kind, question_id)
                return None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(woke.wait(), min(relay.poll_seconds, left))
    finally:
        relay.unsubscribe(key, woke)


class RelayedApprovals:
    """An `ApprovalGate` for a turn on a worker: its front's caller decides."""

    def __init__(self, relay: TurnEventRelay, turn_id: str, *,
                 wait_seconds: float = APPROVAL_WAIT_SECONDS) -> None:
        self._relay = relay
        self._turn_id = turn_id
        self._wait_seconds = wait_seconds

    async def decide(self, request: ApprovalRequest) -> ApprovalDecision | None:
        answer = await _ask(self._relay, self._turn_id, "approval",
                            {"request": approval_to_wire(request)}, self._wait_seconds)
        decision = None if answer is None else answer.get("decision")
        return decision if decision in _DECISIONS else None


class RelayedUserInput:
    """A `UserInputChannel` for a turn on a worker: the user at its front answers."""

    def __init__(self, relay: TurnEventRelay, turn_id: str) -> None:
        self._relay = relay
        self._turn_id = turn_id

    async def ask(self, prompt: UserInputPrompt) -> str | None:
        wait = (prompt.timeout_seconds or APPROVAL_WAIT_SECONDS) + REPLY_GRACE_SECONDS
        answer = await _ask(self._relay, self._turn_id, "question",
                            {"prompt": prompt_to_wire(prompt)}, wait)
        text = None if answer is None else answer.get("text")
        return text if isinstance(text, str) else None


# the front's side ----------------------------------------------------------------------

async def answer_question(relay: TurnEventRelay, turn_id: str, event: TurnEvent,
                          opts: TurnOptions) -> None:
    """Hand a relayed question to the caller's gate (or channel) and send its answer;
    what cannot be answered goes back as no answer, which the worker takes as one."""
    payload = event.payload
    answer: dict[str, Any] = {}
    try:
        if event.kind == "approval" and opts.approvals is not None:
            answer["decision"] = await opts.approvals.decide(
                approval_from_wire(payload["request"]))
        elif event.kind == "question" and opts.user_input is not None:
            answer["text"] = await opts.user_input.ask(prompt_from_wire(payload["prompt"]))
    except Exception as exc:  # a malformed question or a failing gate: no answer
        log.warning("turn %s: the relayed %s was not answered: %s", turn_id, event.kind, exc)
    await relay.append(reply_key(turn_id, str(payload.get("id", ""))), "reply", answer)
