"""The error tree drawn at the top of `clawharness.errors` is the real one: every public
class is drawn once, under its base, and every name is importable from there."""

from __future__ import annotations

import re

import clawharness.errors as errors

_DRAWN = re.compile(r"^    ((?:[│ ]   )*)(?:[├└]── )?([A-Z]\w+)\b")


def _drawn() -> list[tuple[str, str | None]]:
    """(class, the class drawn as its parent), in the order drawn."""
    found: list[tuple[str, str | None]] = []
    path: list[str] = []
    for line in (errors.__doc__ or "").splitlines():
        match = _DRAWN.match(line)
        if match is None:
            continue
        depth = len(match.group(1)) // 4 + (1 if "──" in line else 0)
        path = [*path[:depth], match.group(2)]
        found.append((match.group(2), path[depth - 1] if depth else None))
    return found


def test_every_error_is_drawn_once_under_its_base() -> None:
    drawn = _drawn()
    names = [name for name, _parent in drawn]
    assert len(names) == len(set(names))
    aliases = {name for name in errors.__all__
               if getattr(errors, name).__name__ != name}  # MissingAgentHarnessError
    assert set(names) == set(errors.__all__) - aliases
    for name, parent in drawn:
        cls = getattr(errors, name)
        if parent is None:
            assert cls is errors.ClawHarnessError
        else:
            assert cls.__bases__[0] is getattr(errors, parent), name


def test_every_error_says_it_lives_in_the_public_module() -> None:
    for name in errors.__all__:
        assert getattr(errors, name).__module__ == "clawharness.errors", name
