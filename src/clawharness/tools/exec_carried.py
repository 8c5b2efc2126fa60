"""What one program invocation hands on to be run, and the option scanner the rules share.

`Carried` is the verdict a rule gives on one argv: whether the program itself must match
the allowlist, which commands (argv) and shell scripts (text) it would run in turn, the
arguments it treats as code, and — fail closed — a refusal when the policy cannot see
what it would run. Everything here is pure and synchronous.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

__all__ = ["PLAIN", "Carried", "OptionScan", "refuse", "scan_options"]


@dataclass(frozen=True, slots=True)
class Carried:
    """One invocation's verdict.

    `judge_self`: the program itself must match the allowlist (False for a wrapper
    such as `nice` that only changes how its command runs). `commands` are argv lists it
    runs, `scripts` shell text it runs, `code` the arguments it interprets as a program
    (an awk program, a sed script). `incomplete`: the argv ends where the program expects
    its command or program text, so words appended from input (`xargs`) would supply it.
    """

    judge_self: bool = True
    commands: tuple[tuple[str, ...], ...] = ()
    scripts: tuple[str, ...] = ()
    code: tuple[str, ...] = ()
    incomplete: bool = False
    refusal: str | None = None


PLAIN = Carried()


def refuse(reason: str) -> Carried:
    """A verdict that refuses the invocation in allowlist mode, saying why."""
    return Carried(judge_self=False, refusal=reason)


@dataclass(frozen=True, slots=True)
class OptionScan:
    """Where the operands start, the options seen (name -> value or None), or a refusal."""

    operand_index: int
    seen: tuple[tuple[str, str | None], ...] = ()
    refusal: str | None = None

    def has(self, *names: str) -> bool:
        return any(name in names for name, _ in self.seen)

    def values(self, *names: str) -> list[str]:
        return [value for name, value in self.seen if name in names and value is not None]


def scan_options(
    argv: Sequence[str],
    *,
    start: int = 1,
    flags: Collection[str] = (),
    valued: Collection[str] = (),
    optional_attached: Collection[str] = (),
    program: str | None = None,
) -> OptionScan:
    """Scan getopt-style options from `argv[start]` up to the first operand.

    `flags` take no value, `valued` take one (attached, `--name=value`, or the next
    word), `optional_attached` take a value only when attached (`-i.bak`, `--in-place=`).
    Short options cluster (`-ne`). An option in none of the sets is a refusal: the policy
    does not guess what an unknown option does.
    """
    name_shown = program or (argv[0].rsplit("/", 1)[-1] if argv else "command")
    seen: list[tuple[str, str | None]] = []
    i = start
    while i < len(argv):
        token = argv[i]
        if token == "--":
            return OptionScan(i + 1, tuple(seen))
        if not token.startswith("-") or token == "-":
            return OptionScan(i, tuple(seen))
        if token.startswith("--"):
            name, eq, value = token.partition("=")
            if name in valued:
                if eq:
                    seen.append((name, value))
                elif i + 1 < len(argv):
                    seen.append((name, argv[i + 1]))
                    i += 1
                else:
                    return OptionScan(i, tuple(seen), f"{name_shown}: {name} needs a value")
            elif name in optional_attached:
                seen.append((name, value if eq else None))
            elif name in flags and not eq:
                seen.append((name, None))
            else:
                return OptionScan(
                    i, tuple(seen),
                    f"{name_shown}: option {name!r} is not one this policy can see through")
            i += 1
            continue
        j = 1
        while j < len(token):
            short = f"-{token[j]}"
            rest = token[j + 1 :]
            if short in valued:
                if rest:
                    seen.append((short, rest))
                elif i + 1 < len(argv):
                    seen.append((short, argv[i + 1]))
                    i += 1
                else:
                    return OptionScan(i, tuple(seen), f"{name_shown}: {short} needs a value")
                break
            if short in optional_attached:
                seen.append((short, rest or None))
                break
            if short not in flags:
                return OptionScan(
                    i, tuple(seen),
                    f"{name_shown}: option {short!r} is not one this policy can see through")
            seen.append((short, None))
            j += 1
        i += 1
    return OptionScan(len(argv), tuple(seen))
