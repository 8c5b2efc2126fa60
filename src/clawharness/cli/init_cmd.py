"""`clawharness init`: write a starter config (and, offline, the scripted model's script).

On a terminal with neither `--provider` nor `--offline` it asks; otherwise the flags say
everything. An existing file is never replaced without `--force`, and then it is first
copied to `<name>.bak-<UTC timestamp>`. What is written is checked (config schema, script
format) before anything touches the disk.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any

import json5
import typer
import yaml
from rich.markup import escape
from rich.prompt import Prompt

from clawharness.cli.common import JsonOption, console, err_console, fail, print_json
from clawharness.cli.init_templates import (
    DEFAULTS,
    PROVIDER_KINDS,
    InitOptionError,
    StarterPlan,
    plan_starter,
    render_config,
    render_script,
)
from clawharness.config.loader import CONFIG_FILENAMES, parse_config, state_dir
from clawharness.errors import ClawHarnessError, ConfigError

__all__ = ["ConfigExistsError", "StarterFiles", "register", "write_starter"]

SCRIPT_NAME = "offline-script.yaml"


class ConfigExistsError(ConfigError):
    """The file `init` would write is there already (and `--force` was not given)."""

    code = "config_exists"


@dataclass(frozen=True, slots=True)
class StarterFiles:
    """What `init` wrote."""

    config: Path
    script: Path | None
    backups: tuple[Path, ...]
    plan: StarterPlan

    def to_json(self, next_steps: list[str]) -> dict[str, Any]:
        return {"config": str(self.config), "script": str(self.script) if self.script else None,
                "backups": [str(b) for b in self.backups], "model": self.plan.model_ref,
                "warnings": list(self.plan.warnings), "next": next_steps}


def _default_target(env: dict[str, str]) -> Path:
    from_env = env.get("CLAWHARNESS_CONFIG")
    return Path(from_env).expanduser() if from_env else state_dir(env) / CONFIG_FILENAMES[0]


def _check_texts(plan: StarterPlan, config_text: str, script_text: str | None,
                 target: Path) -> None:
    """Fail before writing if what would be written does not load (a bug here, not yours)."""
    parse_config(json5.loads(config_text), source=str(target))
    if script_text is not None:
        from clawharness.providers.script import parse_script

        parse_script(yaml.safe_load(script_text), source=str(plan.script_path))


def _write(path: Path, text: str, stamp: str, force: bool) -> Path | None:
    """Write `text` to `path` atomically; returns the backup of what was there."""
    backup: Path | None = None
    if path.exists():
        if not force:  # checked for every file before any is written; this is a race guard
            raise ConfigExistsError("already exists; nothing was written", path=str(path))
        backup = path.with_name(f"{path.name}.bak-{stamp}")
        backup.write_bytes(path.read_bytes())
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.init-tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)
    return backup


def write_starter(plan: StarterPlan, target: Path, *, force: bool = False,
                  now: datetime | None = None) -> StarterFiles:
    """Write the starter config (and script) for `plan`; nothing at all when one exists."""
    config_text = render_config(plan)
    script_text = render_script(plan) if plan.script_path is not None else None
    _check_texts(plan, config_text, script_text, target)
    paths = [target] + ([plan.script_path] if plan.script_path is not None else [])
    existing = [p for p in paths if p.exists()]
    if existing and not force:
        several = len(existing) > 1
        raise ConfigExistsError(
            f"{' and '.join(str(p) for p in existing)} already exist{'' if several else 's'}; "
            f"nothing was written. Pass --force to replace {'them' if several else 'it'} "
            "(each old file is kept as <name>.bak-<time>), or --config PATH to write elsewhere")
    for path in paths:
        if path.is_dir():
            raise ConfigExistsError("is a directory; nothing was written", path=str(path))
    stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%S%fZ")
    backups: list[Path] = []
    if script_text is not None and plan.script_path is not None:
        # the script first: a config never points at a script that is not there
        saved = _write(plan.script_path, script_text, stamp, force)
        backups += [saved] if saved else []
    saved = _write(target, config_text, stamp, force)
    backups += [saved] if saved else []
    return StarterFiles(target, plan.script_path, tuple(backups), plan)


# --- asking ------------------------------------------------------------------------------


def _ask_plan(script_path: Path) -> StarterPlan:
    """Ask for the provider and its details on the terminal (defaults in brackets)."""
    console.print("[bold]clawharness init[/]: a starter config. Press Enter for the default.")
    kinds = [*PROVIDER_KINDS, "offline"]
    kind = Prompt.ask("Model provider", choices=kinds, default="offline", console=console)
    if kind == "offline":
        return plan_starter("scripted", script_path=script_path)
    defaults = DEFAULTS[kind]
    base_url = provider_id = api = None
    if kind == "openai-compatible":
        base_url = Prompt.ask("Base URL (e.g. http://127.0.0.1:8000/v1)", console=console)
        provider_id = Prompt.ask("Provider id (the part before / in model refs)",
                                 default=defaults.provider_id, console=console)
        api = Prompt.ask("API", choices=["openai-completions", "openai-responses",
                                         "anthropic-messages"],
                         default="openai-completions", console=console)
    elif kind == "ollama":
        base_url = Prompt.ask("Ollama URL", default=defaults.base_url, console=console)
    if defaults.model_id is not None:
        model_id = Prompt.ask("Model id", default=defaults.model_id, console=console)
    else:
        model_id = Prompt.ask("Model id (as the server names it)", console=console)
    env_name: str | None = None
    no_key = False
    if kind != "ollama":
        suggested = defaults.api_key_env or f"{(provider_id or 'local').upper().replace('-', '_')}_API_KEY"
        hint = " (the variable's name, not the key; '-' for none)" if kind == "openai-compatible" \
            else " (the variable's name, not the key)"
        env_name = Prompt.ask(f"Environment variable holding the API key{hint}",
                              default=suggested, console=console)
        if env_name.strip() == "-":
            env_name, no_key = None, True
    return plan_starter(kind, model_id=model_id, base_url=base_url, api=api,
                        api_key_env=env_name, no_api_key=no_key, provider_id=provider_id)


def _next_steps(files: StarterFiles, target_is_default: bool) -> list[str]:
    flag = "" if target_is_default else f" --config {files.config}"
    steps: list[str] = []
    if files.plan.api_key_env:
        steps.append(f"export {files.plan.api_key_env}=...   # your key; the config only names it")
    if files.plan.kind == "ollama":
        steps.append(f"ollama pull {files.plan.model_id}")
    steps.append(f"clawharness config validate{flag}")
    steps.append(f"clawharness chat{flag}")
    return steps


def register(app: typer.Typer) -> None:
    @app.command("init")
    def init(
        config: Annotated[str | None, typer.Option(
            "--config", "-c",
            help="Where to write (else CLAWHARNESS_CONFIG, else <state dir>/config.json5).")] = None,
        provider: Annotated[str | None, typer.Option(
            "--provider", "-p",
            help="openai, anthropic, ollama or openai-compatible.")] = None,
        offline: Annotated[bool, typer.Option(
            "--offline", "--scripted",
            help="A scripted model that runs offline, with its script beside the config.")] = False,
        model: Annotated[str | None, typer.Option(
            "--model", "-m", help="Model id at the provider, e.g. gpt-5.5 or qwen3.")] = None,
        base_url: Annotated[str | None, typer.Option(
            "--base-url", help="The server's URL (ollama, openai-compatible), e.g. "
                               "http://127.0.0.1:8000/v1.")] = None,
        api: Annotated[str | None, typer.Option(
            "--api", help="openai-compatible only: openai-completions (default), "
                          "openai-responses or anthropic-messages.")] = None,
        provider_id: Annotated[str | None, typer.Option(
            "--provider-id", help="openai-compatible only: the provider's id (default local).")] = None,
        api_key_env: Annotated[str | None, typer.Option(
            "--api-key-env", help="The NAME of the environment variable holding the key.")] = None,
        no_api_key: Annotated[bool, typer.Option(
            "--no-api-key", help="Send no API key (a local server that wants none).")] = False,
        script: Annotated[Path | None, typer.Option(
            "--script", help=f"--offline: where to write the script (default: {SCRIPT_NAME} "
                             "beside the config).")] = None,
        force: Annotated[bool, typer.Option(
            "--force", help="Replace existing files (each is backed up first).")] = False,
        as_json: JsonOption = False,
    ) -> None:
        """Write a starter config: a real provider (key read from the environment) or offline."""
        env = dict(os.environ)
        target = Path(config).expanduser() if config else _default_target(env)
        target = target.resolve()
        script_path = (script.expanduser() if script else target.with_name(SCRIPT_NAME)).resolve()
        try:
            if offline and provider is not None:
                raise InitOptionError("pass either --provider or --offline, not both")
            if offline:
                plan = plan_starter("scripted", script_path=script_path)
            elif provider is not None:
                plan = plan_starter(provider, model_id=model, base_url=base_url, api=api,
                                    api_key_env=api_key_env, no_api_key=no_api_key,
                                    provider_id=provider_id)
            elif sys.stdin.isatty() and not as_json:
                plan = _ask_plan(script_path)
            else:
                raise InitOptionError(
                    "say which model to configure: --provider openai|anthropic|ollama|"
                    "openai-compatible, or --offline for the scripted model (no terminal "
                    "to ask on); nothing was written")
            files = write_starter(plan, target, force=force)
        except ClawHarnessError as exc:
            raise fail(exc, as_json=as_json, code=2 if isinstance(exc, InitOptionError) else 1) \
                from None
        except OSError as exc:
            raise fail(ConfigError(f"cannot write: {exc.strerror or exc}",
                                   path=exc.filename or str(target)), as_json=as_json) from None
        default = config is None  # found again by every command without --config
        steps = _next_steps(files, default)
        if as_json:
            print_json(files.to_json(steps))
            return
        console.print(f"[green]wrote[/] {escape(str(files.config))} "
                      f"[dim]({escape(DEFAULTS[plan.kind].title)}, model {escape(plan.model_ref)})[/]",
                      highlight=False)
        if files.script is not None:
            console.print(f"[green]wrote[/] {escape(str(files.script))} "
                          "[dim](the offline model's script)[/]", highlight=False)
        for backup in files.backups:
            console.print(f"[dim]kept the old file as {escape(str(backup))}[/]", highlight=False)
        for warning in plan.warnings:
            err_console.print(f"[yellow]warning[/]: {escape(warning)}", highlight=False)
        for name in CONFIG_FILENAMES:
            other = target.with_name(name)
            if default and other != target and other.exists():
                err_console.print(f"[yellow]note[/]: {escape(str(other))} is there too; "
                                  f"{escape(target.name)} is read first", highlight=False)
        console.print("[bold]next[/]:")
        for step in steps:
            console.print(f"  {escape(step)}", highlight=False, soft_wrap=True)
