#!/usr/bin/env bash
# Install the pinned native runtimes the integration tests drive, into .cache/ (kept
# between runs; each is skipped when already present at the pinned version).
set -euo pipefail
cd "$(dirname "$0")/.."
CODEX_VERSION=0.169.0
# a progress line per step: Codex, Claude Code, its ACP adapter, the ACP sdist, two MCP
# servers, the MCP Inspector, OpenClaw's own CLI and acpx (one more `install` or sdist
# below: count it here)
STEPS=9
STEP=0
step() {  # what: one progress line, "[n/STEPS] what"
  STEP=$((STEP + 1))
  printf '[%d/%d] %s\n' "$STEP" "$STEPS" "$1"
}
install() {  # dir package@version marker-file
  local dir=$1 spec=$2 marker=$3 started=$SECONDS
  if [ -e "$dir/$marker" ] && [ -f "$dir/.pinned" ] && [ "$(cat "$dir/.pinned")" = "$spec" ]; then
    step "$spec: present"
    return 0
  fi
  step "$spec: installing into $dir"
  mkdir -p "$dir"
  # on a terminal npm draws its own progress bar (on stderr); elsewhere it stays quiet
  if [ -t 2 ]; then
    npm install --prefix "$dir" "$spec" --no-audit --no-fund --progress=true >/dev/null
  else
    npm install --prefix "$dir" "$spec" --no-audit --no-fund --loglevel=error >/dev/null
  fi
  echo "$spec" > "$dir/.pinned"
  printf '      done in %ds\n' $((SECONDS - started))
}
install .cache/codex "@openai/codex@$CODEX_VERSION" node_modules/@openai/codex/package.json
CLAUDE_CODE_VERSION=2.1.197
CLAUDE_CODE_ACP_VERSION=0.16.2
install .cache/claude "@anthropic-ai/claude-code@$CLAUDE_CODE_VERSION" node_modules/@anthropic-ai/claude-code/package.json
install .cache/claude-acp "@zed-industries/claude-code-acp@$CLAUDE_CODE_ACP_VERSION" node_modules/@zed-industries/claude-code-acp/package.json
# the ACP Python SDK's example agent ships only in its sdist (the ACP smoke test runs it)
ACP_SDK_VERSION=0.12.1
if [ -f ".cache/acp-sdist/agent_client_protocol-$ACP_SDK_VERSION/examples/agent.py" ]; then
  step "agent-client-protocol $ACP_SDK_VERSION sdist: present"
else
  step "agent-client-protocol $ACP_SDK_VERSION sdist: downloading"
  mkdir -p .cache/acp-sdist
  if .venv/bin/python -m pip download --no-deps --no-binary :all: "agent-client-protocol==$ACP_SDK_VERSION" -d .cache/acp-sdist >/dev/null 2>&1; then
    tar xzf ".cache/acp-sdist/agent_client_protocol-$ACP_SDK_VERSION.tar.gz" -C .cache/acp-sdist
  else
    echo "could not download the agent-client-protocol sdist (the ACP smoke test will skip)" >&2
  fi
fi
# real MCP servers and the MCP Inspector (its CLI mode drives `clawharness mcp serve`)
MCP_SERVER_EVERYTHING_VERSION=2026.8.31
MCP_SERVER_FILESYSTEM_VERSION=2026.8.31
MCP_INSPECTOR_VERSION=2.12.0
install .cache/mcp-everything "@modelcontextprotocol/server-everything@$MCP_SERVER_EVERYTHING_VERSION" node_modules/@modelcontextprotocol/server-everything/package.json
install .cache/mcp-filesystem "@modelcontextprotocol/server-filesystem@$MCP_SERVER_FILESYSTEM_VERSION" node_modules/@modelcontextprotocol/server-filesystem/package.json
install .cache/mcp-inspector "@modelcontextprotocol/inspector@$MCP_INSPECTOR_VERSION" node_modules/@modelcontextprotocol/inspector/package.json
# OpenClaw's own CLI on the Node it needs (the gateway tests drive its clients;
# bench/startup.py, bench/gateway.py and bench/http_api.py measure beside it). Node 24
# comes as the `node` npm package, whose preinstall fetches the binary: --ignore-scripts
# keeps openclaw's own scripts from running, so that one is run by hand.
OPENCLAW_VERSION=2026.9.6
OPENCLAW_NODE_VERSION=24.21.0
openclaw_spec="openclaw@$OPENCLAW_VERSION node@$OPENCLAW_NODE_VERSION"
openclaw_dir=.cache/openclaw
installed_version() {  # package: its version under .cache/openclaw, else nothing
  sed -n 's/^  "version": "\(.*\)",$/\1/p' "$openclaw_dir/node_modules/$1/package.json" 2>/dev/null
}
if [ -x "$openclaw_dir/node_modules/node/bin/node" ] \
    && [ "$(installed_version openclaw)" = "$OPENCLAW_VERSION" ] \
    && [ "$(installed_version node)" = "$OPENCLAW_NODE_VERSION" ]; then
  step "$openclaw_spec: present"
else
  step "$openclaw_spec: installing into $openclaw_dir"
  started=$SECONDS
  mkdir -p "$openclaw_dir"
  npm install --prefix "$openclaw_dir" "openclaw@$OPENCLAW_VERSION" "node@$OPENCLAW_NODE_VERSION" \
    --ignore-scripts --no-audit --no-fund --loglevel=error >/dev/null
  (cd "$openclaw_dir/node_modules/node" && node installArchSpecificPackage.js >/dev/null)
  echo "$openclaw_spec" > "$openclaw_dir/.pinned"
  printf '      done in %ds\n' $((SECONDS - started))
fi
# acpx, a headless ACP client no one here wrote: tests/integration/acp_serve drives
# `clawharness acp` with it. It needs Node >= 22.13, so the test runs it on the Node 24
# the OpenClaw step above installs (npm may warn that this npm's Node is older).
ACPX_VERSION=0.19.1
install .cache/acpx "acpx@$ACPX_VERSION" node_modules/acpx/package.json
