"""What one program invocation hands on to be run: the verdict every rule gives.

A rule looks at one invocation (its words, and whether a pipe feeds its input) and
answers with a `Carried`: whether the program itself must match the allowlist, the
command it runs in turn (a wrapper's tail) or the shell scripts it runs, whether it may
be given words the shell still expands (globs, brace lists), whether it reads piped
input only as data, and — fail closed — a refusal when the policy cannot see what it
would run. Everything here is pure and synchronous.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["INERT", "PLAIN", "Carried", "Invocation", "Rule", "refuse"]


@dataclass(frozen=True, slots=True)
class Invocation:
    """One program run: its words (quotes removed) and whether a pipe feeds its input
    (its own stage, or a shell script's, whose commands all share that input)."""

    argv: tuple[str, ...]
    piped_input: bool = False

    @property
    def name(self) -> str:
        """The lower-cased basename rules are looked up by (`/usr/bin/Env` -> `env`)."""
        return self.argv[0].rsplit("/", 1)[-1].lower()


@dataclass(frozen=True, slots=True)
class Carried:
    """One invocation's verdict.

    `judge_self`: the program itself must match the allowlist (False for a wrapper
    such as `nice` that only changes how its command runs). `command_at`: `argv[k:]` is
    a command it runs (a wrapper's tail). `scripts`: shell text it runs (`sh -c`).
    `expansions_ok`: its arguments may be words the shell still expands (a glob such as
    `*.py`): only for programs known to have no option that runs something, since a file
    named `--to-command=sh` is an option to the program. `input_is_data`: given piped
    input, it reads it as data (not as commands, code or keystrokes for an editor).
    """

    judge_self: bool = True
    command_at: int | None = None
    scripts: tuple[str, ...] = ()
    expansions_ok: bool = False
    input_is_data: bool = False
    refusal: str | None = None


#: a program judged as itself, about which nothing more is known
PLAIN = Carried()
#: a program known to have no option that runs another program and to read input as data
INERT = Carried(expansions_ok=True, input_is_data=True)

Rule = Callable[[Invocation], Carried]


def refuse(reason: str) -> Carried:
    """A verdict that refuses the invocation in allowlist mode, saying why."""
    return Carried(judge_self=False, refusal=reason)
