"""The host's portable sessions (docs/portable-sessions.md): adopt a native session,
fork a session, hand one off to a native runtime, and the route of a fork or a
sub-agent. `Host` has these methods (`PortableSessionsMixin`); what they read of the
host is `_HostParts`."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from clawharness._host_parts import HostCore
from clawharness._ids import new_id
from clawharness.errors import (
    AgentHarnessNotRegisteredError,
    AgentHarnessUnsupportedError,
    InvalidSessionKeyError,
    ModelRefError,
    NativeSessionUnsupportedError,
    SessionForkError,
)
from clawharness.names import parse_model_ref
from clawharness.sessions.agents import require_known_agent
from clawharness.sessions.keys import normalize_session_key, parse_session_key

# what adopting, forking and handing off use is imported when one runs (a host that
# only reads its store imports none of it)
if TYPE_CHECKING:
    from clawharness.harness import (
        Message,
        NativeAdoption,
        NativeHandoff,
        PortableSessions,
    )
    from clawharness.plugins.runtime import PluginRuntime
    from clawharness.sessions import AdoptionResult, ForkResult
    from clawharness.sessions.writers import SessionWriters
    from clawharness.store import SessionRecord

__all__ = ["PortableSessionsMixin"]


class _HostParts(HostCore, Protocol):
    """What the portable-session methods read of their host."""

    @property
    def state_dir(self) -> Path: ...
    @property
    def writers(self) -> SessionWriters: ...
    async def start(self) -> object: ...
    async def get_session(self, key: str) -> SessionRecord: ...
    def default_agent_id(self) -> str: ...
    def model_ref(self, text: str) -> str: ...


def _portable(plugins: PluginRuntime, harness_id: str, capability: str) -> PortableSessions:
    """The registered harness `harness_id`, when it can `capability`."""
    registered = plugins.registry.get(harness_id)
    if registered is None:
        raise AgentHarnessNotRegisteredError(harness_id)
    harness = registered.harness
    if not callable(getattr(harness, capability, None)):
        what = "adopt sessions" if capability.startswith("adopt") else "hand sessions off"
        raise NativeSessionUnsupportedError(f"the {harness_id} harness cannot {what}")
    return harness  # type: ignore[return-value]


def _fork_key(source: SessionRecord, new_key: str | None) -> str:
    """The key of a fork of `source` (`new_key`, else one named after the source)."""
    if not new_key:
        rest = parse_session_key(source.key).rest
        return f"agent:{source.agent_id}:{rest[:200]}-fork-{new_id()[:8]}"
    target = normalize_session_key(new_key, default_agent=source.agent_id)
    owner = parse_session_key(target).agent_id
    if owner != source.agent_id:
        raise SessionForkError(
            f"{target} belongs to agent {owner!r}; a fork stays with the source's agent "
            f"{source.agent_id!r}", hint=f"use a key of agent {source.agent_id}")
    return target


def _fork_route(host: _HostParts, source: SessionRecord, model: str | None,
                runtime: str | None) -> tuple[str | None, str | None]:
    """(model ref, runtime override) of a fork's next turn, checked as that turn's
    selection will check them: a runtime the route does not allow fails now."""
    from clawharness.harness import normalize_optional_runtime_id
    from clawharness.models.routes import resolve_route

    harness = normalize_optional_runtime_id(runtime)
    if harness is not None and harness.startswith("acp/"):
        agent = harness[4:]
        if model and host.model_ref(model) != f"acp/{agent}":
            raise SessionForkError(
                f"--runtime {runtime} runs the ACP agent {agent!r} on its own model; "
                f"it cannot run {model}", hint="leave out --model, or --runtime")
        model, harness = f"acp/{agent}", None
    ref_text = host.model_ref(model) if model else (source.model_ref or None)
    if harness is None and ref_text is None:
        return None, None
    parsed = parse_model_ref(ref_text) if ref_text else None
    if harness is not None:
        if parsed is None:
            raise SessionForkError(f"--runtime {runtime} needs a model to check it "
                                   "against: pass --model", hint="e.g. --model openai/gpt-5")
        route = resolve_route(host.config, parsed, env=host.env,
                              extra_providers=host.plugins.selector.providers)
        try:
            host.plugins.selector.select(agent_id=source.agent_id, route=route, pinned=None,
                                         session_key=source.key, override=harness)
        except (AgentHarnessUnsupportedError, AgentHarnessNotRegisteredError) as exc:
            raise SessionForkError(
                f"cannot fork onto runtime {harness} with {ref_text}: {exc}",
                hint="choose a model that runtime runs (--model), or another runtime"
            ) from exc
    return ref_text, harness


def _known_ref(host: _HostParts, ref: str | None) -> str | None:
    """`ref` when this config can run it, else None (the agent's own model)."""
    if not ref:
        return None
    try:
        return host.model_ref(ref)
    except ModelRefError:
        return None


class PortableSessionsMixin:
    """Adopt, fork and hand off sessions (the methods of `Host`)."""

    async def adopt_session(self: _HostParts, runtime: str, source: str, *, key: str | None = None,
                            agent_id: str | None = None, model: str | None = None,
                            home: str | None = None) -> AdoptionResult:
        """Mirror a native session (`runtime`: claude-code, codex, acp/<agent>; `source`:
        its file or id) into the host session `key` (default: one named after the
        runtime and the native id) and bind it, so the next turn there resumes it
        natively. Adopting again adds only what is new; bad input or a conflict raises
        a `NativeSessionError` and stores nothing."""
        from clawharness.harness import AdoptRequest, portable_runtime
        from clawharness.redaction.outbound import redact_transcript_message
        from clawharness.sessions import adopt_native
        from clawharness.tools import agent_workspace_dir

        harness_id, agent_name = portable_runtime(runtime)
        harness = _portable(self.plugins, harness_id, "adopt_native_session")
        await self.start()
        full = None
        if key:
            full = normalize_session_key(key, default_agent=agent_id or self.default_agent_id())
            owner = parse_session_key(full).agent_id
            if agent_id is not None and agent_id != owner:
                raise InvalidSessionKeyError(
                    f"the session key {full!r} belongs to agent {owner!r}, not {agent_id!r}")
            agent_id = owner
        agent = agent_id or self.default_agent_id()
        require_known_agent(self.config, agent, session_key=full)
        workspace = agent_workspace_dir(self.config, self.state_dir, agent)
        workspace.mkdir(parents=True, exist_ok=True)  # as a turn makes it on first use
        label = f"acp-{agent_name}" if agent_name else {"claude-cli": "claude-code"}.get(
            harness_id, harness_id)

        def session_key(adoption: NativeAdoption) -> str:
            return full or normalize_session_key(
                f"{label}-{adoption.native_session_id[:8]}", default_agent=agent)

        def model_ref(adoption: NativeAdoption) -> str | None:
            return self.model_ref(model) if model else _known_ref(self, adoption.model_ref)

        return await adopt_native(
            self.store, self.writers, harness, AdoptRequest(
                source=source, agent_id=agent, workspace_dir=str(workspace),
                state_dir=str(self.state_dir), env=self.env, home=home,
                agent_name=agent_name),
            session_key=session_key, model_ref=model_ref,
            scrub=redact_transcript_message)  # type: ignore[arg-type]

    async def fork_session(self: _HostParts, key: str, *, at: str | None = None,
                           new_key: str | None = None, model: str | None = None,
                           runtime: str | None = None, settled: bool = True) -> ForkResult:
        """A new session whose transcript is the prefix of `key`'s up to `at` (`N` or
        `turn:N`, `entry:SEQ`; default all of it), copied with provenance; its next turn
        runs on `model` (default the source's) and `runtime` (default: the normal
        selection; `acp/<agent>` means that ACP agent's model). A runtime the model's
        route does not allow is refused now (`SessionForkError`), and nothing is
        written. `settled`: wait for a turn running in the source to end first (a
        sub-agent forked from inside its parent's turn does not)."""
        from clawharness.sessions import fork_prefix, parse_fork_point, write_fork

        source = await self.get_session(key)
        point = parse_fork_point(at)
        target = _fork_key(source, new_key)
        ref, harness = _fork_route(self, source, model, runtime)
        store = self.store
        if await store.get_session(target) is not None:
            raise SessionForkError(f"session {target} already exists",
                                   hint="name a new key with --as NEWKEY")
        if settled:
            async with self.writers.hold(source.key, purpose="fork a session"):
                entries = await store.read_entries(source.session_id)
        else:
            entries = await store.read_entries(source.session_id)
        prefix = fork_prefix(entries, point, source=f"session {source.key}")
        async with self.writers.hold(target, purpose="fork a session"):
            return await write_fork(store, source, target, prefix, model_ref=ref,
                                    runtime=harness)

    def spawn_route(self: _HostParts, parent: SessionRecord, agent_id: str, model: str | None,
                    runtime: str | None) -> tuple[str | None, str | None]:
        """(model ref, runtime override) of a sub-agent of `parent` running as
        `agent_id`, checked as a fork's are (its own agent's child defaults to the
        parent's model, another agent's to that agent's own)."""
        source = parent if agent_id == parent.agent_id else dataclasses.replace(
            parent, agent_id=agent_id, model_ref=None)
        return _fork_route(self, source, model, runtime)

    async def handoff_session(self: _HostParts, key: str, runtime: str, *, home: str | None = None,
                              cwd: str | None = None) -> NativeHandoff:
        """Make a native session of `runtime` (claude-code, codex, acp/<agent>) holding
        the transcript of host session `key`, where that runtime's own CLI resumes it
        (`home`: the runtime home to write into, default the user's own; `cwd`: where it
        runs, default the agent's workspace). The transcript is not changed; the
        session's meta records the handoff, so adopting that native session back into it
        adds what was said there."""
        from clawharness.harness import HandoffRequest, portable_runtime
        from clawharness.sessions import handoff_native
        from clawharness.tools import agent_workspace_dir

        harness_id, agent_name = portable_runtime(runtime)
        harness = _portable(self.plugins, harness_id, "handoff_native_session")
        record = await self.get_session(key)
        model_id = record.model_ref.split("/", 1)[1] if record.model_ref and (
            "/" in record.model_ref) else None
        workspace = cwd or str(agent_workspace_dir(self.config, self.state_dir, record.agent_id))

        def request(history: tuple[Message, ...]) -> HandoffRequest:
            return HandoffRequest(
                agent_id=record.agent_id, session_key=record.key, history=history,
                cwd=workspace, state_dir=str(self.state_dir), env=self.env, home=home,
                agent_name=agent_name, model_id=model_id)

        return await handoff_native(self.store, self.writers, harness, record, request)
