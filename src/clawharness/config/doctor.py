"""`clawharness doctor`: find legacy or broken runtime config, and repair what is safe.

`diagnose` and `apply_fixes` are pure and work on the raw decoded config (a dict), so
keys this host does not know survive a repair untouched. `write_fixed_config` is the
only function that touches the disk: it validates, writes a timestamped backup, writes
the new file (JSON, 2-space indent) and loads it back.

Findings (code: what, fix):

- `legacy-model-ref`: a `codex/*`, `openai-codex/*` or `codex-cli/*` model ref anywhere a
  model ref appears -> `openai/<model>`; a `codex/*` ref also gets a model-scoped
  `agentRuntime: {id: "codex"}` (unless that model already has a policy), because such
  refs meant "run on the Codex harness".
- `legacy-agent-runtime`: whole-agent `agentRuntime` (ignored by selection) -> removed.
- `plaintext-official-endpoint`: `http://api.openai.com` -> `https://`.
- `unknown-runtime`: an `agentRuntime.id` no installed plugin registers (turns fail
  closed); not auto-fixable.
- `stale-session-pin`: a session pinned to an unregistered harness; the host clears it
  in the session store (reported, not a config edit).
- `config-invalid`: the file does not validate; nothing else is repaired.
"""

from __future__ import annotations

import copy
import json
import os
import shutil
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal
from urllib.parse import urlsplit

from clawharness.config.loader import LoadedConfig, load_config, parse_config
from clawharness.errors import ConfigError
from clawharness.harness.registry import HarnessRegistry
from clawharness.harness.runtime_ids import normalize_optional_runtime_id
from clawharness.harness.selection import DEFAULT_CLI_RUNTIME_ALIASES
from clawharness.harness.status import SessionPin
from clawharness.models.refs import LEGACY_CODEX_PROVIDERS

__all__ = [
    "DOCTOR_JSON_VERSION",
    "Finding",
    "FixWriteResult",
    "apply_fixes",
    "diagnose",
    "findings_to_json",
    "write_fixed_config",
]

DOCTOR_JSON_VERSION = 1
Severity = Literal["error", "warning", "info"]
KeyPath = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem. `fix.ops` are the config edits `apply_fixes` performs."""

    code: str
    severity: Severity
    path: str
    message: str
    fixable: bool = False
    fix: Mapping[str, Any] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {"code": self.code, "severity": self.severity, "path": self.path,
                "message": self.message, "fixable": self.fixable,
                "fix": dict(self.fix) if self.fix is not None else None}


def findings_to_json(findings: Iterable[Finding], *, fixed: bool = False,
                     backup: str | None = None) -> dict[str, Any]:
    """The stable `doctor --json` shape (docs/status-and-doctor.md)."""
    items = [f.as_dict() for f in findings]
    return {
        "version": DOCTOR_JSON_VERSION,
        "ok": not any(f["severity"] == "error" for f in items),
        "fixed": fixed,
        "backup": backup,
        "findings": items,
    }


def _dotted(path: KeyPath) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        elif "/" in part or "." in part or " " in part:
            out += f'["{part}"]'
        else:
            out += f".{part}" if out else part
    return out


def _legacy(ref: object) -> tuple[str, str] | None:
    """(legacy provider, repaired ref) for a legacy Codex ref, else None."""
    if not isinstance(ref, str):
        return None
    provider, sep, model = ref.strip().partition("/")
    if sep and model.strip() and provider.strip().lower() in LEGACY_CODEX_PROVIDERS:
        return provider.strip().lower(), f"openai/{model.strip()}"
    return None


def _runtime_op(models_path: KeyPath, repaired: str) -> dict[str, Any]:
    return {"op": "set_if_absent", "path": [*models_path, repaired, "agentRuntime"],
            "value": {"id": "codex"}}


def _scan_model_refs(scope: Mapping[str, Any], prefix: KeyPath) -> list[Finding]:
    findings: list[Finding] = []
    models_path: KeyPath = (*prefix, "models")
    model = scope.get("model")
    ref_slots: list[tuple[KeyPath, Any]] = []
    if isinstance(model, str):
        ref_slots.append(((*prefix, "model"), model))
    elif isinstance(model, Mapping):
        ref_slots.append(((*prefix, "model", "primary"), model.get("primary")))
        fallbacks = model.get("fallbacks")
        if isinstance(fallbacks, list):
            ref_slots.extend(((*prefix, "model", "fallbacks", i), v) for i, v in enumerate(fallbacks))
    # renames first, so a slot's runtime default sees the renamed entry
    models = scope.get("models")
    if isinstance(models, Mapping):
        for key in list(models):
            legacy = _legacy(key)
            if legacy is None:
                continue
            provider, repaired = legacy
            path = (*models_path, key)
            if repaired in models:
                findings.append(Finding(
                    "legacy-model-ref", "warning", _dotted(path),
                    f"legacy model ref {key!r} duplicates {repaired!r}; merge them by hand"))
                continue
            ops: list[dict[str, Any]] = [
                {"op": "rename_key", "path": list(models_path), "from": key, "to": repaired}]
            if provider == "codex":
                ops.append(_runtime_op(models_path, repaired))
            findings.append(Finding(
                "legacy-model-ref", "warning", _dotted(path),
                f"legacy model ref {key!r}: write it as {repaired!r}", fixable=True,
                fix={"ops": ops}))
    for path, value in ref_slots:
        legacy = _legacy(value)
        if legacy is None:
            continue
        provider, repaired = legacy
        ops = [{"op": "replace", "path": list(path), "value": repaired}]
        if provider == "codex":
            ops.append(_runtime_op(models_path, repaired))
        findings.append(Finding(
            "legacy-model-ref", "warning", _dotted(path),
            f"legacy model ref {value!r}: write it as {repaired!r}"
            + (" with a model-scoped agentRuntime codex" if provider == "codex" else ""),
            fixable=True, fix={"ops": ops}))
    runtime = scope.get("agentRuntime")
    if runtime is not None:
        path = (*prefix, "agentRuntime")
        findings.append(Finding(
            "legacy-agent-runtime", "warning", _dotted(path),
            "whole-agent agentRuntime is legacy and ignored by runtime selection; put the "
            "runtime on a provider or model entry instead", fixable=True,
            fix={"ops": [{"op": "delete", "path": list(path)}]}))
    return findings


def _configured_runtimes(raw: Mapping[str, Any]) -> list[tuple[KeyPath, str, str | None]]:
    """(path, runtime id, provider) for every provider/model-scoped `agentRuntime.id`."""
    found: list[tuple[KeyPath, str, str | None]] = []

    def take(path: KeyPath, node: object, provider: str | None) -> None:
        if isinstance(node, Mapping) and isinstance(node.get("id"), str):
            found.append(((*path, "id"), node["id"], provider))

    providers = _get(raw, ("models", "providers"))
    if isinstance(providers, Mapping):
        for pid, pconf in providers.items():
            if not isinstance(pconf, Mapping):
                continue
            take(("models", "providers", pid, "agentRuntime"), pconf.get("agentRuntime"), pid)
            rows = pconf.get("models")
            if isinstance(rows, list):
                for i, row in enumerate(rows):
                    if isinstance(row, Mapping):
                        take(("models", "providers", pid, "models", i, "agentRuntime"),
                             row.get("agentRuntime"), pid)
    scopes: list[tuple[KeyPath, object]] = [(("agents", "defaults"), _get(raw, ("agents", "defaults")))]
    entries = _get(raw, ("agents", "entries"))
    if isinstance(entries, Mapping):
        scopes.extend((("agents", "entries", k), v) for k, v in entries.items())
    for prefix, scope in scopes:
        models = scope.get("models") if isinstance(scope, Mapping) else None
        if isinstance(models, Mapping):
            for key, entry in models.items():
                if isinstance(entry, Mapping):
                    head, sep, _ = str(key).partition("/")
                    take((*prefix, "models", key, "agentRuntime"), entry.get("agentRuntime"),
                         head.lower() if sep else None)
    return found


def _get(raw: Any, path: KeyPath) -> Any:
    node = raw
    for part in path:
        if isinstance(part, int):
            if not isinstance(node, list) or part >= len(node):
                return None
            node = node[part]
        else:
            if not isinstance(node, Mapping):
                return None
            node = node.get(part)
    return node


def diagnose(
    raw_config: Mapping[str, Any],
    registry: HarnessRegistry | None = None,
    sessions: Iterable[SessionPin] = (),
    *,
    cli_runtime_aliases: Mapping[str, Collection[str]] = DEFAULT_CLI_RUNTIME_ALIASES,
) -> list[Finding]:
    """Every finding for this raw config, registry and set of session pins."""
    registry = registry if registry is not None else HarnessRegistry()
    findings: list[Finding] = []
    try:
        parse_config(dict(raw_config))
    except ConfigError as exc:
        findings.append(Finding("config-invalid", "error", exc.key_path or "", str(exc)))
    defaults = _get(raw_config, ("agents", "defaults"))
    if isinstance(defaults, Mapping):
        findings.extend(_scan_model_refs(defaults, ("agents", "defaults")))
    entries = _get(raw_config, ("agents", "entries"))
    if isinstance(entries, Mapping):
        for agent_id, entry in entries.items():
            if isinstance(entry, Mapping):
                findings.extend(_scan_model_refs(entry, ("agents", "entries", agent_id)))
    base_url = _get(raw_config, ("models", "providers", "openai", "baseUrl"))
    if isinstance(base_url, str) and base_url.strip().lower().startswith("http://"):
        try:
            host = (urlsplit(base_url.strip()).hostname or "").lower()
        except ValueError:
            host = ""
        if host in ("api.openai.com", "chatgpt.com"):
            path: KeyPath = ("models", "providers", "openai", "baseUrl")
            fixed = "https://" + base_url.strip()[len("http://"):]
            findings.append(Finding(
                "plaintext-official-endpoint", "error", _dotted(path),
                f"the official OpenAI endpoint over plaintext HTTP is rejected; use {fixed!r}",
                fixable=True, fix={"ops": [{"op": "replace", "path": list(path), "value": fixed}]}))
    for path, runtime_id, provider in _configured_runtimes(raw_config):
        runtime = normalize_optional_runtime_id(runtime_id)
        if runtime is None or runtime in ("auto", "openclaw") or runtime in registry:
            continue
        aliases = cli_runtime_aliases.get(runtime)
        if aliases is not None and (provider is None or provider in aliases):
            continue
        findings.append(Finding(
            "unknown-runtime", "error", _dotted(path),
            f'runtime "{runtime}" is not registered by any installed plugin; turns on this '
            "route fail instead of falling back. Install/enable the plugin or change the runtime"))
    for pin in sessions:
        pinned = normalize_optional_runtime_id(pin.agent_harness_id)
        if pinned is None or pinned in ("auto", "openclaw") or pinned in registry:
            continue
        findings.append(Finding(
            "stale-session-pin", "warning", f"sessions[{pin.session_key}]",
            f'session {pin.session_key} is pinned to harness "{pinned}", which is not '
            "registered; clear the pin (or /reset) to pick up the current config",
            fix={"ops": [{"op": "clear_session_pin", "sessionKey": pin.session_key}]}))
    return findings


def _apply_op(root: dict[str, Any], op: Mapping[str, Any]) -> None:
    path = list(op.get("path") or [])
    kind = op.get("op")
    if kind == "rename_key":
        mapping = _get(root, tuple(path))
        if isinstance(mapping, dict) and op["from"] in mapping and op["to"] not in mapping:
            # keep the entry's position so the file diff stays small
            items = [(op["to"] if k == op["from"] else k, v) for k, v in mapping.items()]
            mapping.clear()
            mapping.update(items)
        return
    if not path:
        return
    parent_path, last = tuple(path[:-1]), path[-1]
    if kind == "set_if_absent":
        node: Any = root
        for part in parent_path:
            child = node.get(part) if isinstance(node, dict) else None
            if not isinstance(child, dict):
                if not isinstance(node, dict):
                    return
                child = {}
                node[part] = child
            node = child
        if isinstance(node, dict) and last not in node:
            node[last] = copy.deepcopy(op["value"])
        return
    parent = _get(root, parent_path)
    if kind == "replace":
        if isinstance(parent, dict) or (isinstance(parent, list) and isinstance(last, int)):
            parent[last] = op["value"]
    elif kind == "delete" and isinstance(parent, dict):
        parent.pop(last, None)


def apply_fixes(raw: Mapping[str, Any], findings: Iterable[Finding]) -> dict[str, Any]:
    """A repaired deep copy of `raw`; `raw` itself is not modified."""
    fixed = copy.deepcopy(dict(raw))
    for finding in findings:
        if not finding.fixable or finding.fix is None:
            continue
        for op in finding.fix.get("ops", ()):
            _apply_op(fixed, op)
    return fixed


@dataclass(frozen=True, slots=True)
class FixWriteResult:
    path: Path
    backup: Path | None
    loaded: LoadedConfig = field(repr=False)


def write_fixed_config(path: str | os.PathLike[str], new_raw: Mapping[str, Any], *,
                       now: datetime | None = None) -> FixWriteResult:
    """Validate, back up the current file, write `new_raw`, and load it back.

    An invalid `new_raw` raises ConfigError before anything is written. The backup is
    `<name>.bak-<UTC timestamp>` next to the file. The new file is JSON with 2-space
    indentation (JSON5 comments in the old file survive only in the backup).
    """
    target = Path(path)
    parse_config(dict(new_raw), source=str(target))
    backup: Path | None = None
    if target.exists():
        stamp = (now or datetime.now(UTC)).strftime("%Y%m%dT%H%M%S%fZ")
        backup = target.with_name(f"{target.name}.bak-{stamp}")
        shutil.copy2(target, backup)
    tmp = target.with_name(f".{target.name}.doctor-tmp")
    tmp.write_text(json.dumps(new_raw, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    os.replace(tmp, target)
    return FixWriteResult(target, backup, load_config(target))
