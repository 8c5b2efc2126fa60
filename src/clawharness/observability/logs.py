"""Log lines for people and for machines, every one through the secret redaction.

`configure_logging("json")` (the CLI's `--log-format json`) writes one JSON object per
line to stderr: `ts`, `level`, `logger`, `message`, the `trace_id` and `span_id` of the
span current when the record was made (when a trace is running), `exception` and any
`extra` fields. `"text"` writes `time level logger: message`. Either way the finished
line passes `clawharness.redaction` before it is written, so a credential that reaches
a log message is masked.
"""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any, Final, Literal, TextIO

from opentelemetry import trace

from clawharness.redaction.outbound import redact_secrets, redact_secrets_in

__all__ = ["LogFormat", "configure_logging", "json_log_formatter", "text_log_formatter"]

LogFormat = Literal["text", "json"]

#: LogRecord's own attributes; anything else on a record came in through `extra=`
_STANDARD: Final = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {
    "message", "asctime", "taskName"}
_TEXT_FORMAT: Final = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class _Redacting(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        return redact_secrets(self.render(record))

    def render(self, record: logging.LogRecord) -> str:
        return super().format(record)


class _JsonFormatter(_Redacting):
    def render(self, record: logging.LogRecord) -> str:
        line: dict[str, Any] = {
            "ts": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            # redacted before JSON escapes them: `\nDB_PASSWORD=...` no longer starts a word
            "message": redact_secrets(record.getMessage()),
        }
        context = trace.get_current_span().get_span_context()
        if context.is_valid:
            line["trace_id"] = format(context.trace_id, "032x")
            line["span_id"] = format(context.span_id, "016x")
        if record.exc_info:
            line["exception"] = redact_secrets(self.formatException(record.exc_info))
        extra = {k: v for k, v in vars(record).items() if k not in _STANDARD}
        if extra:
            line["extra"] = redact_secrets_in(json.loads(json.dumps(extra, default=str)))
        return json.dumps(line, default=str, ensure_ascii=False)


def json_log_formatter() -> logging.Formatter:
    return _JsonFormatter()


def text_log_formatter() -> logging.Formatter:
    return _Redacting(_TEXT_FORMAT)


class _Handler(logging.StreamHandler[TextIO]):
    """The handler `configure_logging` installs (and replaces on a second call)."""


def configure_logging(log_format: LogFormat, *, level: str | int = "WARNING",
                      stream: TextIO | None = None) -> logging.Handler:
    """Route the root logger's records to `stream` (stderr) as `log_format` lines."""
    root = logging.getLogger()
    for handler in list(root.handlers):
        if isinstance(handler, _Handler):
            root.removeHandler(handler)
    handler = _Handler(stream or sys.stderr)
    handler.setFormatter(json_log_formatter() if log_format == "json" else text_log_formatter())
    root.addHandler(handler)
    if isinstance(level, str):
        level = logging.getLevelName(level.upper())
        level = level if isinstance(level, int) else logging.WARNING
    root.setLevel(level)
    return handler
