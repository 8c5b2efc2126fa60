"""Which sandbox backends work on this machine, probed once per process.

- `bwrap`: bubblewrap is on PATH and a real sandbox starts (user, pid, network, IPC and
  UTS namespaces, a fresh `/proc`): kernels or policies that forbid user namespaces make
  the probe fail and say so. `prlimit` (util-linux) applies the limits.
- `docker`: the client is on PATH and a daemon answers `docker info`.

`decide` (pure) turns settings, a session and these facts into a `SandboxDecision`.
"""

from __future__ import annotations

import shutil
import subprocess
import threading
from collections.abc import Mapping
from dataclasses import dataclass

from clawharness.tools.sandbox.settings import (
    SandboxBackendName,
    SandboxDecision,
    SandboxSettings,
    is_main_session,
    sandbox_applies,
)

__all__ = [
    "BackendStatus",
    "backend_statuses",
    "clear_backend_cache",
    "decide",
    "docker_image_status",
    "probe_bwrap",
    "probe_docker",
]

_PROBE_TIMEOUT = 15.0
INSTALL_HINT = "install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap)"


@dataclass(frozen=True, slots=True)
class BackendStatus:
    """Whether a backend works here: `detail` is its version, or why it does not."""

    name: SandboxBackendName
    available: bool
    detail: str
    #: the programs it runs, resolved on PATH
    programs: Mapping[str, str] | None = None


def _first_line(text: str | bytes | None) -> str:
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[0] if lines else ""


def probe_bwrap() -> BackendStatus:
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return BackendStatus("bwrap", False, f"bwrap is not on PATH: {INSTALL_HINT}")
    prlimit = shutil.which("prlimit")
    if prlimit is None:
        return BackendStatus("bwrap", False, "prlimit (util-linux) is not on PATH: the "
                             "sandbox's resource limits need it")
    true = shutil.which("true") or "/bin/true"
    argv = [bwrap, "--unshare-user", "--unshare-pid", "--unshare-net", "--unshare-ipc",
            "--unshare-uts", "--die-with-parent", "--new-session", "--cap-drop", "ALL",
            "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--", true]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=_PROBE_TIMEOUT,
                              stdin=subprocess.DEVNULL, check=False)
        version = subprocess.run([bwrap, "--version"], capture_output=True, check=False,
                                 timeout=_PROBE_TIMEOUT, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return BackendStatus("bwrap", False, f"bwrap did not start a sandbox: {exc}")
    if done.returncode != 0:
        why = _first_line(done.stderr) or f"exit code {done.returncode}"
        return BackendStatus("bwrap", False, f"bwrap cannot make a sandbox here: {why} "
                             "(user namespaces may be disabled)")
    return BackendStatus("bwrap", True, _first_line(version.stdout) or "bubblewrap",
                         {"bwrap": bwrap, "prlimit": prlimit})


def probe_docker() -> BackendStatus:
    docker = shutil.which("docker")
    if docker is None:
        return BackendStatus("docker", False, "the docker client is not on PATH")
    try:
        done = subprocess.run([docker, "info", "--format", "{{.ServerVersion}}"],
                              capture_output=True, timeout=_PROBE_TIMEOUT,
                              stdin=subprocess.DEVNULL, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return BackendStatus("docker", False, f"no Docker daemon answers: {exc}")
    if done.returncode != 0:
        why = _first_line(done.stderr) or f"exit code {done.returncode}"
        return BackendStatus("docker", False, f"no Docker daemon answers (docker info: {why})")
    return BackendStatus("docker", True, f"Docker Engine {_first_line(done.stdout)}",
                         {"docker": docker})


def docker_image_status(status: BackendStatus, image: str) -> BackendStatus:
    """`status` (a Docker Engine that answers) as the automatic choice sees it: usable
    only when `image` is already here, since a fresh install must not pull an image
    (minutes, and the network) on a model's first command."""
    docker = (status.programs or {}).get("docker")
    if not status.available or docker is None:
        return status
    with _lock:
        present = _images.get(image)
    if present is None:
        try:
            done = subprocess.run([docker, "image", "inspect", "--format", "{{.Id}}", image],
                                  capture_output=True, timeout=_PROBE_TIMEOUT,
                                  stdin=subprocess.DEVNULL, check=False)
            present = done.returncode == 0
        except (OSError, subprocess.TimeoutExpired):
            present = False
        with _lock:
            _images[image] = present
    if present:
        return status
    return BackendStatus("docker", False, f"{status.detail} answers, but the image {image} is "
                         f"not here: docker pull {image}, or set sandbox.backend \"docker\" "
                         "to pull it on first use")


_PROBES = {"bwrap": probe_bwrap, "docker": probe_docker}
_images: dict[str, bool] = {}
_cache: dict[str, BackendStatus] = {}
_lock = threading.Lock()


def backend_statuses(names: tuple[SandboxBackendName, ...] = ("bwrap", "docker"),
                     ) -> dict[SandboxBackendName, BackendStatus]:
    """The status of each backend in `names`, probed at the first ask in this process.

    Blocking (a probe runs a sandbox); call it from a worker thread on an event loop.
    """
    found: dict[SandboxBackendName, BackendStatus] = {}
    for name in names:
        with _lock:
            status = _cache.get(name)
            if status is None:
                status = _cache[name] = _PROBES[name]()
        found[name] = status
    return found


def clear_backend_cache() -> None:
    """Forget the probes (a backend installed or started since)."""
    with _lock:
        _cache.clear()
        _images.clear()


def backend_order(settings: SandboxSettings) -> tuple[SandboxBackendName, ...]:
    """The backends to try for `settings`, in order."""
    if settings.backend == "auto":
        return ("bwrap", "docker")
    return (settings.backend,)


def decide(settings: SandboxSettings, session_key: str,
           statuses: Mapping[SandboxBackendName, BackendStatus]) -> SandboxDecision:
    """Where a command of `session_key` runs: in which sandbox, on the host, or nowhere."""
    where = settings.sources.get("mode", "agents.defaults.sandbox")
    if settings.mode == "off":
        return SandboxDecision(False, None, f'{where}.mode is "off"')
    if not sandbox_applies(settings, session_key):
        return SandboxDecision(False, None, f'{session_key} is the main session and '
                               f'{where}.mode is "non-main"')
    order = backend_order(settings)
    for name in order:
        status = statuses.get(name)
        if status is not None and status.available:
            why = ("the main session" if is_main_session(session_key, settings.agent_id)
                   else "a session")
            mode = (f'{where}.mode is "{settings.mode}"' if settings.required
                    else "sandboxed by default where a backend works")
            return SandboxDecision(True, name, f"{why}: {mode}; backend {name} "
                                   f"({status.detail})")
    problems = "; ".join(f"{name}: {statuses[name].detail}" for name in order
                         if name in statuses) or "no backend was probed"
    if settings.required:
        key = (f"{settings.sources['mode']}.mode" if "mode" in settings.sources
               else f"{settings.sources.get('backend', where)}.backend")
        return SandboxDecision(
            False, None, "the sandbox is required and no backend works here",
            refusal=(f"exec is refused: {key} asks for a sandbox and none works here "
                     f"({problems}). {INSTALL_HINT[0].upper() + INSTALL_HINT[1:]}, or set "
                     f'{where}.mode to "off" to run commands on the host'))
    return SandboxDecision(
        False, None, "no sandbox backend works here, so commands run on the host",
        unavailable=(f"no OS sandbox: exec runs on the host, where the exec allowlist and "
                     f"approvals are the only wall ({problems}). For the operator: to "
                     f"contain commands, {INSTALL_HINT}."))
