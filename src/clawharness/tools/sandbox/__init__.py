"""The OS sandbox `exec` runs in: settings, backends (bubblewrap, Docker), limits, explain.

Modules, each one concern:

- `binds`: OpenClaw's bind specs (`host:container[:options]`);
- `settings`: `agents.*.sandbox` resolved for one agent, and the decision for a session;
- `hostfacts`: what the plan needs to know about this machine (read once);
- `plan`: what a sandboxed command sees (mounts, masks, environment, limits), pure;
- `backends`: whether bubblewrap / a Docker daemon work here (probed once, cached);
- `cgroups`: a pids cgroup for the process limit where an rlimit cannot hold it (root);
- `bwrap`, `docker`: a plan as the argv of each backend;
- `runner`: one agent's sandbox as the exec and file tools use it;
- `explain`: what `clawharness sandbox explain`, `status` and `doctor` say.

This package's own namespace holds only the bind-spec helpers, so the config schema can
check bind specs without importing the rest (which reads the config).
"""

from __future__ import annotations

from clawharness.tools.sandbox.binds import SandboxBindSpec, split_sandbox_bind_spec

__all__ = ["SandboxBindSpec", "split_sandbox_bind_spec"]
