#!/usr/bin/env bash
# The main job: a real offline agent session on the embedded SQLite default. Its config,
# store and workspace stay in .demo/ (gitignored) so you can look at them afterwards;
# each run starts the demo session afresh.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh core   # the core install: no test tools, no extras
.venv/bin/clawharness demo --state-dir .demo "$@"
echo "(\`clawharness\` is .venv/bin/clawharness: run \`. .venv/bin/activate\` first)"
