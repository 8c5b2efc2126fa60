#!/usr/bin/env bash
# Debian's chromium for the Control UI's browser tests (driven by Playwright for Python
# with executable_path=/usr/bin/chromium, so no `playwright install`). Installed only when
# missing, and only where apt-get can run as root (CI); elsewhere the browser tests skip
# and say why.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "== installing chromium (apt-get) for the Control UI browser tests"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null \
    || { apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null; }
else
  echo "== chromium missing and apt-get unavailable (not root): browser tests will skip"
fi
