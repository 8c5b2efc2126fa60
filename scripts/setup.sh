#!/usr/bin/env bash
# Create .venv and install clawharness with its dev extras, and the example plugin
# distribution(s) under examples/ (idempotent, quiet).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.clawharness-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ] \
    || [ examples/echo-harness/pyproject.toml -nt "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
  .venv/bin/python -m pip install -q -e '.[dev]' 2>&1 | grep -v '^WARNING: Location' || true
  # the example harness, installed like any third-party plugin (its entry point)
  .venv/bin/python -m pip install -q --no-deps -e examples/echo-harness 2>&1 \
    | grep -v '^WARNING: Location' || true
  .venv/bin/python -c "import clawharness, echo_harness" 
  touch "$stamp"
fi
