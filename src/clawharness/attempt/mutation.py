"""Tool mutation classification: which tool calls change the world, and which are the same action.

Pure and synchronous. The host uses these facts to keep a failed mutating call visible
until the matching action succeeds, and to decide whether a started call left
side-effect evidence (anything not proven replay-safe).

A call is *mutating* when it has an action fingerprint:
`tool=<name>|action=..|path=..|oldpath=..|newpath=..|to=..|messageid=..|sessionkey=..|jobid=..|id=..|model=..`
(values trimmed and lowercased; `meta=` only when no stable key was found).
"""

from __future__ import annotations

import ntpath
import posixpath
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from clawharness.tools.replay import (
    is_mutating_tool_call,
    is_plain_read_only_shell_command,
    is_replay_safe_tool_call,
)

__all__ = [
    "FileTarget",
    "ToolActionRef",
    "ToolMutationState",
    "build_apply_patch_file_targets",
    "build_tool_action_fingerprint",
    "build_tool_file_target",
    "build_tool_mutation_state",
    "extract_apply_patch_targets",
    "is_likely_mutating_tool_name",
    "is_mutating_tool_call",
    "is_plain_read_only_shell_command",
    "is_replay_safe_tool_call",
    "is_same_file_target",
    "is_same_tool_mutation_action",
]

_LIKELY_MUTATING_NAMES = frozenset({
    "write", "edit", "apply_patch", "exec", "bash", "process", "message", "sessions_spawn",
    "sessions_send", "conversations_send", "conversations_turn", "cron", "automations",
    "gateway", "canvas", "nodes", "session_status", "create_goal", "update_goal",
})
#: the scheduler tool and its permanent legacy alias


#: edit and write share one file identity, so edit can recover through write
_FILE_MUTATING_TOOLS = frozenset({"edit", "write"})
_FILE_TARGET_TOOLS = frozenset({"edit", "read", "write"})
_PATH_KEYS = ("path", "file_path", "filePath", "filepath", "file")
_OLDPATH_KEYS = ("oldPath", "old_path")

#: (label, argument aliases) in fingerprint order
_FINGERPRINT_FIELDS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("path", _PATH_KEYS),
    ("oldpath", _OLDPATH_KEYS),
    ("newpath", ("newPath", "new_path")),
    ("to", ("to", "target")),
    ("messageid", ("messageId", "message_id")),
    ("sessionkey", ("sessionKey", "session_key")),
    ("jobid", ("jobId", "job_id")),
    ("id", ("id",)),
    ("model", ("model",)),
)

_APPLY_PATCH_MARKERS = (
    ("add", "*** Add File: "),
    ("delete", "*** Delete File: "),
    ("update", "*** Update File: "),
)
_MOVE_MARKER = "*** Move to: "


@dataclass(frozen=True, slots=True)
class FileTarget:
    """The file a call reads or mutates (`fileTarget {path, oldpath}`)."""

    path: str | None = None
    oldpath: str | None = None
    expected: Literal["present", "absent", "unknown"] | None = None

    def to_json(self) -> dict[str, Any]:
        """The JSON form in tool summaries, absent fields omitted."""
        out: dict[str, Any] = {}
        if self.path is not None:
            out["path"] = self.path
        if self.oldpath is not None:
            out["oldpath"] = self.oldpath
        if self.expected is not None:
            out["expected"] = self.expected
        return out

    @staticmethod
    def from_json(value: Any) -> FileTarget | None:
        """Read a `{path, oldpath}` mapping back; None for anything else."""
        if isinstance(value, FileTarget):
            return value
        if not isinstance(value, Mapping):
            return None
        path = value.get("path")
        oldpath = value.get("oldpath")
        if not isinstance(path, str) and not isinstance(oldpath, str):
            return None
        return FileTarget(path if isinstance(path, str) else None,
                          oldpath if isinstance(oldpath, str) else None)


@dataclass(frozen=True, slots=True)
class ToolMutationState:
    """The mutation facts of one call."""

    mutating_action: bool
    replay_safe: bool
    action_fingerprint: str | None = None
    file_target: FileTarget | None = None


@dataclass(frozen=True, slots=True)
class ToolActionRef:
    """What identifies one action when matching a success against an unresolved failure."""

    tool_name: str
    meta: str | None = None
    action_fingerprint: str | None = None
    file_target: FileTarget | None = None


# --- small coercions -------------------------------------------------------------------


def _record(value: Any) -> Mapping[str, Any] | None:
    # (a dict is told apart in C, before the ABC's check in Python)
    return value if isinstance(value, (dict, Mapping)) else None


def _lower(value: Any) -> str:
    return value.strip().lower() if isinstance(value, str) else ""


def _action_name(value: Any) -> str | None:
    if not isinstance(value, str):
        return None
    normalized = re.sub(r"[\s-]+", "_", value.strip().lower())
    return normalized or None


def _number_text(value: int | float) -> str:
    # A whole float prints without ".0", so `1` and `1.0` name the same action and a
    # fingerprint matches the one the original runtime wrote for the same call.
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    return str(value).lower()


def _fingerprint_value(value: Any) -> str | None:
    if isinstance(value, str):
        trimmed = value.strip()
        return trimmed.lower() if trimmed else None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return _number_text(value)
    return None


def _command(record: Mapping[str, Any] | None) -> str | None:
    if record is None:
        return None
    raw = record.get("command")
    if raw is None:
        raw = record.get("cmd")
    if not isinstance(raw, str):
        return None
    return raw.strip() or None


# --- shell commands -------------------------------------------------------------------


# --- classification -------------------------------------------------------------------


def is_likely_mutating_tool_name(tool_name: str) -> bool:
    """A name-only guess, for summaries that have no arguments."""
    normalized = _lower(tool_name)
    if not normalized:
        return False
    return (
        normalized in _LIKELY_MUTATING_NAMES
        or normalized.endswith("_actions")
        or normalized.startswith("message_")
        or "send" in normalized
    )


def build_tool_action_fingerprint(tool_name: str, args: Any, meta: str | None = None) -> str | None:
    """The action fingerprint of a mutating call; None for non-mutating calls."""
    if not is_mutating_tool_call(tool_name, args):
        return None
    record = _record(args)
    parts = [f"tool={_lower(tool_name)}"]
    action = _action_name(record.get("action") if record is not None else None)
    if action:
        parts.append(f"action={action}")
    has_stable_target = False
    for label, keys in _FINGERPRINT_FIELDS:
        for key in keys:
            value = _fingerprint_value(record.get(key) if record is not None else None)
            if value:
                parts.append(f"{label}={value}")
                has_stable_target = True
                break
    # meta often carries volatile details ("N chars"); use it only when nothing stable exists
    normalized_meta = re.sub(r"\s+", " ", meta.strip()).lower() if isinstance(meta, str) else ""
    if normalized_meta and not has_stable_target:
        parts.append(f"meta={normalized_meta}")
    return "|".join(parts)


def build_tool_file_target(tool_name: str, args: Any) -> FileTarget | None:
    """`fileTarget` for edit, read and write calls (raw trimmed paths, case kept)."""
    if _lower(tool_name) not in _FILE_TARGET_TOOLS:
        return None
    record = _record(args)
    if record is None:
        return None

    def first(keys: Sequence[str]) -> str | None:
        for key in keys:
            value = record.get(key)
            if isinstance(value, str) and value.strip():
                return value.strip()
        return None

    path = first(_PATH_KEYS)
    oldpath = first(_OLDPATH_KEYS)
    if path is None and oldpath is None:
        return None
    return FileTarget(path, oldpath)


def build_tool_mutation_state(
    tool_name: str, args: Any, meta: str | None = None, *, owner_key: str | None = None
) -> ToolMutationState:
    """All mutation facts of one call.

    `owner_key` is an owner-declared persistence mutation (the tool's own plugin says the
    call writes durable state); its identity is the owner key, not the arguments.
    """
    if owner_key:
        return ToolMutationState(True, False, f"owner={owner_key}")
    fingerprint = build_tool_action_fingerprint(tool_name, args, meta)
    return ToolMutationState(
        mutating_action=fingerprint is not None,
        replay_safe=is_replay_safe_tool_call(tool_name, args),
        action_fingerprint=fingerprint,
        file_target=build_tool_file_target(tool_name, args),
    )


# --- apply_patch ----------------------------------------------------------------------


def _marker_path(line: str | None, marker: str) -> str | None:
    if line is None:
        return None
    stripped = line.lstrip()
    if not stripped.startswith("***"):
        return None
    stripped = stripped.rstrip()
    return stripped[len(marker):] if stripped.startswith(marker) else None


def _patch_text(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    record = _record(value)
    if record is not None and isinstance(record.get("input"), str):
        return str(record["input"])
    return None


def extract_apply_patch_targets(value: Any) -> list[tuple[str, str]]:
    """`(kind, path)` pairs of an apply_patch envelope; kind is add|delete|update|move."""
    text = _patch_text(value)
    if not text:
        return []
    lines = re.split(r"\r?\n", text)
    targets: list[tuple[str, str]] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        for kind, marker in _APPLY_PATCH_MARKERS:
            path = _marker_path(line, marker)
            if path is None:
                continue
            targets.append((kind, path))
            if kind == "add":
                while index + 1 < len(lines) and lines[index + 1].startswith("+"):
                    index += 1
            elif kind == "update":
                lookahead = index + 1
                while lookahead < len(lines) and lines[lookahead].strip() == "":
                    lookahead += 1
                move = _marker_path(lines[lookahead] if lookahead < len(lines) else None,
                                    _MOVE_MARKER)
                if move is not None:
                    targets.append(("move", move))
                    lookahead += 1
                while lookahead < len(lines) and not lines[lookahead].startswith("***"):
                    lookahead += 1
                index = lookahead - 1
            break
        index += 1
    return targets


def build_apply_patch_file_targets(tool_name: str, args: Any) -> list[FileTarget] | None:
    """The added/updated paths of an apply_patch call; None when it deletes or moves a file."""
    if _lower(tool_name) != "apply_patch":
        return None
    targets = extract_apply_patch_targets(args)
    if any(kind in ("delete", "move") for kind, _ in targets):
        return None
    seen: list[str] = []
    for _, path in targets:
        trimmed = path.strip()
        if trimmed and trimmed not in seen:
            seen.append(trimmed)
    return [FileTarget(path) for path in seen] or None


# --- same action ----------------------------------------------------------------------


def _path_identity(value: str | None, platform: str) -> str:
    if not value:
        return ""
    if platform == "win32":
        return ntpath.normpath(value).lower()
    return posixpath.normpath(value)


def is_same_file_target(a: FileTarget, b: FileTarget, platform: str | None = None) -> bool:
    """Same normalised path and oldpath (case-insensitive on win32)."""
    plat = platform or sys.platform
    return (
        _path_identity(a.path, plat) == _path_identity(b.path, plat)
        and _path_identity(a.oldpath, plat) == _path_identity(b.oldpath, plat)
    )


def is_same_tool_mutation_action(
    existing: ToolActionRef, nxt: ToolActionRef, platform: str | None = None
) -> bool:
    """Whether `nxt` is the same action as `existing` (first applicable rule wins)."""
    if (
        _lower(existing.tool_name) in _FILE_MUTATING_TOOLS
        and _lower(nxt.tool_name) in _FILE_MUTATING_TOOLS
        and existing.file_target is not None
        and nxt.file_target is not None
    ):
        # structured paths first: fingerprints lowercase, which would merge distinct files
        return is_same_file_target(existing.file_target, nxt.file_target, platform)
    if existing.action_fingerprint is not None or nxt.action_fingerprint is not None:
        # fail closed: a fingerprinted action clears only against an equal fingerprint
        return (
            existing.action_fingerprint is not None
            and existing.action_fingerprint == nxt.action_fingerprint
        )
    return existing.tool_name == nxt.tool_name and (existing.meta or "") == (nxt.meta or "")
