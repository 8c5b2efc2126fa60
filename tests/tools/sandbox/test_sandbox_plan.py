"""What a sandboxed command would see (the plan), and each backend's argv for it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from clawharness.config.schema import ClawConfig
from clawharness.tools.sandbox.bwrap import bwrap_argv, limit_argv
from clawharness.tools.sandbox.docker import docker_argv
from clawharness.tools.sandbox.hostfacts import HostFacts, SystemDir, read_host_facts
from clawharness.tools.sandbox.plan import SandboxPlan, SandboxPlanError, build_plan
from clawharness.tools.sandbox.settings import resolve_sandbox_settings


def make_plan(tmp_path: Path, sandbox: dict[str, Any] | None = None, *,
              workspace: Path | None = None, backend: str = "bwrap",
              env: dict[str, str] | None = None, home: Path | None = None,
              agents: dict[str, Any] | None = None) -> SandboxPlan:
    state = tmp_path / "state"
    workspace = workspace or tmp_path / "workspace"
    for directory in (state, workspace):
        directory.mkdir(parents=True, exist_ok=True)
    raw: dict[str, Any] = {"agents": {"defaults": {"workspace": str(workspace),
                                                   "sandbox": sandbox or {}}}}
    if agents:
        raw["agents"]["entries"] = agents
    config = ClawConfig.model_validate(raw)
    settings = resolve_sandbox_settings(config, "main", state_dir=state)
    facts = read_host_facts(config, state_dir=state,
                            env={"PATH": "/usr/bin:/bin:/root/.local/bin", **(env or {}),
                                 **({"HOME": str(home)} if home else {})},
                            config_path=state / "config.json5")
    real = os.path.realpath(workspace)
    return build_plan(settings, facts, backend=backend,  # type: ignore[arg-type]
                      workspace=real, workdir=real, scope="agent-main",
                      process_limit_by="rlimit")


def targets(plan: SandboxPlan, role: str) -> list[str]:
    return [m.target for m in plan.mounts if m.role == role]


def test_the_workspace_is_bound_at_its_own_path_as_configured(tmp_path: Path) -> None:
    real = os.path.realpath(tmp_path / "workspace")
    for access, kind in (("rw", "bind"), ("ro", "ro-bind")):
        plan = make_plan(tmp_path, {"workspaceAccess": access})
        [mount] = [m for m in plan.mounts if m.role == "workspace"]
        assert (mount.kind, mount.source, mount.target) == (kind, real, real)
    assert "/proc" in targets(make_plan(tmp_path), "private")
    assert {"/tmp", "/var/tmp", "/run"} <= set(targets(make_plan(tmp_path), "private"))


def test_nothing_of_the_host_but_system_dirs_and_the_workspace(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, home=tmp_path / "home")
    sources = {m.source for m in plan.mounts if m.kind in ("bind", "ro-bind")}
    sources.discard("/dev/null")
    allowed = {"/usr", "/etc", "/opt", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
               os.path.realpath(tmp_path / "workspace")}
    assert sources <= allowed, sources - allowed
    assert all(m.kind != "bind" or m.role == "workspace" for m in plan.mounts)
    assert all(m.kind in ("ro-bind", "symlink") for m in plan.mounts if m.role == "system")


def test_the_state_dir_and_other_workspaces_inside_the_workspace_are_masked(
        tmp_path: Path) -> None:
    other = tmp_path / "others-ws"
    other.mkdir()
    (tmp_path / "state").mkdir()
    (tmp_path / "state" / "config.json5").write_text("{}")
    plan = make_plan(tmp_path, workspace=tmp_path, agents={"other": {"workspace": str(other)}})
    masked = targets(plan, "mask")
    assert os.path.realpath(tmp_path / "state") in masked
    assert os.path.realpath(other) in masked
    # the config file lies inside the masked state dir: no mask of its own
    assert os.path.realpath(tmp_path / "state" / "config.json5") not in masked


def test_a_workspace_at_home_masks_the_homes_dot_files(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".gitconfig").write_text("")
    (home / "project").mkdir()
    plan = make_plan(tmp_path, workspace=home, home=home)
    real = os.path.realpath(home)
    assert {f"{real}/.ssh", f"{real}/.gitconfig"} <= set(targets(plan, "mask"))
    assert f"{real}/project" not in targets(plan, "mask")
    kinds = {m.target: m.kind for m in plan.mounts if m.role == "mask"}
    assert kinds[f"{real}/.ssh"] == "mask-dir" and kinds[f"{real}/.gitconfig"] == "mask-file"


def test_a_home_inside_the_workspace_is_masked_whole(tmp_path: Path) -> None:
    home = tmp_path / "workspace" / "home"
    home.mkdir(parents=True)
    plan = make_plan(tmp_path, home=home)
    assert os.path.realpath(home) in targets(plan, "mask")


def test_binds_are_read_only_unless_rw_and_never_show_the_hosts_own_files(
        tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    plan = make_plan(tmp_path, {"binds": [f"{data}:/data", f"{data}:/data-rw:rw"]})
    kinds = {m.target: m.kind for m in plan.mounts if m.role == "bind"}
    assert kinds == {"/data": "ro-bind", "/data-rw": "bind"}
    with pytest.raises(SandboxPlanError, match="would show the state dir"):
        make_plan(tmp_path, {"binds": [f"{tmp_path}:/everything"]})
    with pytest.raises(SandboxPlanError, match="does not exist"):
        make_plan(tmp_path, {"binds": [f"{tmp_path}/missing:/m"]})
    with pytest.raises(SandboxPlanError, match="overlaps the workspace"):
        make_plan(tmp_path, {"binds": [f"{data}:{os.path.realpath(tmp_path / 'workspace')}/d"]})


def test_the_environment_keeps_a_few_names_and_a_path_that_exists_inside(
        tmp_path: Path) -> None:
    plan = make_plan(tmp_path, {"env": {"EXTRA": "1"}},
                     env={"LANG": "de_DE.UTF-8", "LC_ALL": "C", "OPENAI_API_KEY": "sk-x",
                          "SSH_AUTH_SOCK": "/run/agent.sock"})
    assert plan.env["PATH"] == "/usr/bin:/bin"  # ~/.local/bin is not in the sandbox
    assert plan.env["LANG"] == "de_DE.UTF-8" and plan.env["LC_ALL"] == "C"
    assert plan.env["EXTRA"] == "1" and plan.env["HOME"] == "/tmp"
    assert "OPENAI_API_KEY" not in plan.env and "SSH_AUTH_SOCK" not in plan.env
    assert plan.env_from_host == ("LANG", "LC_ALL")


def test_limits_never_exceed_the_hosts_own(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, {"limits": {"openFiles": 1_000_000}})
    import resource
    hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
    expected = 1_000_000 if hard == resource.RLIM_INFINITY else min(1_000_000, hard)
    assert plan.limits.open_files == expected


def test_bwrap_argv_unshares_the_network_unless_allowed(tmp_path: Path) -> None:
    closed = bwrap_argv("bwrap", make_plan(tmp_path), "echo hi")
    assert "--unshare-net" in closed and closed[-3:] == ["bash", "-c", "echo hi"]
    for flag in ("--unshare-user", "--unshare-pid", "--die-with-parent", "--new-session"):
        assert flag in closed
    assert closed[closed.index("--cap-drop") + 1] == "ALL"
    opened = bwrap_argv("bwrap", make_plan(tmp_path, {"network": True}), "echo hi")
    assert "--unshare-net" not in opened
    limits = limit_argv("prlimit", make_plan(tmp_path, {"limits": {"processes": 64}}))
    assert "--nproc=64" in limits and limits[-1] == "--"


def test_docker_argv_has_the_same_walls(tmp_path: Path) -> None:
    plan = make_plan(tmp_path, {"limits": {"processes": 64, "memoryMb": 256}},
                     backend="docker")
    argv = docker_argv("docker", plan, "echo hi", "clawharness-sbx-test")
    joined = " ".join(argv)
    real = os.path.realpath(tmp_path / "workspace")
    assert argv[:3] == ["docker", "run", "--rm"]
    assert "--network none" in joined and "--cap-drop ALL" in joined
    assert "--read-only" in argv and "--pids-limit 64" in joined and "--memory 256m" in joined
    assert f"-v {real}:{real}" in joined and f"-w {real}" in joined
    assert argv[-4:] == ["debian:bookworm-slim", "bash", "-c", "echo hi"]
    assert "-e HOME" in joined and "/usr:/usr" not in joined  # the image is the system
    assert [m.kind for m in plan.mounts if m.role == "system"] == ["image"]
    opened = docker_argv("docker", make_plan(tmp_path, {"network": True}, backend="docker"),
                         "x", "n")
    assert "--network bridge" in " ".join(opened)


def test_facts_describe_system_dirs_as_they_are(tmp_path: Path) -> None:
    facts: HostFacts = read_host_facts(ClawConfig(), state_dir=tmp_path, env={})
    for system in facts.system_dirs:
        if system.link is not None:
            assert os.readlink(system.path) == system.link
        else:
            assert os.path.isdir(system.path) and not os.path.islink(system.path)
    assert SystemDir("/usr") in facts.system_dirs


def test_the_hosts_own_files_are_hidden_under_system_dirs_too(tmp_path: Path) -> None:
    config = ClawConfig.model_validate({"agents": {"defaults": {"workspace": str(tmp_path)}}})
    settings = resolve_sandbox_settings(config, "main", state_dir=tmp_path / "state")
    facts = read_host_facts(config, state_dir=tmp_path / "state", env={},
                            config_path=Path("/etc/hostname"))  # a config kept in /etc
    plan = build_plan(settings, facts, backend="bwrap", workspace=str(tmp_path),
                      workdir=str(tmp_path), scope="agent-main", process_limit_by="rlimit")
    assert "/etc/hostname" in targets(plan, "mask")
