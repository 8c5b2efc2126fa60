"""The record a running `clawharness serve` leaves in the state dir, so `clawharness agent`
can send its turn there instead of starting a host of its own.

`<state dir>/serve.json`, mode 0600, written once the gateway listens and removed when it
stops cleanly (by the process that wrote it only):

    {"version": 1, "pid": 4242, "url": "ws://127.0.0.1:18789", "config": "/abs/config.json",
     "cluster": null, "auth": {"mode": "token", "tokenSource": "config"}, "startedAt": 1.7e9}

The token itself is never written: `tokenSource` says where the server took it from
(`command-line`, `config` for `gateway.auth.token`, or `env:NAME`), and a client reads it
from the same place. Standard library only: the CLI's thin path reads this.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from clawharness._config_paths import state_dir

__all__ = ["RECORD_NAME", "RECORD_VERSION", "ServeRecord", "pid_alive", "read_record",
           "record_path", "remove_record", "write_record"]

RECORD_NAME = "serve.json"
RECORD_VERSION = 1


@dataclass(frozen=True, slots=True)
class ServeRecord:
    """Where a running `serve` listens and how to authenticate to it."""

    pid: int
    url: str
    #: the config file it loaded (absolute), None when it runs without one
    config: str | None
    #: `token` or `none`
    auth_mode: str
    #: where its token came from: `command-line`, `config`, `env:NAME` (None: no token)
    token_source: str | None
    #: the `--cluster` it was started with (None: the config's own)
    cluster: str | None = None
    started_at: float = 0.0

    def to_json(self) -> dict[str, object]:
        return {"version": RECORD_VERSION, "pid": self.pid, "url": self.url,
                "config": self.config, "cluster": self.cluster,
                "auth": {"mode": self.auth_mode, "tokenSource": self.token_source},
                "startedAt": self.started_at}


def record_path(env: Mapping[str, str] | None = None) -> Path:
    return state_dir(env) / RECORD_NAME


def write_record(record: ServeRecord, env: Mapping[str, str] | None = None) -> Path:
    """Write the record (0600, replacing any other atomically); its path."""
    path = record_path(env)
    path.parent.mkdir(parents=True, exist_ok=True)
    temp = path.with_name(f".{RECORD_NAME}.{record.pid}.tmp")
    with contextlib.suppress(FileNotFoundError):
        temp.unlink()
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        os.fchmod(fd, 0o600)
        os.write(fd, json.dumps(record.to_json()).encode())
    finally:
        os.close(fd)
    os.replace(temp, path)
    return path


def read_record(env: Mapping[str, str] | None = None) -> ServeRecord | None:
    """The record, or None when there is none or it is not one (never raises)."""
    try:
        raw = json.loads(record_path(env).read_bytes())
    except (OSError, ValueError):
        return None
    if not isinstance(raw, dict) or raw.get("version") != RECORD_VERSION:
        return None
    pid, url, config, cluster = raw.get("pid"), raw.get("url"), raw.get("config"), raw.get("cluster")
    auth = raw.get("auth")
    if (not isinstance(pid, int) or isinstance(pid, bool) or pid <= 0
            or not isinstance(url, str) or not url.startswith("ws://")
            or not isinstance(auth, dict) or auth.get("mode") not in ("token", "none")
            or not isinstance(config, str | None) or not isinstance(cluster, str | None)):
        return None
    source = auth.get("tokenSource")
    started = raw.get("startedAt")
    return ServeRecord(pid=pid, url=url, config=config, auth_mode=str(auth["mode"]),
                       token_source=source if isinstance(source, str) else None,
                       cluster=cluster,
                       started_at=float(started) if isinstance(started, int | float) else 0.0)


def remove_record(pid: int, env: Mapping[str, str] | None = None) -> None:
    """Remove the record if process `pid` wrote it (a later `serve` may have replaced it)."""
    found = read_record(env)
    if found is not None and found.pid == pid:
        with contextlib.suppress(FileNotFoundError):
            record_path(env).unlink()


def pid_alive(pid: int) -> bool:
    """Whether a process `pid` exists (one of another user's counts too)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except OSError:
        return False
    return True
