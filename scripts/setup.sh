#!/usr/bin/env bash
# Create .venv and install clawharness with its dev extras (idempotent, quiet).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.clawharness-installed
if [ ! -f "$stamp" ] || [ pyproject.toml -nt "$stamp" ]; then
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
  .venv/bin/python -m pip install -q -e '.[dev]' 2>&1 | grep -v '^WARNING: Location' || true
  .venv/bin/python -c "import clawharness" 
  touch "$stamp"
fi
