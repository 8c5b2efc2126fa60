"""A real bash in a throwaway directory whose PATH holds only logging shims.

`ShimShell.run(command)` runs `bash -c command` the way the exec tool does and returns
every program bash (and the real `env`, `nice`, `timeout`, `nohup` and `stdbuf` it calls)
started, with its words as that program received them: the ground truth the gate's
analysis is checked against. bash's builtins that the gate allows (`echo`, `printf`,
`test`, ...) are disabled by a `BASH_ENV` preamble, so they too run as logged shims;
`sh`, `bash` and `dash` are real bash, started without profile files so the PATH stays
the shims'. Only commands the gate allowed are ever run here, and with this PATH they
can start nothing but shims.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterable
from pathlib import Path

__all__ = ["REAL_WRAPPERS", "ShimShell"]

BASH = shutil.which("bash") or "/bin/bash"
#: real programs the shims stand beside: the wrappers the gate sees through
REAL_WRAPPERS = ("env", "nice", "timeout", "nohup", "stdbuf")
_DISABLED_BUILTINS = ("echo", "printf", "test", "[", "true", "false", "pwd", "type", "help",
                      "cd", "exit", ":")
_WORD_END = "\x1f"
_RECORD_END = "\x1e"


class ShimShell:
    """bash with logging shims for `names`; `which` finds programs as bash would here."""

    def __init__(self, root: Path, names: Iterable[str]) -> None:
        self.root = root
        self.bin = root / "bin"
        self.log = root / "log"
        self.cwd = root / "cwd"
        for directory in (self.bin, self.cwd, root / "home"):
            directory.mkdir(parents=True, exist_ok=True)
        self.preamble = root / "preamble.sh"
        # a command bash cannot find is logged too (by an absolute printf: the builtin is
        # disabled), so a gate that let an unknown program through is seen
        printf = shutil.which("printf") or "/usr/bin/printf"
        self.preamble.write_text(
            "command_not_found_handle() { "
            f"{printf} '%s\\037' \"$@\" $'\\036' >> \"$SHIM_LOG\"; return 127; }}\n"
            "enable -n " + " ".join(
                "'['" if name == "[" else name for name in _DISABLED_BUILTINS) + "\n")
        shim = ("#!/bin/sh\n"
                "RS=$(printf '\\036')\n"
                "printf '%s\\037' \"${0##*/}\" \"$@\" \"$RS\" >> \"$SHIM_LOG\"\n"
                "exit \"${SHIM_STATUS:-0}\"\n")
        for name in {*names, *_DISABLED_BUILTINS} - {".", ".."}:
            path = self.bin / name
            path.write_text(shim)
            path.chmod(0o755)
        for name in REAL_WRAPPERS:
            real = shutil.which(name)
            if real is not None:
                (self.bin / name).unlink(missing_ok=True)
                (self.bin / name).symlink_to(real)
        for name in ("sh", "bash", "dash"):
            path = self.bin / name
            path.write_text(f'#!/bin/sh\nexec {BASH} --noprofile "$@"\n')
            path.chmod(0o755)

    def which(self, name: str) -> str | None:
        path = self.bin / name
        return str(path) if path.exists() else None

    def _env(self, status: int) -> dict[str, str]:
        return {"PATH": str(self.bin), "BASH_ENV": str(self.preamble),
                "SHIM_LOG": str(self.log), "SHIM_STATUS": str(status),
                "HOME": str(self.root / "home"), "LC_ALL": "C.UTF-8"}

    def syntax_ok(self, command: str) -> bool:
        """Whether `bash -n` reads the command without a syntax error."""
        done = subprocess.run([BASH, "-n", "-c", command], env=self._env(0),
                              cwd=self.cwd, capture_output=True, timeout=20, check=False)
        return done.returncode == 0

    def run(self, command: str, *, status: int = 0) -> list[tuple[str, ...]]:
        """The programs `bash -c command` started, with their words (shims exit
        `status`)."""
        self.log.write_bytes(b"")
        subprocess.run([BASH, "-c", command], env=self._env(status), cwd=self.cwd,
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=20,
                       check=False)
        records = self.log.read_bytes().decode("utf-8", "surrogateescape")
        runs: list[tuple[str, ...]] = []
        for record in records.split(_RECORD_END + _WORD_END):
            if record:  # each word is followed by the separator
                runs.append(tuple(record[:-1].split(_WORD_END)))
        return runs

    def started(self, command: str) -> set[tuple[str, ...]]:
        """Every program started when the shims succeed and when they fail (so both
        sides of `&&` and `||` run in one of the two)."""
        return {*self.run(command, status=0), *self.run(command, status=1)}

    def cleanup(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    def __repr__(self) -> str:
        return f"ShimShell({os.fspath(self.root)!r})"
