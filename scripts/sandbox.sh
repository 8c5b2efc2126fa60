#!/usr/bin/env bash
# Debian's bubblewrap (bwrap) for exec's OS sandbox and its tests (prlimit, which applies
# the sandbox's limits, is util-linux's and already there). Installed only when missing,
# and only where apt-get can run as root (CI); elsewhere the sandbox tests skip and say
# why, and exec runs unsandboxed with a notice (docs/security.md).
set -euo pipefail
if command -v bwrap >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "== installing bubblewrap (apt-get) for exec's sandbox"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q bubblewrap >/dev/null \
    || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q bubblewrap >/dev/null; }
else
  echo "== bwrap missing and apt-get unavailable (not root): sandbox tests will skip"
fi
