"""The OS sandbox `exec` runs in: settings, backends (bubblewrap, Docker), limits, explain.

Modules, each one concern:

- `settings`: `agents.*.sandbox` resolved for one agent, and the decision for a session;
- `hostfacts`: what the plan needs to know about this machine (read once);
- `plan`: what a sandboxed command sees (mounts, masks, environment, limits), pure;
- `backends`: whether bubblewrap / a Docker daemon work here (probed once, cached);
- `cgroups`: a pids cgroup for the process limit where an rlimit cannot hold it (root);
- `bwrap`, `docker`: a plan as the argv of each backend;
- `runner`: one host's sandbox, and one agent's, as the exec and file tools use them;
- `explain`: what `clawharness sandbox explain`, `status` and `doctor` say.

Bind specs (`host:container[:options]`) are a name an operator writes:
`clawharness.names.bind_specs`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from clawharness._faces import lazy_face

if TYPE_CHECKING:
    from clawharness.tools.sandbox.explain import (
        SandboxExplanation,
        explain_sandbox,
        sandbox_findings,
        status_lines,
    )
    from clawharness.tools.sandbox.runner import AgentSandbox, SandboxService
    from clawharness.tools.sandbox.settings import SandboxSettings, resolve_sandbox_settings

__all__ = [
    "AgentSandbox",
    "SandboxExplanation",
    "SandboxService",
    "SandboxSettings",
    "explain_sandbox",
    "resolve_sandbox_settings",
    "sandbox_findings",
    "status_lines",
]

__getattr__, __dir__ = lazy_face(__name__, {
    "AgentSandbox": "clawharness.tools.sandbox.runner",
    "SandboxExplanation": "clawharness.tools.sandbox.explain",
    "SandboxService": "clawharness.tools.sandbox.runner",
    "SandboxSettings": "clawharness.tools.sandbox.settings",
    "explain_sandbox": "clawharness.tools.sandbox.explain",
    "resolve_sandbox_settings": "clawharness.tools.sandbox.settings",
    "sandbox_findings": "clawharness.tools.sandbox.explain",
    "status_lines": "clawharness.tools.sandbox.explain",
})
