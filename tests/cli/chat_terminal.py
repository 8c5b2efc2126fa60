"""Drive a `clawharness` command under a pseudo-terminal and wait on what it shows.

The screen text is kept with terminal escape sequences removed, so a test can wait for
"write ok" even when colour codes sit between the words. Every wait has a deadline and
reads as output arrives; nothing sleeps for a fixed time.
"""

from __future__ import annotations

import os
import re
import sys
import time
from collections.abc import Mapping
from pathlib import Path

import pexpect

_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[=>()][0-9A-B]?|\r")
CLAWHARNESS = str(Path(sys.executable).with_name("clawharness"))


def terminal_env(state_dir: Path, extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment for a child under test: its own state dir, a plain xterm."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CLAWHARNESS_")}
    env.update({
        "CLAWHARNESS_STATE_DIR": str(state_dir),
        "TERM": "xterm-256color",
        # pexpect does not answer cursor-position requests; without this prompt_toolkit
        # waits for the answer and then warns about the terminal
        "PROMPT_TOOLKIT_NO_CPR": "1",
        "COLUMNS": "160",
        "LINES": "50",
    })
    env.update(extra or {})
    return env


class Terminal:
    """One child process on a pseudo-terminal."""

    def __init__(self, args: list[str], env: Mapping[str, str], *, cwd: Path | None = None) -> None:
        self.child = pexpect.spawn(CLAWHARNESS, args, env=dict(env), cwd=str(cwd) if cwd else None,
                                   encoding="utf-8", codec_errors="replace",
                                   dimensions=(50, 160), timeout=30)
        self._raw = ""
        self.screen = ""
        self._mark = 0

    def _pull(self, timeout: float) -> bool:
        """Read what arrived (waiting up to `timeout`); False at end of output."""
        try:
            chunk = self.child.read_nonblocking(65536, timeout=timeout)
        except pexpect.TIMEOUT:
            return True
        except pexpect.EOF:
            return False
        self._raw += chunk
        self.screen = _ESCAPES.sub("", self._raw)
        return True

    def wait_for(self, text: str, timeout: float = 30.0) -> None:
        """Wait until `text` appears after the last thing waited for."""
        deadline = time.monotonic() + timeout
        while True:
            found = self.screen.find(text, self._mark)
            if found >= 0:
                self._mark = found + len(text)
                return
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not self._pull(min(remaining, 1.0)):
                if self.screen.find(text, self._mark) >= 0:
                    continue
                raise AssertionError(f"{text!r} did not appear within {timeout:g}s; the screen "
                                     f"after the last match:\n{self.screen[self._mark:][-3000:]}")

    def send_line(self, text: str) -> None:
        self.child.send(text + "\r")

    def send_control(self, char: str) -> None:
        self.child.sendcontrol(char)

    def wait_exit(self, timeout: float = 30.0) -> int:
        """Wait for the child to end; its exit status."""
        deadline = time.monotonic() + timeout
        while self._pull(max(0.05, min(1.0, deadline - time.monotonic()))):
            if time.monotonic() > deadline:
                raise AssertionError(f"the command did not exit within {timeout:g}s:\n"
                                     f"{self.screen[-3000:]}")
        self.child.close()
        status = self.child.exitstatus
        return status if status is not None else -(self.child.signalstatus or 0)

    def close(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)
