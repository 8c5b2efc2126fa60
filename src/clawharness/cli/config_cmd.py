"""`clawharness config validate | get | set`."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.markup import escape

from clawharness.cli.common import (
    ConfigOption,
    ErrorReport,
    JsonOption,
    console,
    err_console,
    fail,
    print_json,
)
from clawharness.config.editing import (
    ConfigEditRefused,
    describe_value_for_cli,
    edit_config,
    parse_value_argument,
    read_key,
)
from clawharness.config.keypaths import MISSING
from clawharness.config.loader import resolve_config_path, state_dir, validate_config
from clawharness.config.schema import ClawConfig
from clawharness.config.source import read_config_file
from clawharness.errors import ConfigError
from clawharness.problems import ConfigProblem

__all__ = ["register"]

KeyPathArgument = Annotated[str, typer.Argument(
    metavar="KEYPATH", help='A key path, e.g. gateway.port or agents.defaults.models["openai/gpt-5"].')]
RevealOption = Annotated[bool, typer.Option("--reveal", help="Print secret values too.")]
UnsetOption = Annotated[bool, typer.Option("--unset", help="Remove the key instead of setting it.")]
ValueArgument = Annotated[str | None, typer.Argument(
    metavar="VALUE", help="JSON5 (8080, true, [\"exec\"], {id: \"codex\"}), else a plain string.")]


def _print_problems(problems: Sequence[ConfigProblem], source: str | None) -> None:
    colors = {"error": "red", "warning": "yellow"}
    for problem in problems:
        where = source or ""
        if problem.line is not None:
            where += f":{problem.line}"
        head = f"[{colors[problem.severity]}]{problem.severity}[/]"
        key = escape(problem.key_path or "(top level)")
        err_console.print(f"{head} [dim]{escape(where)}[/] [bold]{key}[/]", highlight=False, soft_wrap=True)
        err_console.print(f"  {escape(problem.message)}", highlight=False, soft_wrap=True)
        if problem.hint:
            err_console.print(f"  [cyan]hint[/]: {escape(problem.hint)}", highlight=False, soft_wrap=True)


def _provider_problems(config: ClawConfig | None) -> list[ConfigProblem]:
    """Default and agent models whose provider is not configured. Plugins are loaded only
    when a ref names a provider neither the config nor the host knows (a plugin may
    provide it)."""
    if config is None:
        return []
    from clawharness.models import unknown_provider_problems

    problems = unknown_provider_problems(config)
    if problems:
        from clawharness.plugins.loader import load_plugins

        loaded = load_plugins(config, state_dir=state_dir())
        problems = unknown_provider_problems(config, loaded.registrations.providers)
    return problems


def _count(problems: Sequence[ConfigProblem], word: str) -> str:
    return f"{len(problems)} {word}{'' if len(problems) == 1 else 's'}"


def _validate(config: str | None, as_json: bool) -> None:
    path = resolve_config_path(config)
    if path is None:
        if as_json:
            print_json({"ok": True, "path": None, "problems": [], "warnings": []})
        else:
            console.print("[green]valid[/] (no config file: defaults)", highlight=False, soft_wrap=True)
        return
    try:
        decoded = read_config_file(path)
    except ConfigError as exc:
        raise fail(exc, as_json=as_json) from None
    report = validate_config(decoded.raw, source=str(path), scan=decoded.scan, env=os.environ)
    errors, warnings = list(report.errors), list(report.warnings)
    for problem in _provider_problems(report.config):
        line = decoded.scan.line_of(problem.path)
        (errors if problem.severity == "error" else warnings).append(problem.at_line(line))
    if as_json:
        body = {"ok": not errors, "path": str(path),
                "problems": [p.as_json() for p in errors],
                "warnings": [p.as_json() for p in warnings]}
        if errors:
            raise fail(_invalid_report(errors, path), as_json=True, extra=body)
        print_json(body)
    else:
        _print_problems([*errors, *warnings], str(path))
        if errors:
            raise fail(_invalid_report(errors, path), as_json=False)
        else:
            console.print(f"[green]valid[/] {escape(str(path))}"
                          + (f" ({_count(warnings, 'warning')})" if warnings else ""),
                          highlight=False, soft_wrap=True)
    if errors:
        raise typer.Exit(1)


def _invalid_report(problems: Sequence[ConfigProblem], path: Path,
                    refused: str | None = None) -> ErrorReport:
    """The CLI-wide error envelope for a config with errors; the list rides beside it."""
    first = problems[0] if problems else None
    head = f"{path}: {_count(problems, 'error')}"
    if first is not None:
        head += f"; first: {first.key_path or '(top level)'}: {first.message}"
    if refused is not None:
        head = f"{refused} was not changed ({path} is as it was); {head}"
    details: dict[str, Any] = {"file": str(path)}
    if first is not None and first.key_path:
        details["keyPath"] = first.key_path
    return ErrorReport("config_invalid", head, details)


def _written_config(path: Path) -> ClawConfig | None:
    try:
        return validate_config(read_config_file(path).raw).config
    except ConfigError:
        return None


def _target(config: str | None) -> Path:
    """The file `config set` edits: the one in use, else a new one in the state dir."""
    return resolve_config_path(config) or state_dir() / "config.json5"


def register(app: typer.Typer) -> None:
    group = typer.Typer(help="Inspect, check and edit the config file.", no_args_is_help=True)

    @group.command("validate")
    def validate(config: ConfigOption = None, as_json: JsonOption = False) -> None:
        """Check the config file and list every problem: exit 1 on any error (warnings only warn)."""
        _validate(config, as_json)

    @group.command("get")
    def get(key_path: KeyPathArgument, config: ConfigOption = None, reveal: RevealOption = False,
            as_json: JsonOption = False) -> None:
        """Print the value at KEYPATH (the file's, else the default). Secrets are redacted."""
        try:
            found = read_key(resolve_config_path(config), key_path, reveal=reveal)
        except ConfigError as exc:
            raise fail(exc, as_json=as_json) from None
        if as_json:
            print_json({"keyPath": found.key_path, "value": found.value, "source": found.source})
            return
        console.print(escape(describe_value_for_cli(found.value)), highlight=False, soft_wrap=True)
        if found.source == "default":
            err_console.print(f"[dim]({escape(found.key_path)} is not set in the file: "
                              "this is the default)[/]", highlight=False, soft_wrap=True)

    @group.command("set")
    def set_(key_path: KeyPathArgument, value: ValueArgument = None,
             config: ConfigOption = None, unset: UnsetOption = False,
             as_json: JsonOption = False) -> None:
        """Set KEYPATH to VALUE (or --unset it); the whole file is validated before writing."""
        target = _target(config)
        try:
            if unset == (value is not None):
                raise ConfigError("give a VALUE, or --unset without one",
                                  hint="e.g. clawharness config set gateway.port 8080")
            parsed: Any = MISSING if unset else parse_value_argument(value or "")
            outcome = edit_config(target, key_path, parsed)
        except ConfigEditRefused as exc:
            if as_json:
                raise fail(_invalid_report(exc.problems, target, refused=key_path), as_json=True,
                           extra={"ok": False, "path": str(target), "written": False,
                                  "problems": [p.as_json() for p in exc.problems],
                                  "warnings": []}) from None
            else:
                _print_problems(exc.problems, str(target))
                raise fail(_invalid_report(exc.problems, target, refused=key_path),
                           as_json=False) from None
        except ConfigError as exc:
            raise fail(exc, as_json=as_json) from None
        # a model whose provider is not configured is written, and said at once
        extra = [p for p in _provider_problems(_written_config(outcome.path))
                 if outcome.changed]
        outcome = replace(outcome, warnings=(*outcome.warnings, *extra))
        if as_json:
            print_json({"ok": True, "path": str(outcome.path), "keyPath": outcome.key_path,
                        "value": outcome.value, "unset": outcome.unset,
                        "written": outcome.changed,
                        "backup": str(outcome.backup) if outcome.backup else None,
                        "keptLayout": outcome.kept_layout,
                        "warnings": [p.as_json() for p in outcome.warnings]})
            return
        _print_problems(outcome.warnings, str(outcome.path))
        if not outcome.changed:
            what = "was not set" if outcome.unset else "already has that value"
            console.print(f"{escape(outcome.key_path)} {what}: nothing written", highlight=False, soft_wrap=True)
            return
        done = ("unset " + outcome.key_path if outcome.unset else
                f"set {outcome.key_path} = {describe_value_for_cli(outcome.value)}")
        backup = f" (backup: {outcome.backup})" if outcome.backup else ""
        if not outcome.kept_layout:
            backup += "; the file was written anew as JSON, its comments are in the backup"
        console.print(f"[green]{escape(done)}[/] in {escape(str(outcome.path))}{escape(backup)}",
                      highlight=False, soft_wrap=True)

    app.add_typer(group, name="config")
