"""Config problems: where (file, line, key path), what was wrong, what to do.

`ConfigProblem` is the single point every config message is made: its text is passed
through `redact_config_text` on construction, so no error, warning or `--json` problem
built from it can carry a secret (see `clawharness.redaction.config_text`). The key path
syntax (`format_key_path`, `parse_key_path`) is here too: messages print it and
`config get|set` read it back.

It sits at the bottom of the tree, beside `clawharness.errors`: `ConfigError` carries
these problems, and every part of the host raises `ConfigError`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

__all__ = ["ConfigProblem", "KeyPath", "KeyPathError", "Severity", "format_key_path",
           "parse_key_path", "render_problems", "try_parse_key_path"]

Severity = Literal["error", "warning"]
KeyPath = tuple[str | int, ...]


def format_key_path(path: Sequence[str | int]) -> str:
    """`agents.defaults.models["openai/gpt-5"].alias`: dots, `[i]`, quotes where needed.

    `clawharness config get|set` read the same syntax back (`config.keypaths`).
    """
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif part and all(ch.isalnum() or ch in "_-$" for ch in part) and not part[0].isdigit():
            out += f".{part}" if out else part
        else:
            escaped = part.replace("\\", "\\\\").replace('"', '\\"')
            out += f'["{escaped}"]'
    return out


_NAME: Final = re.compile(r"[^.\[\]\"']+")
_INDEX: Final = re.compile(r"\[(\d+)\]")
_QUOTED: Final = re.compile(r"""\[(?:"((?:[^"\\]|\\.)*)"|'((?:[^'\\]|\\.)*)')\]""")
_UNESCAPE: Final = re.compile(r"\\(.)")


class KeyPathError(ValueError):
    """A key path that does not parse, or that runs through a value that is not a container."""


def try_parse_key_path(text: str) -> KeyPath | None:
    """The parts of a key path, or None when it does not parse."""
    parts: list[str | int] = []
    pos, end = 0, len(text)
    if not text.strip():
        return None
    while pos < end:
        if text[pos] == ".":
            if not parts:
                return None
            pos += 1
            found = _NAME.match(text, pos)
            if found is None:
                return None
            parts.append(found.group(0))
            pos = found.end()
        elif text[pos] == "[":
            index = _INDEX.match(text, pos)
            if index is not None:
                parts.append(int(index.group(1)))
                pos = index.end()
                continue
            quoted = _QUOTED.match(text, pos)
            if quoted is None:
                return None
            raw = quoted.group(1) if quoted.group(1) is not None else quoted.group(2)
            parts.append(_UNESCAPE.sub(r"\1", raw))
            pos = quoted.end()
        else:
            if parts:
                return None
            found = _NAME.match(text, pos)
            if found is None:
                return None
            parts.append(found.group(0))
            pos = found.end()
    return tuple(parts)


def parse_key_path(text: str) -> KeyPath:
    parsed = try_parse_key_path(text)
    if parsed is None:
        raise KeyPathError(
            f"key path {text!r} does not parse: write keys with dots and list indexes in "
            'brackets, quoting keys that hold dots or slashes, e.g. '
            'models.providers.openai.models[0].id or agents.defaults.models["openai/gpt-5"]')
    return parsed


@dataclass(frozen=True, slots=True)
class ConfigProblem:
    """A config problem. `fix` holds the edits `doctor --fix` may apply (usually none)."""

    message: str
    path: KeyPath = ()
    hint: str | None = None
    severity: Severity = "error"
    code: str = "config-invalid"
    line: int | None = None
    fix: tuple[Mapping[str, Any], ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        # imported by the first problem: a command whose config has none never loads the
        # redaction patterns (every command imports this module, through the errors)
        from clawharness.redaction.config_text import redact_config_text

        object.__setattr__(self, "message", redact_config_text(self.message))
        if self.hint is not None:
            object.__setattr__(self, "hint", redact_config_text(self.hint))

    @property
    def key_path(self) -> str:
        return format_key_path(self.path)

    def at_line(self, line: int | None) -> ConfigProblem:
        return ConfigProblem(self.message, self.path, self.hint, self.severity, self.code,
                             line, self.fix)

    def describe(self, source: str | None = None) -> str:
        """One line for people: `file:line at key.path: message; hint`."""
        where = source or ""
        if self.line is not None:
            where += f":{self.line}" if where else f"line {self.line}"
        if self.path:
            where += f" at {self.key_path}" if where else self.key_path
        text = f"{where}: {self.message}" if where else self.message
        return f"{text}; {self.hint}" if self.hint else text

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"keyPath": self.key_path, "message": self.message,
                               "severity": self.severity, "code": self.code}
        if self.hint is not None:
            out["hint"] = self.hint
        if self.line is not None:
            out["line"] = self.line
        return out


def render_problems(problems: Sequence[ConfigProblem], source: str | None) -> str:
    """The text of a ConfigError: one problem on one line, several as a list."""
    if len(problems) == 1:
        return problems[0].describe(source)
    head = f"{source}: {len(problems)} problems" if source else f"{len(problems)} problems"
    return head + "".join(f"\n  - {p.describe()}" for p in problems)
