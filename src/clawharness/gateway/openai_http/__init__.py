"""The gateway's OpenAI-compatible HTTP surface (`/v1/...`), on the gateway's own port.

- `errors`: OpenAI's error shape and the one exception handlers raise.
- `routing`: pure decisions: which agent a request names, its session key, the model
  ids served, the prompt built from a message list, the parameters refused.
- `auth`: bearer token (constant-time compare) and operator scopes.
- `chat`, `responses`, `models`: the endpoints; every turn goes through the gateway's
  run service, so through `Host.run_turn` like any other front (`turns`).
- `answers`: what a finished run is answered with; `failures`: the HTTP answer of a failed
  turn, and when a client may retry it; `idempotency`: `Idempotency-Key`, its records in
  the store.
- `client_tools`: the client's function tools and their results, read and shaped;
  `continuation`: which session a request's tool results continue; `memory`: the
  sessions of responses and client tool calls, kept in the store.
- `app`: the Starlette app (body limits, security headers) the gateway mounts.
"""
