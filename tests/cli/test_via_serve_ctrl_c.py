"""Ctrl-C while `clawharness agent` hands its turn to a running `serve`: once the server
may have the request, the command aborts the turn there instead of leaving it running."""

from __future__ import annotations

import json
import os
import signal
from typing import Any

import pytest

from clawharness.cli.via_serve import AgentRequest, _Turn


class CtrlCOnSend:
    """A connection whose first `agent` request is followed by a Ctrl-C (SIGINT to this
    process) just after its bytes went out, as a busy machine can deschedule a command
    right there; it then answers `accepted` and the final frame."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []
        self.frames: list[dict[str, Any]] = []

    def send_text(self, text: str) -> None:
        request = json.loads(text)
        self.sent.append(request)
        if request["method"] == "agent":
            run_id = request["params"]["idempotencyKey"]
            self.frames = [
                {"type": "res", "id": "agent", "ok": True,
                 "payload": {"status": "accepted", "runId": run_id,
                             "sessionKey": "agent:main:main"}},
                {"type": "res", "id": "agent", "ok": True,
                 "payload": {"status": "aborted", "runId": run_id}},
            ]
            os.kill(os.getpid(), signal.SIGINT)

    def recv_text(self) -> str:
        return json.dumps(self.frames.pop(0))


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="POSIX signal masks")
def test_ctrl_c_right_after_the_request_went_out_aborts_the_turn() -> None:
    ws = CtrlCOnSend()
    turn = _Turn(ws, AgentRequest(message="hello", as_json=True), interactive=False)  # type: ignore[arg-type]
    final = turn.run()  # no KeyboardInterrupt: the command goes on to abort
    assert final["payload"]["status"] == "aborted"
    methods = [r["method"] for r in ws.sent]
    assert methods == ["agent", "chat.abort"]
    assert ws.sent[1]["params"]["runId"] == ws.sent[0]["params"]["idempotencyKey"]
