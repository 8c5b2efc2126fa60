"""How an attempt, and so a turn, ended: the harness contract names it (an attempt's
terminal) without importing the turn's result record (`turn_result`, which re-exports
it)."""

from __future__ import annotations

from typing import Final, Literal, TypeAlias, TypeGuard, get_args

__all__ = ["TerminalKind", "is_terminal_kind"]

#: how an attempt, and so a turn, ended
TerminalKind: TypeAlias = Literal["ok", "aborted", "timeout", "failed"]
_TERMINALS: Final = frozenset(get_args(TerminalKind))


def is_terminal_kind(value: object) -> TypeGuard[TerminalKind]:
    return value in _TERMINALS
