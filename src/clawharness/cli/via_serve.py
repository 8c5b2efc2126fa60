"""`clawharness agent` through a running `clawharness serve` (as `openclaw agent` goes
through the running Gateway); `--local` runs the turn in this process instead.

A `serve` that listens leaves a record in the state dir (`clawharness._serve_record`).
When that record names the same config (and `--cluster`), its process is alive and the
connection is accepted with the same token, the turn is sent there as one `agent`
request (`includeTurnResult`, so the answer carries what `agent --json` prints) and
printed as the embedded path prints it. Anything short of that (no record, a stale one,
a refused connection or token, a flag the gateway cannot honour) returns None *before*
the turn is sent, and the caller runs the turn embedded: a stale record never fails a
turn. Once the turn is sent it is never run a second time.

This module runs before the command line is built (`entry`): it imports the standard
library, `clawharness._text`, the record and the WebSocket client, nothing of the host;
how the turn prints is `cli._via_serve_output`.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clawharness._config_paths import resolve_config_path
from clawharness._serve_record import ServeRecord, pid_alive, read_record
from clawharness._text import terminal_safe
from clawharness.cli._via_serve_output import Output, Streamer, print_error, print_json, render
from clawharness.cli.ws_client import WsClosed, WsConnection

__all__ = ["AgentRequest", "parse_agent_argv", "run_from_entry", "run_via_serve", "serve_token",
           "tried"]

#: how long connecting and the handshake may take before the turn runs embedded
CONNECT_TIMEOUT_S = 3.0
#: the env variables `serve` reads its token from, in its order (gateway.settings)
TOKEN_ENV_VARS = ("CLAWHARNESS_GATEWAY_TOKEN", "OPENCLAW_GATEWAY_TOKEN")
_SCOPES = ["operator.read", "operator.write"]
_APPROVALS = "operator.approvals"
#: the process asked once and found no server to use: the full command line does not ask
#: again (`tried()`)
_TRIED: list[bool] = []
#: a budget's extension question (`harness.capabilities.BUDGET_EXTEND_TOOL`; the thin
#: client does not import the host)
_BUDGET_EXTEND = "budget.extend"
_CHOICES = {"o": "allow-once", "once": "allow-once", "y": "allow-once", "yes": "allow-once",
            "a": "allow-always", "always": "allow-always"}


@dataclass(frozen=True, slots=True)
class AgentRequest:
    """What `clawharness agent` was asked (values as the command line gives them)."""

    message: str
    session: str | None = None
    config: str | None = None
    cluster: str | None = None
    model: str | None = None
    thinking: str | None = None
    timeout: float | None = None
    queue_mode: str | None = None
    as_json: bool = False


_VALUED = {"-m": "message", "--message": "message", "-s": "session", "--session": "session",
           "-c": "config", "--config": "config", "--timeout": "timeout"}


def parse_agent_argv(argv: list[str]) -> AgentRequest | None:
    """The plain forms of `agent`'s arguments (after `agent`), or None for anything else
    (`--local`, `--help`, `--thinking`, `--queue-mode`, `--model`, `--cluster`, a repeated
    or unknown option): the full command line parses those, and checks their values."""
    values: dict[str, str] = {}
    as_json = False
    index = 0
    while index < len(argv):
        arg = argv[index]
        name, eq, inline = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        if arg == "--json" and not as_json:
            as_json = True
        elif name in _VALUED and _VALUED[name] not in values:
            if eq:
                value = inline
            else:
                index += 1
                if index >= len(argv):
                    return None
                value = argv[index]
            values[_VALUED[name]] = value
        else:
            return None
        index += 1
    message = values.get("message")
    if not message:
        return None
    timeout: float | None = None
    if "timeout" in values:
        try:
            timeout = float(values["timeout"])
        except ValueError:
            return None
    return AgentRequest(message=message, session=values.get("session"),
                        config=values.get("config"), timeout=timeout, as_json=as_json)


# --- finding the server -----------------------------------------------------------------

def _config_token(path: str | None) -> str | None:
    """`gateway.auth.token` of the config file at `path` (None when it has none, or the
    file cannot be read as the server read it)."""
    if path is None:
        return None
    try:
        text = Path(path).read_text(encoding="utf-8")
        try:
            raw = json.loads(text)
        except ValueError:
            import json5  # a JSON5 file, as the config loader decodes it

            raw = json5.loads(text)
    except Exception:
        return None
    gateway = raw.get("gateway") if isinstance(raw, dict) else None
    auth = gateway.get("auth") if isinstance(gateway, dict) else None
    token = auth.get("token") if isinstance(auth, dict) else None
    return token if isinstance(token, str) and token else None


def serve_token(record: ServeRecord, env: Mapping[str, str]) -> str | None:
    """The token to send, read where the record says the server read its own: the config
    file, an env variable, or (its `--token`) this process's own config and env."""
    source = record.token_source
    if source is not None and source.startswith("env:"):
        return env.get(source[len("env:"):]) or None
    token = _config_token(record.config)
    if token is not None or source == "config":
        return token
    return next((env[name] for name in TOKEN_ENV_VARS if env.get(name)), None)


def _same_config(request: AgentRequest, record: ServeRecord, env: Mapping[str, str]) -> bool:
    mine = resolve_config_path(request.config, env)
    try:
        resolved = str(mine.resolve()) if mine is not None else None
    except OSError:
        return False
    return resolved == record.config


def _target(request: AgentRequest, env: Mapping[str, str]) -> tuple[ServeRecord, str | None] | None:
    """The running server to send the turn to and its token, or None."""
    if request.model is not None:  # the gateway's `agent` takes no model of the turn
        return None
    if request.timeout is not None and (request.timeout <= 0
                                        or request.timeout != int(request.timeout)):
        return None  # the gateway takes whole seconds
    record = read_record(env)
    if record is None or record.cluster != request.cluster:
        return None
    if not _same_config(request, record, env) or not pid_alive(record.pid):
        return None
    token = serve_token(record, env) if record.auth_mode == "token" else None
    if record.auth_mode == "token" and token is None:
        return None
    return record, token


# --- the turn -----------------------------------------------------------------------------

def _new_id() -> str:
    """A random id in the UUID4 text form (the `uuid` module costs more to import)."""
    raw = bytearray(os.urandom(16))
    raw[6] = (raw[6] & 0x0F) | 0x40
    raw[8] = (raw[8] & 0x3F) | 0x80
    text = raw.hex()
    return f"{text[:8]}-{text[8:12]}-{text[12:16]}-{text[16:20]}-{text[20:]}"


@contextlib.contextmanager
def _ctrl_c_after() -> Iterator[None]:
    """Ctrl-C pressed inside the block takes effect as it ends (SIGINT held pending).

    Sending the turn's request and noting it sent must not be split by a Ctrl-C: the
    server may have the request (and start the turn) while the command, interrupted
    before it noted so, would leave without aborting it."""
    if not hasattr(signal, "pthread_sigmask"):  # (not on Windows: as before)
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


class _Turn:
    """One `agent` request on an open connection, to its end."""

    def __init__(self, ws: WsConnection, request: AgentRequest, interactive: bool) -> None:
        self.ws = ws
        self.request = request
        self.interactive = interactive
        self.key = _new_id()
        self.run_ids = {self.key}
        self.session_key: str | None = None
        self.streamer = None if request.as_json else Streamer()
        self.aborted = False
        self.sent = False
        self.accepted = False
        self._ids = 0

    def send(self, method: str, params: dict[str, Any]) -> str:
        self._ids += 1
        req_id = method if method == "agent" else f"{method}-{self._ids}"
        self.ws.send_text(json.dumps({"type": "req", "id": req_id, "method": method,
                                      "params": params}, ensure_ascii=False))
        return req_id

    def start(self) -> None:
        params: dict[str, Any] = {"message": self.request.message, "idempotencyKey": self.key,
                                  "includeTurnResult": True}
        if self.request.session is not None:
            params["sessionKey"] = self.request.session
        if self.request.thinking is not None:
            params["thinking"] = self.request.thinking
        if self.request.queue_mode is not None:
            params["queueMode"] = self.request.queue_mode
        if self.request.timeout is not None:
            params["timeout"] = int(self.request.timeout)
        with _ctrl_c_after():
            self.send("agent", params)
            self.sent = True

    def run(self) -> dict[str, Any]:
        """Send the turn and wait for its end (Ctrl-C once sent: abort it on the server)."""
        try:
            self.start()
        except KeyboardInterrupt:
            if not self.sent:
                raise
            self.abort()
        return self.wait()

    def abort(self) -> None:
        """Ctrl-C: ask the server to stop the turn (a second one leaves at once)."""
        if self.aborted:
            raise KeyboardInterrupt
        self.aborted = True
        params: dict[str, Any] = {"runId": sorted(self.run_ids)[0]}
        if self.session_key is not None:
            params = {"sessionKey": self.session_key, "runId": params["runId"]}
        try:
            self.send("chat.abort", params)
        except (OSError, WsClosed):
            pass

    def wait(self) -> dict[str, Any]:
        """Frames until the `agent` request's final answer (that frame)."""
        while True:
            try:
                frame = json.loads(self.ws.recv_text())
            except KeyboardInterrupt:
                self.abort()
                continue
            if not isinstance(frame, dict):
                continue
            if frame.get("type") == "event":
                self._event(frame)
            elif frame.get("type") == "res" and frame.get("id") == "agent":
                payload = frame.get("payload")
                if (frame.get("ok") and isinstance(payload, dict)
                        and payload.get("status") == "accepted"):
                    run_id, key = payload.get("runId"), payload.get("sessionKey")
                    if isinstance(run_id, str):
                        self.run_ids.add(run_id)
                    if isinstance(key, str):
                        self.session_key = key
                    self.accepted = True
                    continue
                return frame

    def _event(self, frame: dict[str, Any]) -> None:
        payload = frame.get("payload")
        if not isinstance(payload, dict):
            return
        event = frame.get("event")
        if event == "agent" and self.streamer is not None:
            data = payload.get("data")
            if (payload.get("runId") in self.run_ids and payload.get("stream") == "assistant"
                    and isinstance(data, dict) and isinstance(data.get("text"), str)):
                self.streamer.partial(data["text"])
        elif event == "plugin.approval.requested" and self.interactive:
            request = payload.get("request")
            if isinstance(request, dict) and (request.get("runId") in self.run_ids or (
                    self.session_key is not None
                    and request.get("sessionKey") == self.session_key)):
                self._approve(str(payload.get("id")), request)

    def _approve(self, approval_id: str, request: Mapping[str, Any]) -> None:
        """Ask the person at the terminal, as the embedded path's approval gate does."""
        title = terminal_safe(str(request.get("title") or "Allow?"))
        described = terminal_safe(str(request.get("description") or ""))
        allowed = request.get("allowedDecisions")
        always = not isinstance(allowed, list) or "allow-always" in allowed
        if request.get("toolName") == _BUDGET_EXTEND:  # a yes or no, never remembered
            question = "Extend it? [y]es / [n]o (default n): "
        elif always:
            question = "Allow? [o]nce / [a]lways / [d]eny (default d): "
        else:
            question = "Allow? [o]nce / [d]eny (default d): "
        sys.stderr.write(f"approval needed: {title}\n  {described}\n{question}")
        sys.stderr.flush()
        try:
            answer = sys.stdin.readline()
        except (OSError, ValueError, KeyboardInterrupt):
            answer = ""
        decision = _CHOICES.get(answer.strip().lower(), "deny")
        if decision == "allow-always" and not always:
            decision = "allow-once"  # not offered: it covers this question only
        self.send("plugin.approval.resolve", {"id": approval_id, "decision": decision})


def _handshake(ws: WsConnection, token: str | None, interactive: bool) -> bool:
    """Answer the challenge with `connect`; whether the server accepted it."""
    challenge = json.loads(ws.recv_text())
    if not isinstance(challenge, dict) or challenge.get("event") != "connect.challenge":
        return False
    from clawharness import __version__

    params: dict[str, Any] = {
        "minProtocol": 4, "maxProtocol": 4,
        "client": {"id": "cli", "version": __version__, "platform": sys.platform,
                   "mode": "cli", "instanceId": _new_id()},
        "caps": [], "role": "operator",
        "scopes": [*_SCOPES, _APPROVALS] if interactive else list(_SCOPES)}
    if token is not None:
        params["auth"] = {"token": token}
    ws.send_text(json.dumps({"type": "req", "id": "connect", "method": "connect",
                             "params": params}))
    while True:
        reply = json.loads(ws.recv_text())
        if isinstance(reply, dict) and reply.get("type") == "res":
            return reply.get("id") == "connect" and reply.get("ok") is True


def _interactive() -> bool:
    try:
        return sys.stdin.isatty()
    except (AttributeError, ValueError):
        return False


def tried() -> bool:
    """Whether the executable's entry already looked for a server for this command and
    found none to use (`run_from_entry`): the full command line does not look again."""
    return bool(_TRIED)


def run_from_entry(argv: list[str]) -> int | None:
    """`agent ARGS` before the command line is built: the exit code of the turn through a
    running `serve`, or None to go on to the full command line (and run embedded)."""
    request = parse_agent_argv(argv)
    if request is None:
        return None
    code = run_via_serve(request)
    if code is None:
        _TRIED.append(True)
    return code


def run_via_serve(request: AgentRequest, env: Mapping[str, str] | None = None) -> int | None:
    """Run the turn on the running `serve`: the exit code, or None (nothing was sent) when
    there is no such server to use, and the caller runs the turn embedded."""
    environ = os.environ if env is None else env
    try:
        return _run_via_serve(request, environ)
    except KeyboardInterrupt:  # before the turn was sent, or a second Ctrl-C
        return 130


def _run_via_serve(request: AgentRequest, environ: Mapping[str, str]) -> int | None:
    found = _target(request, environ)
    if found is None:
        return None
    record, token = found
    interactive = _interactive()
    try:
        ws = WsConnection.open(record.url, timeout=CONNECT_TIMEOUT_S)
    except (OSError, ValueError, WsClosed):
        return None
    try:
        try:
            if not _handshake(ws, token, interactive):
                return None
        except (OSError, ValueError, WsClosed):
            return None
        ws.settimeout(None)  # the turn takes what it takes (its --timeout is the server's)
        turn = _Turn(ws, request, interactive)
        try:
            final = turn.run()
        except (OSError, ValueError, WsClosed) as exc:
            out = Output()
            message = f"the connection to clawharness serve ({record.url}) ended before the " \
                      f"turn did: {exc}"
            if request.as_json:
                print_json({"error": {"type": "serve_connection_lost", "message": message}})
            else:
                print_error(out, "serve_connection_lost", message)
            return 1
    finally:
        ws.close()
    error = final.get("error")
    if (not turn.accepted and isinstance(error, dict) and error.get("code") == "INVALID_REQUEST"
            and final.get("ok") is False):
        # refused before any turn ran (a bad session key, an unknown agent, ...): the
        # embedded path reports it in its own words
        return None
    return _final(final, turn, request)


def _final(frame: Mapping[str, Any], turn: _Turn, request: AgentRequest) -> int:
    payload = frame.get("payload") if isinstance(frame.get("payload"), dict) else {}
    assert isinstance(payload, dict)
    result = payload.get("turnResult")
    if frame.get("ok") and isinstance(result, dict):
        explanation = payload.get("explanation")
        return render(result, explanation if isinstance(explanation, str) else "",
                       turn.streamer, request.as_json)
    error = frame.get("error") if isinstance(frame.get("error"), dict) else {}
    assert isinstance(error, dict)
    details = error.get("details") if isinstance(error.get("details"), dict) else {}
    assert isinstance(details, dict)
    kind = str(details.get("code") or error.get("code") or "serve_error").lower()
    message = str(error.get("message") or payload.get("summary") or "the turn failed")
    more = {k: v for k, v in details.items() if k in ("keyPath", "hint")}
    if request.as_json:
        print_json({"error": {"type": kind, "message": message, **more}})
    else:
        if turn.streamer is not None:
            turn.streamer.finish()
        print_error(Output(), kind, message, more.get("hint"))
    return 1
