"""A tiny stand-in for `codex app-server`: the JSON-lines protocol, scripted by env vars.

    FAKE_USER_AGENT   the initialize result's userAgent ("-" leaves it out)
    FAKE_LOG          a file: every received message is appended as one JSON line
    FAKE_CRASH_ON     a method name: on receiving it, print to stderr and exit 3
    FAKE_IGNORE_STDIN_EOF=1   keep running after stdin closes (tests SIGTERM/SIGKILL)
    FAKE_IGNORE_SIGTERM=1     ignore SIGTERM too (only SIGKILL ends it)
    FAKE_ASK_WAIT             seconds `ask` waits for the client's answer (default 10)

Methods: initialize, thread/start, thread/resume, turn/start (streams a short turn; a
prompt starting "plan:" first sends a reasoning delta and `turn/plan/updated`),
turn/interrupt, echo (answers params), slow (answers after `params.delay` s, so answers
can arrive out of order), ask (sends a server request `params.method` and answers with
the client's reply), anything else -> error -32600. Unknown notifications are sent now
and then, as the real server does.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
import uuid

LOCK = threading.Lock()
PENDING: dict[int, dict] = {}
PENDING_EVENTS: dict[int, threading.Event] = {}
NEXT_SERVER_ID = [0]
INITIALIZED = [False]


def send(message: dict) -> None:
    with LOCK:
        sys.stdout.write(json.dumps(message) + "\n")
        sys.stdout.flush()


def log(message: dict) -> None:
    path = os.environ.get("FAKE_LOG")
    if path:
        with open(path, "a", encoding="utf-8") as fh:
            fh.write(json.dumps(message) + "\n")


def server_request(method: str, params: dict) -> dict:
    with LOCK:
        rid = NEXT_SERVER_ID[0]
        NEXT_SERVER_ID[0] += 1
        event = threading.Event()
        PENDING_EVENTS[rid] = event
    send({"id": rid, "method": method, "params": params})
    event.wait(float(os.environ.get("FAKE_ASK_WAIT", "10")))
    return PENDING.pop(rid, {"error": {"message": "no answer"}})


#: a prompt starting with this makes the turn ask the user first (its reply names the answers)
ASK_USER = "ask the user:"
PLAN = "plan:"


def ask_user(thread_id: str, turn_id: str, question: str) -> str:
    answer = server_request("item/tool/requestUserInput", {
        "threadId": thread_id, "turnId": turn_id, "itemId": f"ask-{turn_id}",
        "timeoutSeconds": 30, "questions": [{
            "id": "pick", "header": "Pick", "question": question,
            "options": [{"label": "tea", "description": "hot"}, {"label": "coffee"}]}]})
    return json.dumps(answer.get("result", answer), sort_keys=True)


def run_turn(thread_id: str, turn_id: str, text: str) -> None:
    send({"method": "turn/started", "params": {"threadId": thread_id,
                                                "turn": {"id": turn_id, "status": "inProgress"}}})
    send({"method": "some/unknown/notification", "params": {"x": 1}})
    if text.startswith(ASK_USER):
        text = "answers " + ask_user(thread_id, turn_id, text[len(ASK_USER):].strip())
    if text.startswith(PLAN):
        where = {"threadId": thread_id, "turnId": turn_id}
        send({"method": "item/reasoning/summaryTextDelta", "params": {
            **where, "itemId": f"rs-{turn_id}", "delta": "planning first", "summaryIndex": 0}})
        send({"method": "turn/plan/updated", "params": {**where, "explanation": None, "plan": [
            {"step": step.strip(), "status": "inProgress" if i == 0 else "pending"}
            for i, step in enumerate(text[len(PLAN):].split(";"))]}})
    item = {"type": "agentMessage", "id": f"msg-{turn_id}", "text": ""}
    send({"method": "item/started", "params": {"threadId": thread_id, "turnId": turn_id,
                                                "item": item}})
    reply = f"echo: {text}"
    for piece in (reply[: len(reply) // 2], reply[len(reply) // 2:]):
        send({"method": "item/agentMessage/delta",
              "params": {"threadId": thread_id, "turnId": turn_id, "itemId": item["id"],
                         "delta": piece}})
    done = {**item, "text": reply}
    send({"method": "item/completed", "params": {"threadId": thread_id, "turnId": turn_id,
                                                  "item": done}})
    send({"method": "turn/completed", "params": {"threadId": thread_id, "turn": {
        "id": turn_id, "status": "completed", "error": None, "items": [done]}}})


def handle(message: dict) -> None:
    method = message.get("method")
    mid = message.get("id")
    params = message.get("params") or {}
    if method is None:  # a response to one of our requests
        PENDING[mid] = message
        event = PENDING_EVENTS.pop(mid, None)
        if event:
            event.set()
        return
    if method == os.environ.get("FAKE_CRASH_ON"):
        sys.stderr.write(f"fake app-server: simulated crash on {method}\n")
        sys.stderr.flush()
        os._exit(3)
    if mid is None:
        return  # a notification (initialized, ...)
    if method != "initialize" and not INITIALIZED[0]:
        send({"id": mid, "error": {"code": -32600, "message": "Not initialized"}})
        return
    if method == "initialize":
        if INITIALIZED[0]:
            send({"id": mid, "error": {"code": -32600, "message": "Already initialized"}})
            return
        INITIALIZED[0] = True
        result = {"codexHome": "/fake", "platformFamily": "unix", "platformOs": "linux"}
        agent = os.environ.get("FAKE_USER_AGENT", "clawharness/0.169.0 (Fake; x86_64) fake")
        if agent != "-":
            result["userAgent"] = agent
        send({"id": mid, "result": result})
        send({"method": "configWarning", "params": {"summary": "fake warning"}})
    elif method == "thread/start":
        tid = str(uuid.uuid4())
        send({"id": mid, "result": {"thread": {"id": tid, "turns": []}}})
        send({"method": "thread/started", "params": {"thread": {"id": tid}}})
    elif method == "thread/resume":
        send({"id": mid, "result": {"thread": {"id": params.get("threadId"), "turns": []}}})
    elif method == "turn/start":
        tid = params["threadId"]
        turn_id = str(uuid.uuid4())
        send({"id": mid, "result": {"turn": {"id": turn_id, "status": "inProgress"}}})
        text = "".join(i.get("text", "") for i in params.get("input", []))
        threading.Thread(target=run_turn, args=(tid, turn_id, text), daemon=True).start()
    elif method == "turn/interrupt":
        send({"id": mid, "result": {}})
    elif method == "echo":
        send({"id": mid, "result": params})
    elif method == "slow":
        def later() -> None:
            time.sleep(float(params.get("delay", 0.2)))
            send({"id": mid, "result": {"slow": params.get("tag")}})
        threading.Thread(target=later, daemon=True).start()
    elif method == "ask":
        def asker() -> None:
            answer = server_request(params["method"], params.get("params", {}))
            send({"id": mid, "result": {"answer": answer}})
        threading.Thread(target=asker, daemon=True).start()
    else:
        send({"id": mid, "error": {"code": -32600, "message": f"unknown method {method}"}})


def main() -> None:
    if os.environ.get("FAKE_IGNORE_SIGTERM") == "1":
        import signal

        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        log(message)
        handle(message)
    if os.environ.get("FAKE_IGNORE_STDIN_EOF") == "1":
        while True:
            time.sleep(1)


if __name__ == "__main__":
    main()
