"""The bundled Codex harness (`codex`): agent turns on OpenAI's `codex app-server`.

Modules: `protocol` (JSON lines, version gate), `client` (one app-server process),
`pool` (bounded process pool), `approvals` (approval bridge), `items` (transcript
projection), `turn` (one turn), `bindings` (native session bindings), `config`
(`plugins.entries.codex.config.appServer`), `harness` (the harness), `plugin` (the
plugin entry, `clawharness.harnesses.codex.plugin:entry`). Every module imports
the core only through `clawharness.plugin_sdk`.
"""
