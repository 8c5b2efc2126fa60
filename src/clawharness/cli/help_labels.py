"""How help labels options: flags are shown as flags, not `--json <bool>`."""

from __future__ import annotations

from typing import Any

__all__ = ["flags_take_no_type_label"]


def flags_take_no_type_label() -> None:
    """Help shows `--json` as a flag, not `--json <bool>`.

    Newer typer labels every option with its Python type, flags included; a flag takes
    no value, so it gets no label.
    """
    from typer.core import TyperOption

    original = getattr(TyperOption, "display_type_rich", None)
    if original is None or getattr(original, "_flags_unlabelled", False):
        return

    def display_type_rich(self: Any, ctx: Any) -> str | None:
        if getattr(self, "is_flag", False) and self.metavar is None:
            return None
        return original(self, ctx)  # type: ignore[no-any-return]

    display_type_rich._flags_unlabelled = True  # type: ignore[attr-defined]
    TyperOption.display_type_rich = display_type_rich  # type: ignore[method-assign]

