#!/usr/bin/env bash
# The main job: a real offline agent session on the embedded SQLite default.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
exec .venv/bin/clawharness demo "$@"
