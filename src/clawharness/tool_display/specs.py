"""The display table: emoji, titles and detail keys per tool, read once from `tools.toml`.

The table is data (see the comments at the top of `tools.toml` for its shape); this
module turns it into frozen values and checks its shape on load, so a broken table
fails with the file and key that are wrong instead of showing odd details later.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from importlib.resources import files
from types import MappingProxyType
from typing import Final

from clawharness.errors import ClawHarnessError

__all__ = [
    "DisplayTable",
    "ExecLabels",
    "ToolActionSpec",
    "ToolDisplaySpec",
    "display_table",
    "exec_labels",
    "read_exec_labels",
    "read_table",
]

_RESOURCE: Final = "tools.toml"
_EXEC_RESOURCE: Final = "exec_labels.toml"


@dataclass(frozen=True, slots=True)
class ToolActionSpec:
    """How one action of a multi-action tool is labelled and detailed."""

    label: str
    #: None: the tool's own detail keys apply
    detail_keys: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class ToolDisplaySpec:
    """How one tool is shown."""

    emoji: str
    title: str
    label: str | None = None
    #: None: the fallback keys apply; (): no detail from the arguments
    detail_keys: tuple[str, ...] | None = None
    actions: Mapping[str, ToolActionSpec] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(frozen=True, slots=True)
class DisplayTable:
    """The whole table: known tools, the fallback for others, and key labels."""

    tools: Mapping[str, ToolDisplaySpec]
    fallback_emoji: str
    fallback_detail_keys: tuple[str, ...]
    detail_labels: Mapping[str, str]


class _TableError(ClawHarnessError):
    """The packaged display table is malformed (a packaging bug, not user input)."""


def _fail(where: str, what: str, resource: str = _RESOURCE) -> _TableError:
    return _TableError(f"{resource}: {where} {what}")


def _text(value: object, where: str) -> str:
    if not isinstance(value, str):
        raise _fail(where, "must be a string")
    return value


def _keys(value: object, where: str) -> tuple[str, ...] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(key, str) for key in value):
        raise _fail(where, "must be a list of strings")
    return tuple(value)


def _table(value: object, where: str) -> dict[str, object]:
    if not isinstance(value, dict):
        raise _fail(where, "must be a table")
    return value


def _action(name: str, raw: object, where: str) -> ToolActionSpec:
    fields = _table(raw, where)
    label = fields.get("label", name)
    return ToolActionSpec(_text(label, f"{where}.label"), _keys(fields.get("detail_keys"),
                                                                 f"{where}.detail_keys"))


def _tool(name: str, raw: object) -> ToolDisplaySpec:
    where = f"tools.{name}"
    fields = _table(raw, where)
    label = fields.get("label")
    actions = _table(fields.get("actions", {}), f"{where}.actions")
    return ToolDisplaySpec(
        emoji=_text(fields.get("emoji"), f"{where}.emoji"),
        title=_text(fields.get("title"), f"{where}.title"),
        label=None if label is None else _text(label, f"{where}.label"),
        detail_keys=_keys(fields.get("detail_keys"), f"{where}.detail_keys"),
        actions=MappingProxyType(
            {key: _action(key, spec, f"{where}.actions.{key}") for key, spec in actions.items()}
        ),
    )


def read_table(text: str) -> DisplayTable:
    """Parse and check a display table written in the `tools.toml` shape."""
    raw = tomllib.loads(text)
    fallback = _table(raw.get("fallback"), "fallback")
    fallback_keys = _keys(fallback.get("detail_keys"), "fallback.detail_keys")
    labels = _table(raw.get("detail_labels", {}), "detail_labels")
    return DisplayTable(
        tools=MappingProxyType(
            {name: _tool(name, spec) for name, spec in _table(raw.get("tools"), "tools").items()}
        ),
        fallback_emoji=_text(fallback.get("emoji"), "fallback.emoji"),
        fallback_detail_keys=fallback_keys if fallback_keys is not None else (),
        detail_labels=MappingProxyType(
            {key: _text(label, f"detail_labels.{key}") for key, label in labels.items()}
        ),
    )


@cache
def display_table() -> DisplayTable:
    """The packaged table (read on first use)."""
    return read_table(files(__package__).joinpath(_RESOURCE).read_text(encoding="utf-8"))


# -- shell command labels ----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ExecLabels:
    """Labels for shell commands (see `exec_labels.toml`)."""

    #: binary -> (label with a target, label without one)
    file_commands: Mapping[str, tuple[str, str]]
    git_subcommands: Mapping[str, str]
    package_scripts: Mapping[str, str]
    known_prefixes: tuple[str, ...]


def _labels(raw: dict[str, object], section: str) -> Mapping[str, str]:
    table = raw.get(section)
    if not isinstance(table, dict) or not all(isinstance(v, str) for v in table.values()):
        raise _fail(section, "must be a table of strings", _EXEC_RESOURCE)
    return MappingProxyType(dict(table))


def read_exec_labels(text: str) -> ExecLabels:
    """Parse and check shell command labels written in the `exec_labels.toml` shape."""
    raw = tomllib.loads(text)
    files_table = raw.get("file_commands")
    if not isinstance(files_table, dict):
        raise _fail("file_commands", "must be a table", _EXEC_RESOURCE)
    file_commands: dict[str, tuple[str, str]] = {}
    for name, entry in files_table.items():
        with_target = entry.get("with_target") if isinstance(entry, dict) else None
        alone = entry.get("alone") if isinstance(entry, dict) else None
        if not isinstance(with_target, str) or not isinstance(alone, str):
            raise _fail(f"file_commands.{name}", "needs string with_target and alone",
                        _EXEC_RESOURCE)
        file_commands[name] = (with_target, alone)
    generic = raw.get("generic")
    prefixes = generic.get("known_prefixes") if isinstance(generic, dict) else None
    if not isinstance(prefixes, list) or not all(isinstance(p, str) for p in prefixes):
        raise _fail("generic.known_prefixes", "must be a list of strings", _EXEC_RESOURCE)
    return ExecLabels(
        file_commands=MappingProxyType(file_commands),
        git_subcommands=_labels(raw, "git_subcommands"),
        package_scripts=_labels(raw, "package_scripts"),
        known_prefixes=tuple(prefixes),
    )


@cache
def exec_labels() -> ExecLabels:
    """The packaged shell command labels (read on first use)."""
    return read_exec_labels(files(__package__).joinpath(_EXEC_RESOURCE).read_text(encoding="utf-8"))
