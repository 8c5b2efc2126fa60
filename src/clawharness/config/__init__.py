"""Config: the openclaw.json shape (JSON5, camelCase keys), loading and repair.

`loader` loads (`load_config`, `parse_config`, `LoadedConfig`, `state_dir`); `schema` is
the shape (`ClawConfig`). The package itself imports nothing: `clawharness.errors` builds
`ConfigError` from `problems`, and the loader raises those errors, so importing a leaf
module here must not pull the loader in.
"""
