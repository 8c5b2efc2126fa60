"""Command-line options read as GNU getopt reads them, abbreviations included.

Two readers, for two kinds of knowledge:

- `OptionGrammar.parse` knows a program's options completely enough to allow only a
  known-safe set: every short letter and long name must be one it lists (anything else
  is refused: an option the policy does not know might run something). Long options are
  matched the way `getopt_long` matches them: an exact name, or an unambiguous prefix
  (`--ignore-env` is `--ignore-environment`). A token that is a prefix of a refused
  option is refused even when it is also a prefix of an allowed one (the program would
  either take the refused option or stop on an ambiguity).
- `find_refused_option` knows only the options that make a program run another one, for
  programs with too many options to list (`tar`, `git` subcommands): a long option that
  is a prefix of one of them (`--checkpoint-a=exec=...`, `--upload-p=...`), or a short
  cluster holding one of their letters anywhere (`-xzvI`), is refused. Refusing a letter
  that was really part of a value only ever refuses more.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

__all__ = ["Arity", "OptionGrammar", "ParsedOptions", "find_refused_option"]


class Arity(enum.Enum):
    """Whether an option takes a value: never, always (attached or the next word), or only
    attached (`-i.bak`, `--in-place=.bak`)."""

    NONE = "none"
    REQUIRED = "required"
    OPTIONAL = "optional"


@dataclass(frozen=True, slots=True)
class ParsedOptions:
    """Options seen (canonical `-x` / `--name`, value or None), the indexes of operand
    words, and, for a grammar that stops at its first operand, where that operand is."""

    options: tuple[tuple[str, str | None], ...]
    operands: tuple[int, ...]
    first_operand: int

    def has(self, *names: str) -> bool:
        return any(name in names for name, _ in self.options)

    def values(self, *names: str) -> list[str]:
        return [value for name, value in self.options if name in names and value is not None]


@dataclass(frozen=True, slots=True)
class OptionGrammar:
    """The options a program accepts that the policy knows are safe.

    `shorts` maps a letter to its arity, `longs` a name (no dashes) to its arity;
    `refused` maps an option as written (`-e`, `--split-string`) to why it is refused.
    `stop_at_operand`: options end at the first operand (getopt's "+", or POSIX
    utilities); otherwise options may follow operands, as GNU programs allow.
    """

    program: str
    shorts: Mapping[str, Arity] = field(default_factory=dict)
    longs: Mapping[str, Arity] = field(default_factory=dict)
    refused: Mapping[str, str] = field(default_factory=dict)
    stop_at_operand: bool = False
    abbreviations: bool = True

    def _refusal(self, spelled: str, why: str) -> str:
        return f"{self.program} {spelled} {why}"

    def _long(self, argv: Sequence[str], index: int,
              seen: list[tuple[str, str | None]]) -> tuple[int, str | None]:
        """Read the long option at `argv[index]`; the next index, or a refusal."""
        token = argv[index]
        name, eq, value = token[2:].partition("=")
        refused_longs = {k[2:]: why for k, why in self.refused.items() if k.startswith("--")}
        for refused_name, why in refused_longs.items():
            if refused_name == name or (self.abbreviations and name
                                        and refused_name.startswith(name)):
                return index, self._refusal(f"--{refused_name}", why)
        if name in self.longs:
            matches = [name]
        elif self.abbreviations and name:
            matches = [known for known in self.longs if known.startswith(name)]
        else:
            matches = []
        if not matches:
            return index, (f"{self.program}: option --{name!r} is not one this policy knows "
                           "to be safe")
        if len(matches) > 1:
            return index, (f"{self.program}: option --{name} is ambiguous "
                           f"({', '.join('--' + m for m in sorted(matches))})")
        full = matches[0]
        arity = self.longs[full]
        if arity is Arity.NONE:
            if eq:
                return index, f"{self.program}: option --{full} takes no value"
            seen.append((f"--{full}", None))
            return index + 1, None
        if arity is Arity.OPTIONAL or eq:
            seen.append((f"--{full}", value if eq else None))
            return index + 1, None
        if index + 1 >= len(argv):
            return index, f"{self.program}: option --{full} needs a value"
        seen.append((f"--{full}", argv[index + 1]))
        return index + 2, None

    def _short(self, argv: Sequence[str], index: int,
               seen: list[tuple[str, str | None]]) -> tuple[int, str | None]:
        token = argv[index]
        j = 1
        while j < len(token):
            letter = token[j]
            spelled = f"-{letter}"
            if spelled in self.refused:
                return index, self._refusal(spelled, self.refused[spelled])
            arity = self.shorts.get(letter)
            if arity is None:
                return index, (f"{self.program}: option {spelled!r} is not one this policy "
                               "knows to be safe")
            rest = token[j + 1 :]
            if arity is Arity.NONE:
                seen.append((spelled, None))
                j += 1
                continue
            if arity is Arity.OPTIONAL or rest:
                seen.append((spelled, rest or None))
                return index + 1, None
            if index + 1 >= len(argv):
                return index, f"{self.program}: option {spelled} needs a value"
            seen.append((spelled, argv[index + 1]))
            return index + 2, None
        return index + 1, None

    def parse(self, argv: Sequence[str], start: int = 1) -> ParsedOptions | str:
        """The options of `argv[start:]`, or why they are refused."""
        seen: list[tuple[str, str | None]] = []
        operands: list[int] = []
        i = start
        while i < len(argv):
            token = argv[i]
            if token == "--":
                operands.extend(range(i + 1, len(argv)))
                break
            if not token.startswith("-") or token == "-":
                if self.stop_at_operand:
                    operands.extend(range(i, len(argv)))
                    break
                operands.append(i)
                i += 1
                continue
            if token.startswith("--"):
                i, problem = self._long(argv, i, seen)
            else:
                i, problem = self._short(argv, i, seen)
            if problem is not None:
                return problem
        first = operands[0] if operands else len(argv)
        return ParsedOptions(tuple(seen), tuple(operands), first)


def find_refused_option(argv: Sequence[str], refused: Mapping[str, str], *,
                        program: str, start: int = 1) -> str | None:
    """The first word of `argv[start:]` naming a refused option, as a refusal.

    `refused` maps `--long` names and `-x` letters to why. A long word is refused when it
    is a prefix of (or equal to) a refused name, with or without `=value`; a short
    cluster when any of its letters is refused. Stops at `--`.
    """
    longs = {name[2:]: why for name, why in refused.items() if name.startswith("--")}
    shorts = {name[1:]: why for name, why in refused.items()
              if name.startswith("-") and not name.startswith("--") and len(name) == 2}
    for token in argv[start:]:
        if token == "--":
            return None
        if token.startswith("--"):
            name = token[2:].split("=", 1)[0]
            for refused_name, why in longs.items():
                if name and refused_name.startswith(name):
                    return f"{program} --{refused_name} {why}"
        elif token.startswith("-") and len(token) > 1:
            for letter in token[1:]:
                if letter in shorts:
                    return f"{program} -{letter} {shorts[letter]}"
    return None
