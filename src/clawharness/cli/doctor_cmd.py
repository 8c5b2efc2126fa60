"""`clawharness doctor [--fix]`: find and repair legacy or broken runtime config."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from clawharness.cli.common import ConfigOption, JsonOption, console, fail, new_table, print_json
from clawharness.config.loader import resolve_config_path, state_dir, validate_config
from clawharness.config.schema import ClawConfig
from clawharness.config.source import read_config_file
from clawharness.doctor import (
    Finding,
    apply_fixes,
    check_store,
    diagnose,
    findings_to_json,
    write_fixed_config,
)
from clawharness.errors import ClawHarnessError, ConfigError
from clawharness.harness.registry import HarnessRegistry
from clawharness.models import unknown_provider_problems
from clawharness.plugins.diagnostics import plugin_findings
from clawharness.plugins.loader import load_plugins

__all__ = ["DoctorOutcome", "register", "run_doctor"]

FixOption = Annotated[bool, typer.Option("--fix", help="Repair what is safe (backup first).")]


@dataclass(frozen=True, slots=True)
class DoctorOutcome:
    findings: list[Finding]
    fixed: bool
    backup: Path | None
    path: Path | None
    #: the findings `--fix` repaired
    applied: tuple[Finding, ...] = ()

    def to_json(self) -> dict[str, Any]:
        out = findings_to_json(self.findings, fixed=self.fixed,
                               backup=str(self.backup) if self.backup else None)
        out["applied"] = [f.as_dict() for f in self.applied]
        return out


def _plugins(config: ClawConfig | None) -> tuple[HarnessRegistry, dict[str, str], list[Finding]]:
    """The registry the config's plugins build, every plugin left off (id -> why), and
    what is wrong with the plugins (one that failed to import is an error)."""
    if config is None:
        return HarnessRegistry(), {}, []
    result = load_plugins(config, state_dir=state_dir())
    off = {p.plugin_id: p.reason for p in result.skipped if p.plugin_id}
    off.update({p.plugin_id: p.reason for p in result.failed if p.plugin_id})
    findings = [Finding(f.code, f.severity, f.where, f.message)
                for f in plugin_findings(result, config.plugins)]
    findings += [Finding(p.code, p.severity, p.key_path, f"{p.message}; {p.hint}")
                 for p in unknown_provider_problems(config, result.registrations.providers)]
    return result.registry, off, findings


def _sandbox(config: ClawConfig | None, path: Path | None) -> list[Finding]:
    """Where exec would run: refused (a required sandbox that cannot work here), or on
    the host with no sandbox (said once)."""
    if config is None:
        return []
    from clawharness.sessions.agents import known_agent_ids
    from clawharness.tools.sandbox import SandboxService, sandbox_findings

    service = SandboxService(config, state_dir=state_dir(), store_url=config.store.url,
                             config_path=path)
    return [Finding(f.code, "error" if f.severity == "error" else "warning", f.path,
                    f.message) for f in sandbox_findings(service, known_agent_ids(config))]


def _store(config: ClawConfig | None) -> list[Finding]:
    """The session store the host would open: corrupt, unreadable or unreachable (never
    changed here; `--fix` leaves a damaged store as it is and says what to do)."""
    url = (config.store.url if config is not None else None) or str(state_dir() / "clawharness.db")
    return check_store(url)


def run_doctor(config_path: str | None, *, fix: bool) -> DoctorOutcome:
    """Diagnose (and with `fix`, repair and re-diagnose) one config file."""
    path = resolve_config_path(config_path)
    raw: dict[str, Any] = {}
    if path is not None:
        decoded = read_config_file(path)
        if not isinstance(decoded.raw, dict):
            raise ConfigError("expected an object at the top level", path=str(path))
        raw = decoded.raw
    config = validate_config(raw).config
    registry, off, plugin_problems = _plugins(config)
    store = _store(config)
    findings = (diagnose(raw, registry, plugins_off=off) + plugin_problems
                + _sandbox(config, path) + store)
    if not fix or not any(f.fixable for f in findings):
        return DoctorOutcome(findings, False, None, path)
    if path is None:
        raise ConfigError("no config file to fix; pass --config")
    written = write_fixed_config(path, apply_fixes(raw, findings))
    # the repair may have turned a plugin on (a legacy codex ref): load plugins again
    registry, off, plugin_problems = _plugins(written.loaded.config)
    remaining = (diagnose(written.loaded.raw, registry, plugins_off=off) + plugin_problems
                 + _sandbox(written.loaded.config, path) + store)
    applied = tuple(f for f in findings if f.fixable)
    return DoctorOutcome(remaining, True, written.backup, path, applied)


def _render(outcome: DoctorOutcome) -> None:
    if outcome.fixed:
        console.print(f"[green]fixed[/] {outcome.path} (backup: {outcome.backup})",
                      highlight=False)
        for finding in outcome.applied:
            console.print(f"  [green]fixed[/] {escape(finding.path)}: {escape(finding.message)}",
                          highlight=False)
    if not outcome.findings:
        console.print("[green]no problems found[/]")
        return
    table = new_table("Severity", "Code", "Where", "Problem", "Fix", title="doctor findings")
    colors = {"error": "red", "warning": "yellow", "info": "blue"}
    for f in outcome.findings:
        table.add_row(f"[{colors[f.severity]}]{f.severity}[/]", f.code, f.path, f.message,
                      "--fix" if f.fixable else "manual")
    console.print(table)


def register(app: typer.Typer) -> None:
    @app.command("doctor")
    def doctor(config: ConfigOption = None, fix: FixOption = False,
               as_json: JsonOption = False) -> None:
        """Report legacy refs, ignored whole-agent runtimes, unknown runtimes, plugins that
        failed to load; --fix repairs what is safe."""
        try:
            outcome = run_doctor(config, fix=fix)
        except ClawHarnessError as exc:
            raise fail(exc, as_json=as_json) from None
        if as_json:
            print_json(outcome.to_json())
        else:
            _render(outcome)
        if any(f.severity == "error" for f in outcome.findings):
            raise typer.Exit(1)
