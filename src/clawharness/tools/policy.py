"""The attempt's effective tool policy: profiles, allow/deny layers, and exec approvals.

Name policy follows the original's pipeline. Each layer is `{allow, deny}` over tool names,
groups (`group:fs`) and `*` wildcards; within a layer deny wins and an empty allow list
allows everything; a tool must pass every layer. The layers are the profile (with
`alsoAllow` merged into its allow list), then `tools.allow`/`tools.deny` (with `alsoAllow`
added; `alsoAllow` alone means "everything, plus these"), then the agent's own lists.
An allow or deny entry for `write` also covers `apply_patch`.

Exec approvals follow `requiresExecApproval`:

    security=deny       exec is refused outright, whatever `ask` says
    ask=always          every command asks
    security=full       otherwise runs unasked
    security=allowlist  a command whose every segment's executable matches the allowlist
                        runs unasked; otherwise ask=on-miss asks and ask=off refuses

Allowlist entries: `*` (any parsed command), a path glob (`/usr/bin/git`, `~/bin/*`,
`/opt/**`) matched against the executable resolved on PATH, or a bare name glob
(`git`, `python3*`) matched against the executable's name. A command the analysis cannot
vouch for (redirections, subshells, command substitution, backgrounding) is a miss.
Everything here is pure and synchronous except the PATH lookup, which is injectable.
"""

from __future__ import annotations

import os
import re
import shlex
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from clawharness.config.schema import ToolsConfig
from clawharness.errors import ToolPolicyDeniedError
from clawharness.tools.groups import expand_tool_groups, normalize_tool_name
from clawharness.tools.profiles import TOOL_PROFILES

__all__ = [
    "TOOL_PROFILES",
    "CommandAnalysis",
    "CommandSegment",
    "EffectiveToolPolicy",
    "PolicyLayer",
    "analyze_command",
    "match_exec_allowlist",
]

# --- name policy ----------------------------------------------------------------------


def _compile(entries: Iterable[str]) -> tuple[frozenset[str], tuple[re.Pattern[str], ...], bool]:
    exact: set[str] = set()
    globs: list[re.Pattern[str]] = []
    any_name = False
    for entry in expand_tool_groups(list(entries)):
        if entry == "*":
            any_name = True
        elif "*" in entry:
            globs.append(re.compile(".*".join(re.escape(p) for p in entry.split("*")) + r"\Z"))
        else:
            exact.add(entry)
    return frozenset(exact), tuple(globs), any_name


@dataclass(frozen=True, slots=True)
class PolicyLayer:
    """One `{allow, deny}` layer. `label` is the config key path it came from
    (`tools`, `agents.entries.<id>.tools`, or a profile's `...tools.profile`), so a
    refusal names the rule; `profile` is set on a profile's layer."""

    label: str
    allow: tuple[str, ...] | None = None
    deny: tuple[str, ...] = ()
    profile: str | None = None

    def matcher(self) -> Callable[[str], str | None]:
        """A function from a normalized tool name to None (allowed) or the refusal reason."""
        # one matcher per deny entry, so a refusal can name the entry that matched
        deny = [(entry, _compile([entry])) for entry in self.deny]
        allow = _compile(self.allow or ())
        allow_empty = not (allow[0] or allow[1] or allow[2])
        label, profile = self.label, self.profile

        def hit(
            name: str, compiled: tuple[frozenset[str], tuple[re.Pattern[str], ...], bool]
        ) -> bool:
            exact, globs, any_name = compiled
            return any_name or name in exact or any(g.match(name) for g in globs)

        def check(name: str) -> str | None:
            for entry, compiled in deny:
                if hit(name, compiled) or (name == "apply_patch" and hit("write", compiled)):
                    return f'tool "{name}" is denied by the {label}.deny list (entry "{entry}")'
            if allow_empty or hit(name, allow) or (name == "apply_patch" and hit("write", allow)):
                return None
            if profile is not None:
                also = label.removesuffix(".profile") + ".alsoAllow"
                return (f'tool "{name}" is not in the allow list of tool profile "{profile}" '
                        f"({label}); add it to {also} or choose another profile")
            return (f'tool "{name}" is not in the {label}.allow list; add it there '
                    f"(or to {label}.alsoAllow)")

        return check


def _merge_also_allow(allow: Sequence[str] | None, also: Sequence[str]) -> tuple[str, ...] | None:
    if not also:
        return tuple(allow) if allow is not None else None
    base = list(allow) if allow else ["*"]
    return tuple(dict.fromkeys([*base, *also]))


def _layers(config: ToolsConfig, agent: ToolsConfig | None,
            agent_id: str | None = None) -> list[PolicyLayer]:
    layers: list[PolicyLayer] = []
    agent_key = f"agents.entries.{agent_id or '<agent>'}.tools"
    agent_profile = agent.profile if agent and agent.profile else None
    profile = agent_profile or config.profile
    profile_allow = TOOL_PROFILES.get(profile) if profile else None
    if profile and profile not in TOOL_PROFILES:
        # config validation refuses an unknown profile; one that got past it allows nothing
        where = f"{agent_key}.profile" if agent_profile else "tools.profile"
        layers.append(PolicyLayer(where, deny=("*",), profile=f"{profile} (unknown)"))
    if profile is not None and profile_allow is not None:
        also = [*config.also_allow, *(agent.also_allow if agent else [])]
        where = f"{agent_key}.profile" if agent_profile else "tools.profile"
        layers.append(PolicyLayer(where, tuple(dict.fromkeys([*profile_allow, *also])),
                                  profile=profile))
    if config.allow is not None or config.deny or config.also_allow:
        layers.append(
            PolicyLayer(
                "tools", _merge_also_allow(config.allow, config.also_allow), tuple(config.deny)
            )
        )
    if agent is not None and (agent.allow is not None or agent.deny or agent.also_allow):
        layers.append(
            PolicyLayer(
                agent_key, _merge_also_allow(agent.allow, agent.also_allow), tuple(agent.deny)
            )
        )
    return layers


# --- exec command analysis ------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CommandSegment:
    """One simple command of a pipeline or chain."""

    raw: str
    argv: tuple[str, ...]
    executable: str
    resolved_path: str | None


@dataclass(frozen=True, slots=True)
class CommandAnalysis:
    """A command split into segments, or why it could not be vouched for."""

    ok: bool
    segments: tuple[CommandSegment, ...] = ()
    reason: str | None = None


_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


def _split_segments(command: str) -> list[str] | str:
    """Top-level segments split on ; && || | (or the reason the command is refused)."""
    segments: list[str] = []
    current: list[str] = []
    quote: str | None = None
    i, n = 0, len(command)
    while i < n:
        ch = command[i]
        if quote == "'":
            if ch == "'":
                quote = None
            current.append(ch)
        elif ch == "\\" and i + 1 < n:
            if command[i + 1] == "\n":
                return "line continuation"
            current.append(command[i : i + 2])
            i += 1
        elif quote == '"':
            if ch == "`" or command.startswith("$(", i):
                return "command substitution"
            if ch == '"':
                quote = None
            current.append(ch)
        elif ch in ("'", '"'):
            quote = ch
            current.append(ch)
        elif ch == "`" or command.startswith("$(", i):
            return "command substitution"
        elif ch in "<>":
            return "redirection"
        elif ch in "()":
            return "subshell"
        elif ch in "\n\r":
            return "multiple lines"
        elif ch in ";|&":
            two = command[i : i + 2]
            if ch == "&" and two != "&&":
                return "backgrounding"
            segments.append("".join(current))
            current = []
            if two in ("&&", "||", "|&"):
                i += 1
        else:
            current.append(ch)
        i += 1
    if quote is not None:
        return "an unterminated quote"
    segments.append("".join(current))
    return segments


def analyze_command(
    command: str, *, cwd: str | None = None, which: Callable[[str], str | None] = shutil.which
) -> CommandAnalysis:
    """Split a shell command into simple commands and resolve each executable."""
    parts = _split_segments(command)
    if isinstance(parts, str):
        return CommandAnalysis(False, reason=f"the command uses {parts}")
    segments: list[CommandSegment] = []
    for raw in parts:
        try:
            argv = shlex.split(raw)
        except ValueError as exc:
            return CommandAnalysis(False, reason=f"the command does not parse: {exc}")
        while argv and _ASSIGNMENT.match(argv[0]):
            argv = argv[1:]
        if not argv:
            return CommandAnalysis(False, reason="the command has an empty segment")
        exe = argv[0]
        if any(c in exe for c in "$*?[{") or "~" in exe.removeprefix("~/"):
            return CommandAnalysis(False, reason=f"the executable {exe!r} is not a literal name")
        resolved: str | None = None
        if "/" in exe:
            path = os.path.expanduser(exe)
            if os.path.isabs(path) or cwd:
                # with no known cwd a relative executable stays unresolved: only `*` fits it
                resolved = os.path.realpath(os.path.join(cwd or "/", path))
        else:
            found = which(exe)
            resolved = os.path.realpath(found) if found else None
        segments.append(CommandSegment(raw.strip(), tuple(argv), exe, resolved))
    return CommandAnalysis(True, tuple(segments))


def _glob(pattern: str) -> re.Pattern[str]:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        if pattern.startswith("**", i):
            out.append(".*")
            i += 2
            continue
        ch = pattern[i]
        out.append("[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch))
        i += 1
    return re.compile("".join(out) + r"\Z")


def _entry_matches(entry: str, segment: CommandSegment) -> bool:
    pattern = entry.strip()
    if not pattern:
        return False
    if pattern == "*":
        return True
    if "/" in pattern or pattern.startswith("~"):
        if segment.resolved_path is None:
            return False
        expanded = os.path.expanduser(pattern)
        if not any(c in expanded for c in "*?"):
            return os.path.realpath(expanded) == segment.resolved_path
        return _glob(expanded).match(segment.resolved_path) is not None
    return _glob(pattern).match(os.path.basename(segment.executable)) is not None


def match_exec_allowlist(analysis: CommandAnalysis, allowlist: Sequence[str]) -> str | None:
    """None when every segment matches an entry; else why the allowlist is missed."""
    if not analysis.ok:
        return analysis.reason or "the command could not be analysed"
    for segment in analysis.segments:
        if not any(_entry_matches(entry, segment) for entry in allowlist):
            return f'"{segment.executable}" is not in tools.exec.allowlist'
    return None


# --- the policy -----------------------------------------------------------------------


class EffectiveToolPolicy:
    """`ToolPolicyCheck` for one attempt, built from `tools` config (and an agent's own)."""

    def __init__(
        self,
        config: ToolsConfig | None = None,
        *,
        agent: ToolsConfig | None = None,
        agent_id: str | None = None,
        workspace_dir: str | None = None,
        which: Callable[[str], str | None] = shutil.which,
    ) -> None:
        self.config = config or ToolsConfig()
        self.workspace_dir = workspace_dir
        exec_source = agent if agent is not None and "exec" in agent.model_fields_set else None
        self.exec = (exec_source or self.config).exec
        self.layers = tuple(_layers(self.config, agent, agent_id))
        self._matchers = tuple(layer.matcher() for layer in self.layers)
        self._which = which
        self._memo: dict[str, str | None] = {}
        profile = (agent.profile if agent and agent.profile else None) or self.config.profile
        #: a configured profile this host does not know (it restricts nothing)
        self.unknown_profile = profile if profile and profile not in TOOL_PROFILES else None

    def check(self, tool_name: str) -> str | None:
        """None when the tool may be offered and called, else the reason it is denied."""
        if tool_name in self._memo:
            return self._memo[tool_name]
        name = normalize_tool_name(tool_name)
        reason: str | None = None
        for check in self._matchers:
            reason = check(name)
            if reason is not None:
                break
        self._memo[tool_name] = reason
        return reason

    def needs_approval(self, tool_name: str, arguments: Mapping[str, Any]) -> str | None:
        """None when the call may run unasked; else why approval is required.

        Raises `ToolPolicyDeniedError` when exec settings refuse the call outright.
        """
        if normalize_tool_name(tool_name) != "exec":
            return None
        security, ask = self.exec.security, self.exec.ask
        if security == "deny":
            raise ToolPolicyDeniedError('exec is disabled: tools.exec.security is "deny"')
        command = arguments.get("command")
        shown = command if isinstance(command, str) else ""
        if ask == "always":
            return f'tools.exec.ask is "always": approve running `{shown}`'
        if security == "full":
            return None
        miss = match_exec_allowlist(self.analyze(shown, arguments), self.exec.allowlist)
        if miss is None:
            return None
        if ask == "on-miss":
            return f'{miss}; tools.exec.ask is "on-miss": approve running `{shown}`'
        raise ToolPolicyDeniedError(
            f'exec refused: {miss} (tools.exec.security is "allowlist" and tools.exec.ask is "off")'
        )

    def analyze(self, command: str, arguments: Mapping[str, Any] | None = None) -> CommandAnalysis:
        """The allowlist analysis of `command`; a relative executable (`./run.sh`) resolves
        from the workspace (and the call's `workdir`)."""
        if not command.strip():
            return CommandAnalysis(False, reason="the command is empty")
        cwd = self.workspace_dir
        workdir = (arguments or {}).get("workdir")
        if cwd is not None and isinstance(workdir, str) and workdir:
            cwd = os.path.join(cwd, workdir)
        return analyze_command(command, cwd=cwd, which=self._which)
