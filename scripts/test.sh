#!/usr/bin/env bash
# The whole test suite: lint, types, then pytest (unit, store on SQLite and PostgreSQL,
# integration tests against real native runtimes installed by scripts/native-runtimes.sh,
# and the `real_model` tests against the model scripts/real-model.sh installs).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh dev    # every extra and the test tools
bash scripts/services.sh
if [ -f scripts/native-runtimes.sh ]; then bash scripts/native-runtimes.sh; fi
if [ -f scripts/browser.sh ]; then bash scripts/browser.sh; fi
if [ -f scripts/sandbox.sh ]; then bash scripts/sandbox.sh; fi
if [ -f scripts/real-model.sh ]; then bash scripts/real-model.sh; fi
echo "== ruff"; .venv/bin/ruff check src tests bench examples
echo "== mypy (strict on src/)"; .venv/bin/mypy
echo "== pytest"; exec .venv/bin/pytest -q -p no:cacheprovider "$@"
