"""`clawharness doctor [--fix]`: find and repair legacy or broken runtime config."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import json5
import typer

from clawharness.cli.common import ConfigOption, JsonOption, console, fail, new_table, print_json
from clawharness.config.doctor import (
    Finding,
    apply_fixes,
    diagnose,
    findings_to_json,
    write_fixed_config,
)
from clawharness.config.loader import parse_config, resolve_config_path, state_dir
from clawharness.errors import ClawHarnessError, ConfigError
from clawharness.harness.registry import HarnessRegistry
from clawharness.plugins.loader import load_plugins

__all__ = ["DoctorOutcome", "register", "run_doctor"]

FixOption = Annotated[bool, typer.Option("--fix", help="Repair what is safe (backup first).")]


@dataclass(frozen=True, slots=True)
class DoctorOutcome:
    findings: list[Finding]
    fixed: bool
    backup: Path | None
    path: Path | None

    def to_json(self) -> dict[str, Any]:
        return findings_to_json(self.findings, fixed=self.fixed,
                                backup=str(self.backup) if self.backup else None)


def _read_raw(path: Path | None) -> dict[str, Any]:
    if path is None:
        return {}
    if not path.exists():
        raise ConfigError("config file not found", path=str(path))
    text = path.read_text(encoding="utf-8")
    try:
        raw = json5.loads(text) if text.strip() else {}
    except ValueError as exc:
        raise ConfigError(f"malformed JSON5: {exc}", path=str(path)) from None
    if not isinstance(raw, dict):
        raise ConfigError("expected an object at the top level", path=str(path))
    return raw


def run_doctor(config_path: str | None, *, fix: bool) -> DoctorOutcome:
    """Diagnose (and with `fix`, repair and re-diagnose) one config file."""
    path = resolve_config_path(config_path)
    raw = _read_raw(path)
    try:
        config, _ = parse_config(raw, source=str(path or "<config>"))
        registry = load_plugins(config, state_dir=state_dir()).registry
    except ConfigError:
        registry = HarnessRegistry()
    findings = diagnose(raw, registry)
    if not fix or not any(f.fixable for f in findings):
        return DoctorOutcome(findings, False, None, path)
    if path is None:
        raise ConfigError("no config file to fix; pass --config")
    written = write_fixed_config(path, apply_fixes(raw, findings))
    remaining = diagnose(written.loaded.raw, registry)
    return DoctorOutcome(remaining, True, written.backup, path)


def _render(outcome: DoctorOutcome) -> None:
    if outcome.fixed:
        console.print(f"[green]fixed[/] {outcome.path} (backup: {outcome.backup})",
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
        """Report legacy refs, ignored whole-agent runtimes, unknown runtimes; --fix repairs."""
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
