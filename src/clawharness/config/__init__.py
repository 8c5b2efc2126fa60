"""Config: the openclaw.json shape (JSON5, camelCase keys), loading it, and editing it.

`loader` loads (`load_config`, `parse_config`, `LoadedConfig`, `state_dir`); `schema` is
the shape (`ClawConfig`); `checks` are the value checks its validators run, `advice` the
warnings about a file that validates, `legacy` the legacy forms both report; `editing`
and `writer` change the file (`config set|unset`). Doctor's checks and repairs are an
application of config, in `clawharness.doctor`. The problems every config message is
made of, and the key path syntax, are `clawharness.problems`, beside the error tree.
"""
