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
    security=allowlist  a command every program of which matches the allowlist runs
                        unasked; otherwise ask=on-miss asks and ask=off refuses

"Every program" is what `exec_analysis` finds the command would run: wrappers (`env`,
`nice`, `timeout`, `sh -c`, ...) are seen through to the command they run, and the
analysis fails closed: a command with any word it does not fully read (any `$`,
redirections, subshells, builtins such as `eval` or `printf -v`, `xargs`, `sudo`, inline
interpreter code, `git -c alias.*`, loader variables such as `LD_PRELOAD=`) is a miss.

Allowlist entries: `*` (any analysed command), a path glob (`/usr/bin/git`, `~/bin/*`,
`/opt/**`) matched against the program resolved on PATH, or a bare name glob (`git`,
`python3*`) matched against a program named by its bare name (so `./ls` or `/tmp/ls`
needs a path entry). Everything here is pure and synchronous except the PATH lookup,
which is injectable.
"""

from __future__ import annotations

import functools
import os
import re
import shutil
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from clawharness._faces import lazy_face
from clawharness.config.schema import ToolsConfig
from clawharness.errors import ToolPolicyDeniedError
from clawharness.harness.capabilities import ApprovalSubject
from clawharness.names.tool_groups import expand_tool_groups, normalize_tool_name
from clawharness.names.tool_profiles import TOOL_PROFILES

# the exec analysis (a shell parser and the programs' rules) loads when a command is
# first analysed: a turn that runs no exec does not import it
if TYPE_CHECKING:
    from clawharness.tools.exec_analysis import CommandAnalysis, CommandSegment, analyze_command

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
    #: set on a layer that allows nothing (an unknown profile): the reason every tool gets
    refuses_all: str | None = None

    def matcher(self) -> Callable[[tuple[str, ...]], str | None]:
        """A function from a tool's normalized names (its offered name first, then the
        other spellings a rule may use, see `EffectiveToolPolicy.check_names`) to None
        (allowed) or the refusal reason. A deny entry matching any spelling refuses the
        tool; an allow entry matching any spelling lets it pass the layer."""
        if self.refuses_all is not None:
            reason = self.refuses_all
            return lambda names: f'tool "{names[0]}" is refused: {reason}'
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

        def hits(names: tuple[str, ...],
                 compiled: tuple[frozenset[str], tuple[re.Pattern[str], ...], bool]) -> bool:
            return any(hit(n, compiled) or (n == "apply_patch" and hit("write", compiled))
                       for n in names)

        def check(names: tuple[str, ...]) -> str | None:
            name = names[0]
            for entry, compiled in deny:
                if hits(names, compiled):
                    return f'tool "{name}" is denied by the {label}.deny list (entry "{entry}")'
            if allow_empty or hits(names, allow):
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
        layers.append(PolicyLayer(where, deny=("*",), refuses_all=(
            f'{where} "{profile}" is no known tool profile, so it allows nothing; '
            f"choose one of {', '.join(TOOL_PROFILES)}")))
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


# --- exec allowlist matching ---------------------------------------------------------


@functools.lru_cache(maxsize=1024)
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
    if "/" in segment.executable:
        # a bare name stands for the program PATH finds; `./ls` or `/tmp/ls` is another
        # file that happens to share the name, and only a path entry can allow it
        return False
    return _glob(pattern).match(segment.executable) is not None


def match_exec_allowlist(analysis: CommandAnalysis, allowlist: Sequence[str]) -> str | None:
    """None when every segment matches an entry; else why the allowlist is missed."""
    if not analysis.ok:
        return analysis.reason or "the command could not be analysed"
    for segment in analysis.segments:
        if not any(_entry_matches(entry, segment) for entry in allowlist):
            return f"{segment.describe()} is not in tools.exec.allowlist"
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
        self._memo: dict[tuple[str, ...], str | None] = {}
        profile = (agent.profile if agent and agent.profile else None) or self.config.profile
        #: a configured profile this host does not know (it restricts nothing)
        self.unknown_profile = profile if profile and profile not in TOOL_PROFILES else None

    def check(self, tool_name: str) -> str | None:
        """None when the tool may be offered and called, else the reason it is denied."""
        return self.check_names((tool_name,))

    def check_names(self, names: Sequence[str]) -> str | None:
        """`check` for a tool that rules may name in several spellings, its offered name
        first: an MCP tool is offered as `<safe server>__<tool>` but a rule may be written
        with the configured server name (`my.fs__*`), or without the `-2` a colliding
        name got. A deny matching any spelling refuses it; an allow list passes it when
        it names any spelling."""
        key = tuple(names)
        if key in self._memo:
            return self._memo[key]
        normalized = tuple(dict.fromkeys(normalize_tool_name(n) for n in key))
        reason: str | None = None
        for check in self._matchers:
            reason = check(normalized)
            if reason is not None:
                break
        self._memo[key] = reason
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

    def approval_subject(self, tool_name: str, arguments: Mapping[str, Any]) -> ApprovalSubject:
        """What an approval of this call is about, and what allow-always would cover.

        For exec, the programs the command runs: approving `git status` "always" lets
        later commands that run only programs already approved through (as the original
        adds the resolved program to the allowlist), never any command. A command the
        analysis cannot vouch for is covered only as the exact text; with `ask: "always"`
        an answer never covers more than its call.
        """
        name = normalize_tool_name(tool_name)
        if name != "exec":
            return ApprovalSubject(grant_keys=frozenset({f"tool:{name}"}),
                                   grant_label=f"the {name} tool")
        command = arguments.get("command")
        shown = command if isinstance(command, str) else ""
        analysis = self.analyze(shown, arguments)
        programs = tuple(dict.fromkeys(
            s.resolved_path or s.executable for s in analysis.segments)) if analysis.ok else ()
        if self.exec.ask == "always":
            return ApprovalSubject(programs)
        if programs:
            return ApprovalSubject(programs, frozenset(f"exec-program:{p}" for p in programs),
                                   ", ".join(programs))
        return ApprovalSubject((), frozenset({f"exec-command:{shown}"}), "this exact command")

    def analyze(self, command: str, arguments: Mapping[str, Any] | None = None) -> CommandAnalysis:
        """The allowlist analysis of `command`; a relative executable (`./run.sh`) resolves
        from the workspace (and the call's `workdir`)."""
        from clawharness.tools.exec_analysis import CommandAnalysis, analyze_command

        if not command.strip():
            return CommandAnalysis(False, reason="the command is empty")
        cwd = self.workspace_dir
        workdir = (arguments or {}).get("workdir")
        if cwd is not None and isinstance(workdir, str) and workdir:
            cwd = os.path.join(cwd, workdir)
        return analyze_command(command, cwd=cwd, which=self._which)


__getattr__, __dir__ = lazy_face(__name__, {
    "CommandAnalysis": "clawharness.tools.exec_analysis",
    "CommandSegment": "clawharness.tools.exec_analysis",
    "analyze_command": "clawharness.tools.exec_analysis",
})
