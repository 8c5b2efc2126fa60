"""Reading and decoding a config file within its limits.

A config file is refused, with the file, the limit and what was found, when it is larger
than `MAX_CONFIG_BYTES` or nested deeper than `MAX_CONFIG_DEPTH`. Both limits sit far
above any real config (a large one is a few kilobytes and eight levels deep) and keep
the decoder, which is pure Python and recursive, clear of long parses and recursion
errors. Plain JSON (what `doctor --fix` and `config set` write) takes the fast
standard-library decoder; anything else is decoded as JSON5.

A key written twice in one object is an error naming both lines: both decoders would keep
the last one silently, so a second `tools` block would drop the first one's `deny`.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from clawharness.config.textscan import TextScan, scan_json5
from clawharness.errors import ConfigError
from clawharness.problems import ConfigProblem, format_key_path

__all__ = ["MAX_CONFIG_BYTES", "MAX_CONFIG_DEPTH", "ConfigSource", "check_value_depth",
           "decode_config_text", "read_config_file"]

MAX_CONFIG_BYTES: Final = 256 * 1024
MAX_CONFIG_DEPTH: Final = 64


@dataclass(frozen=True, slots=True)
class ConfigSource:
    """A decoded config file: its text, its value, and where each key path's value starts."""

    path: Path | None
    text: str
    raw: Any
    scan: TextScan = field(default_factory=TextScan, repr=False)


def _too_deep(source: str, found: str) -> ConfigError:
    return ConfigError(
        f"the config is nested {found} levels deep; the limit is {MAX_CONFIG_DEPTH}",
        path=source,
        hint="a real config is a few levels deep: look for a runaway bracket or a generated file")


def decode_config_text(text: str, *, source: str = "<config>",
                       path: Path | None = None) -> ConfigSource:
    """Decode config text (JSON5) after the size and depth checks; empty text is `{}`."""
    size = len(text.encode("utf-8", errors="surrogatepass"))
    if size > MAX_CONFIG_BYTES:
        raise ConfigError(
            f"the config file is {size:,} bytes; the limit is {MAX_CONFIG_BYTES:,} bytes",
            path=source, hint="a real config is a few kilobytes: is this the right file?")
    scan = scan_json5(text, max_depth=MAX_CONFIG_DEPTH)
    if scan.too_deep:
        raise _too_deep(source, f"more than {MAX_CONFIG_DEPTH}")
    if not text.strip():
        return ConfigSource(path, text, {}, scan)
    repeated: list[str] = []

    def pairs(items: Iterable[tuple[str, Any]]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in items:
            if key in out:
                repeated.append(key)
            out[key] = value
        return out

    try:
        raw = json.loads(text, object_pairs_hook=pairs)
    except (ValueError, RecursionError):
        # not plain JSON: the JSON5 decoder (imported only for such a file)
        import json5

        repeated.clear()
        try:
            raw = json5.loads(text, object_pairs_hook=pairs)
        except RecursionError:
            # the scan stops at text it cannot follow; the decoder may then go deeper
            raise _too_deep(source, "too many") from None
        except ValueError as exc:
            raise ConfigError(f"malformed JSON5: {exc}", path=source,
                              hint="check the brackets, quotes and commas near that place"
                              ) from None
    if repeated:
        raise _duplicate_keys(source, scan, repeated)
    check_value_depth(raw, source=source)
    return ConfigSource(path, text, raw, scan)


def _duplicate_keys(source: str, scan: TextScan, repeated: list[str]) -> ConfigError:
    """Every key written twice, with both lines where the scan could follow the text (the
    decoder's own list stands when it could not, so a repeat is never let through)."""
    problems = [ConfigProblem(
        f"`{format_key_path(d.path)}` is written twice in the same object ("
        + (f"both on line {d.line}" if d.first_line == d.line
           else f"lines {d.first_line} and {d.line}")
        + "); only the last would count, silently dropping the first",
        path=d.path, line=d.line, code="config-duplicate-key", hint="merge the two into one")
        for d in scan.duplicates]
    if not problems:
        problems = [ConfigProblem(
            f"the key {key!r} is written twice in the same object; only the last would "
            "count, silently dropping the first", code="config-duplicate-key",
            hint="merge the two into one") for key in dict.fromkeys(repeated)]
    return ConfigError(path=source, problems=problems)


def _file_kind(mode: int) -> str | None:
    """What a path that is not a regular file is, for the message; None for a file."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def read_config_file(path: Path) -> ConfigSource:
    """Read and decode one config file (a missing or unreadable file is a ConfigError).

    Only a regular file is read: a FIFO, socket or device is refused at once (opening a
    FIFO nobody writes to would wait forever), judged on the opened descriptor so a file
    swapped for one in between cannot get past."""
    source = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise ConfigError("config file not found", path=source,
                          hint="check the path, or run without --config for the defaults"
                          ) from None
    except OSError as exc:
        try:  # a socket cannot be opened at all: say what it is
            kind = _file_kind(os.stat(path).st_mode)
        except OSError:
            kind = None
        if kind is not None:
            raise ConfigError(f"the config path is {kind}, not a regular file", path=source,
                              hint="write the config to a file and pass that file") from None
        raise ConfigError(f"cannot read config: {exc.strerror or exc}", path=source) from None
    info = os.fstat(fd)
    kind = _file_kind(info.st_mode)
    if kind is not None:
        os.close(fd)
        raise ConfigError(f"the config path is {kind}, not a regular file", path=source,
                          hint="write the config to a file and pass that file")
    with os.fdopen(fd, "rb") as handle:
        if info.st_size > MAX_CONFIG_BYTES:
            raise ConfigError(
                f"the config file is {info.st_size:,} bytes; the limit is "
                f"{MAX_CONFIG_BYTES:,} bytes", path=source,
                hint="a real config is a few kilobytes: is this the right file?")
        try:
            data = handle.read(MAX_CONFIG_BYTES + 1)
        except OSError as exc:
            raise ConfigError(f"cannot read config: {exc.strerror or exc}",
                              path=source) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"the config file is not UTF-8 text (byte {exc.start})",
                          path=source) from None
    return decode_config_text(text, source=source, path=path)


def _children(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        yield from value.values()
    elif isinstance(value, list | tuple):
        yield from value


def check_value_depth(raw: Any, *, source: str = "<config>") -> None:
    """Refuse a decoded value nested deeper than the limit (checked without recursion)."""
    level: list[Any] = [raw]
    depth = 0
    while level:
        containers = [v for v in level if isinstance(v, dict | list | tuple)]
        if not containers:
            return
        depth += 1
        if depth > MAX_CONFIG_DEPTH:
            raise _too_deep(source, f"more than {MAX_CONFIG_DEPTH}")
        level = [child for node in containers for child in _children(node)]
