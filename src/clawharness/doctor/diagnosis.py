"""`clawharness doctor`: find legacy or broken runtime config, and repair what is safe.

`diagnose` and `apply_fixes` are pure and work on the raw decoded config (a dict), so
keys this host does not know survive a repair untouched. Writing goes through
`config.writer.write_config` (validate, back up, write, load back).

Doctor reports everything `config validate` reports (the same checks: `validate_config`,
errors and warnings alike, each with its code) and adds the checks that need state:

- `unknown-runtime`: an `agentRuntime.id` no loaded plugin registers (turns fail closed);
  the message names the key that turns the plugin on, or says none is installed;
- `stale-session-pin`: a session pinned to an unregistered harness; the host clears it
  in the session store (reported, not a config edit).

Repairs (`--fix`): the legacy refs and whole-agent runtimes of `config.legacy` (a
`codex/*` ref also enables the bundled codex plugin), and `plaintext-official-endpoint`
(`http://api.openai.com` -> `https://`). A file with other errors is not written.
"""

from __future__ import annotations

import copy
import os
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from clawharness.config.legacy import CODEX_PLUGIN_ID, codex_plugin_blocker
from clawharness.config.loader import validate_config
from clawharness.config.writer import WriteResult, write_config
from clawharness.errors import ConfigError
from clawharness.harness.registry import HarnessRegistry
from clawharness.harness.runtime_ids import normalize_optional_runtime_id
from clawharness.harness.selection import DEFAULT_CLI_RUNTIME_ALIASES
from clawharness.harness.status import SessionPin
from clawharness.problems import ConfigProblem, KeyPath, format_key_path

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
#: the result of `write_fixed_config` (the name doctor has always used)
FixWriteResult = WriteResult


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


def _finding(problem: ConfigProblem, raw: Mapping[str, Any]) -> Finding:
    ops = list(problem.fix)
    if problem.code == "plaintext-official-endpoint":
        value = _get(raw, problem.path)
        if isinstance(value, str):
            ops = [{"op": "replace", "path": list(problem.path),
                    "value": "https://" + value.strip()[len("http://"):]}]
    message = f"{problem.message}; {problem.hint}" if problem.hint else problem.message
    return Finding(problem.code, problem.severity, problem.key_path, message,
                   fixable=bool(ops), fix={"ops": ops} if ops else None)


def _runtime_hint(runtime: str, path: str, raw: Mapping[str, Any],
                  plugins_off: Mapping[str, str]) -> str:
    if runtime == CODEX_PLUGIN_ID:
        blocker = codex_plugin_blocker(raw)
        if blocker is not None:
            return f"the bundled codex plugin is off because {blocker}: change that to use it"
        return ("enable the bundled codex plugin: set plugins.entries.codex.enabled: true "
                "(clawharness config set plugins.entries.codex.enabled true)")
    if runtime in plugins_off:
        return f'plugin "{runtime}" is installed but not loaded ({plugins_off[runtime]})'
    return ("no installed plugin registers it: install one (an entry point in the "
            f"clawharness.plugins group, or plugins.load), or change {path}")


def diagnose(
    raw_config: Mapping[str, Any],
    registry: HarnessRegistry | None = None,
    sessions: Iterable[SessionPin] = (),
    *,
    cli_runtime_aliases: Mapping[str, Collection[str]] = DEFAULT_CLI_RUNTIME_ALIASES,
    plugins_off: Mapping[str, str] | None = None,
) -> list[Finding]:
    """Every finding for this raw config, registry and set of session pins.

    `plugins_off` maps plugin ids that are installed but not loaded to the reason
    (`PluginLoadResult.skipped`), for the unknown-runtime hint.
    """
    registry = registry if registry is not None else HarnessRegistry()
    try:
        report = validate_config(dict(raw_config))
        problems = list(report.problems)
    except ConfigError as exc:
        problems = list(exc.problems)
    findings = [_finding(p, raw_config) for p in problems]
    for path, runtime_id, provider in _configured_runtimes(raw_config):
        runtime = normalize_optional_runtime_id(runtime_id)
        if runtime is None or runtime in ("auto", "openclaw") or runtime in registry:
            continue
        aliases = cli_runtime_aliases.get(runtime)
        if aliases is not None and (provider is None or provider in aliases):
            continue
        where = format_key_path(path)
        findings.append(Finding(
            "unknown-runtime", "error", where,
            f'runtime "{runtime}" is not registered by any loaded plugin; turns on this route '
            f"fail instead of falling back. {_runtime_hint(runtime, where, raw_config, plugins_off or {})}"))
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


def write_fixed_config(path: str | os.PathLike[str], new_raw: Mapping[str, Any], *,
                       now: datetime | None = None) -> WriteResult:
    """Validate, back up the current file, write `new_raw`, and load it back.

    An invalid `new_raw` raises ConfigError before anything is written (see
    `config.writer.write_config`).
    """
    return write_config(path, new_raw, now=now)
