"""Benchmark: what secret redaction costs per 1,000 characters of tool output (issue 31).

Ours: `redact_secrets`, the last redaction every tool result passes (known values, the
cheap prefilter, then each secret shape only where a literal it cannot match without
occurs: `redaction/_requirements.py`, patterns compiled on first use). Peer, in the same
run: the naive redactor, the same shapes with no literal index (every pattern's regex
searched over the whole text the prefilter lets through), which is how a pattern table
is usually applied; its output is checked to be identical to ours.

Texts, ~20 KB each: Python source (dense with `key`, `token`, `api`), an `ls -l`
listing, a JSON document, and a log with a few secrets in it. Figures are CPU
milliseconds per 1,000 characters (median of repeats, ours and the peer interleaved).
Start-up: a fresh process importing the redactor and finding the secrets an
environment holds (`config.held_secrets`, what `Host.start` does), then its first
redaction of each text.

    .venv/bin/python bench/redaction.py [--quick]

The last line printed is one JSON object.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from _common import console, emit, median, show

from clawharness.redaction.outbound import redact_secrets
from clawharness.redaction.text import (
    could_match_default_patterns,
    default_patterns,
    redact_text,
)

ROOT = Path(__file__).resolve().parent.parent
SIZE = 20_000


def _code() -> str:
    files = sorted((ROOT / "src" / "clawharness").rglob("*.py"))
    text = ""
    for path in files:
        text += path.read_text()
        if len(text) >= SIZE:
            break
    return text[:SIZE]


def _listing() -> str:
    rows = [f"-rw-r--r-- 1 dev staff {i * 37 % 99991:>6} Dec  6 12:{i % 60:02d} "
            f"module_{i:04d}_handler.py" for i in range(600)]
    return "\n".join(rows)[:SIZE]


def _json() -> str:
    items = [{"id": i, "name": f"item-{i}", "token_count": i * 3, "status": "ok",
              "url": f"https://example.com/items/{i}?page={i % 7}", "tags": ["a", "b"]}
             for i in range(300)]
    return json.dumps(items, indent=1)[:SIZE]


def _log() -> str:
    secrets = ["OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD",
               "token: ghp_abcdefghijklmnopqrstuvwxyz0123456789",
               "connecting to postgres://app:hunter2-pass@db.internal:5432/app",
               "aws_access_key_id = AKIAABCDEFGHIJKLMNOP",
               "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjMifQ.c2lnbmF0dXJl"]
    lines = []
    for i in range(400):
        lines.append(f"2026-12-06T12:00:{i % 60:02d}Z INFO worker[{i % 8}] handled request "
                     f"{i} in {i % 97} ms (cache hit ratio 0.{i % 100:02d})")
        if i % 80 == 40:
            lines.append(secrets[(i // 80) % len(secrets)])
    return "\n".join(lines)[:SIZE]


TEXTS: dict[str, Callable[[], str]] = {"code": _code, "listing": _listing, "json": _json,
                                       "log_with_secrets": _log}


def _naive() -> Callable[[str], str]:
    patterns = tuple(dataclasses.replace(p, literal=None, needs=None)
                     for p in default_patterns())

    def redact(text: str) -> str:
        return redact_text(text, patterns) if could_match_default_patterns(text) else text

    return redact


def _cpu_ms(fn: Callable[[str], str], text: str) -> float:
    started = time.process_time()
    fn(text)
    return (time.process_time() - started) * 1000


_STARTUP = """
import os, sys, time, json
text = sys.stdin.read()
t0 = time.process_time()
from clawharness.config.held_secrets import held_secret_values
from clawharness.redaction.outbound import redact_secrets
t1 = time.process_time()
held_secret_values({"models": {"providers": {"x": {"apiKey": "sk-abcdefghijklmnop1234"}}}},
                   dict(os.environ))
t2 = time.process_time()
redact_secrets(text)
t3 = time.process_time()
print(json.dumps([t1 - t0, t2 - t1, t3 - t2]))
"""


def _startup(rounds: int, text: str) -> dict[str, float]:
    import os

    env = {**os.environ, "PATH": os.environ.get("PATH", ""),
           # a host's environment: a few dozen variables, some holding secrets
           **{f"APP_SETTING_{i}": f"value-{i}" for i in range(30)},
           "DATABASE_URL": "postgres://app:pw-123456789@db/app", "LS_COLORS": "di=01;34:ln=01;36"}
    runs = []
    for _ in range(rounds):
        out = subprocess.run([sys.executable, "-c", _STARTUP], env=env, input=text,
                             capture_output=True, text=True, check=True)
        runs.append(json.loads(out.stdout))
    return {"import_ms": median([r[0] for r in runs]) * 1000,
            "held_secrets_ms": median([r[1] for r in runs]) * 1000,
            "first_redaction_ms": median([r[2] for r in runs]) * 1000}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    repeats = 7 if args.quick else 25
    naive = _naive()
    rows = []
    figures: dict[str, object] = {"quick": args.quick, "chars": SIZE}
    for name, make in TEXTS.items():
        text = make()
        # no known values are registered here: both must agree exactly
        assert naive(text) == redact_secrets(text), f"{name}: outputs differ"
        ours, peer = [], []
        for _ in range(repeats):
            ours.append(_cpu_ms(redact_secrets, text))
            peer.append(_cpu_ms(naive, text))
        per_k = 1000 / len(text)
        o, p = median(ours) * per_k, median(peer) * per_k
        rows.append((name, len(text), o, p, p / o if o else float("inf")))
        figures[f"{name}_ms_per_1k"] = round(o, 3)
        figures[f"{name}_naive_ms_per_1k"] = round(p, 3)
    show("redaction, CPU ms per 1,000 characters (median)",
         ("text", "chars", "ours", "naive peer", "peer / ours"), rows)
    start = _startup(3 if args.quick else 7, _code())
    show("start-up in a fresh process, CPU ms (median)", ("step", "ms"),
         [(k, v) for k, v in start.items()])
    figures.update({k: round(v, 1) for k, v in start.items()})
    worst = max(r[2] for r in rows)
    figures["worst_ms_per_1k"] = round(worst, 3)
    figures["exec_20kb_added_ms"] = round(worst * 20, 1)
    console.print(f"worst case: {worst:.3f} ms per 1,000 characters "
                  f"({worst * 20:.1f} ms for 20 KB of exec output)")
    emit(figures)


if __name__ == "__main__":
    main()
