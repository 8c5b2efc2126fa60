"""A generic CLI-backend harness: describe a CLI agent, get a harness.

A CLI agent is described by three things (`CliAgentSpec`):

- its **command line** (`CommandLine.argv(launch)`): the base command (configured or the
  default) plus the flags for streaming, the model, and continuation (`resume`, `fork`);
  and its **environment** (`CommandLine.environment(ctx)`): the runtime-specific variables
  (the base adds PATH, a scratch HOME and the plugin's configured `env`; nothing is
  inherited from the host);
- its **stream-json event mapping** (`EventMapper.map(obj)`): one JSON object read from the
  agent's stdout becomes zero or more normalized `CliEvent`s;
- its **control protocol** (`ControlProtocol`): the objects written to its stdin: the
  handshake, a user turn, the answer to a permission question, an interrupt.

`CliBackendHarness(spec)` does the rest: one process per native binding (kept between
turns, re-spawned with `resume` when it is gone), the native session id kept as the binding
through the SDK's binding lifecycle and re-captured every turn, a resumed session the agent
no longer has (`NativeSessionMissing`) dropped with one warning and the turn run on a fresh
one that gets the host transcript (`NativeSessionRecovery`), streamed text to
`on_partial_reply`, assistant and tool messages mirrored into the transcript with
idempotency keys, every permission question decided by the host's `run_before_tool_call`,
every tool reported to `observe_tool_terminal`, and abort/deadline handled as an interrupt
followed, as a last resort, by killing the whole process tree.

The SDK publishes it as `clawharness.plugin_sdk.agent_harness_cli`; import it from there.
Modules: `events` (what a mapper yields), `spec` (the description), `harness`
(`CliBackendHarness`), `turn` (one attempt: its process and course), `turn_events` (the
turn's state and its answer to each event), `live` (the process and shared pieces),
`host_mcp` (the host tools the agent lacks, as the turn's in-process MCP server).
"""
