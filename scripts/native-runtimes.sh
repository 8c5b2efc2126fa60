#!/usr/bin/env bash
# Install the pinned native runtimes the integration tests drive, into .cache/ (kept
# between runs; each is skipped when already present at the pinned version).
set -euo pipefail
cd "$(dirname "$0")/.."
CODEX_VERSION=0.169.0
install() {  # dir package@version marker-file
  local dir=$1 spec=$2 marker=$3
  if [ -e "$dir/$marker" ] && [ -f "$dir/.pinned" ] && [ "$(cat "$dir/.pinned")" = "$spec" ]; then return 0; fi
  echo "installing $spec into $dir"
  mkdir -p "$dir"
  npm install --prefix "$dir" "$spec" --no-audit --no-fund --loglevel=error >/dev/null
  echo "$spec" > "$dir/.pinned"
}
install .cache/codex "@openai/codex@$CODEX_VERSION" node_modules/@openai/codex/package.json
