#!/usr/bin/env bash
# Create .venv and install clawharness into it, showing each step as it goes.
#
#   bash scripts/setup.sh        # (or `dev`) what the test suite needs: every extra
#                                # (cluster, postgres, otel), the test tools, browser
#                                # testing, the Temporal CLI and the example plugin
#   bash scripts/setup.sh core   # the core install only: the CLI and the built-in runtime
#                                # (what scripts/demo.sh needs)
#
# Idempotent. A stamp per level records that it is installed and newer than the
# pyproject files; dev includes core, so `core` after `dev` has nothing to do, `dev`
# after `core` adds what dev needs, and nothing is ever uninstalled.
set -euo pipefail
cd "$(dirname "$0")/.."
LEVEL=${1:-dev}
case "$LEVEL" in
  core|dev) ;;
  *) echo "usage: scripts/setup.sh [core|dev]" >&2; exit 2 ;;
esac
PY=${PYTHON:-python3}
STAMP_CORE=.venv/.clawharness-core
STAMP_DEV=.venv/.clawharness-dev

fresh() {  # stamp: installed, and no pyproject changed since
  [ -f "$1" ] && [ ! pyproject.toml -nt "$1" ] && [ ! examples/echo-harness/pyproject.toml -nt "$1" ]
}
if fresh "$STAMP_DEV" || { [ "$LEVEL" = core ] && fresh "$STAMP_CORE"; }; then
  exit 0
fi

STEPS=3
[ "$LEVEL" = dev ] && STEPS=4
STEP=0
step() {  # one progress line: "[n/STEPS] what"
  STEP=$((STEP + 1))
  printf '[%d/%d] %s\n' "$STEP" "$STEPS" "$1"
}
done_in() {  # started: "      done in Ns"
  printf '      done in %ds\n' $((SECONDS - $1))
}
pip_progress() {  # pip's output, one short line per package (updated in place on a terminal)
  local count=0 line name
  while IFS= read -r line; do
    case "$line" in
      Collecting\ *|Requirement\ already\ satisfied:\ *)
        count=$((count + 1))
        name=${line#Collecting }
        name=${name#Requirement already satisfied: }
        name=${name%% *}
        if [ -t 1 ]; then
          printf '\r\033[K      %d packages resolved (%s)' "$count" "$name"
        elif [ "${line#Collecting }" != "$line" ]; then
          printf '      %d fetching %s\n' "$count" "$name"
        fi ;;
      Installing\ collected\ packages:*)
        [ -t 1 ] && printf '\n'
        printf '      installing %d packages...\n' "$(echo "${line#*:}" | tr ',' '\n' | grep -c .)" ;;
      Successfully\ installed*)
        [ -t 1 ] && [ "$count" -gt 0 ] && printf '\n'
        printf '      installed %d packages\n' "$(echo "${line#Successfully installed}" | wc -w)" ;;
      ERROR:*|error:*) printf '%s\n' "$line" >&2 ;;
    esac
  done
}
pip_install() {  # args...: pip install with progress; fails when pip fails
  .venv/bin/python -m pip install --progress-bar off --disable-pip-version-check "$@" 2>&1 \
    | pip_progress
  return "${PIPESTATUS[0]}"
}

echo "== clawharness set-up ($LEVEL) into .venv"
started=$SECONDS
if [ ! -x .venv/bin/python ]; then
  step "creating .venv with $("$PY" --version 2>&1)"
  "$PY" -m venv .venv
  .venv/bin/python -m pip install -q --upgrade pip >/dev/null 2>&1 || true
  done_in "$started"
else
  step ".venv exists ($(.venv/bin/python --version 2>&1))"
fi

started=$SECONDS
if [ "$LEVEL" = dev ]; then
  step "installing clawharness with the dev extras (every extra, test tools; a few minutes the first time)"
  pip_install -e '.[dev]'
else
  step "installing clawharness, core only (the CLI and the built-in runtime; about a minute the first time)"
  pip_install -e .
fi
done_in "$started"

if [ "$LEVEL" = dev ]; then
  started=$SECONDS
  # the example harness, installed like any third-party plugin (its entry point)
  step "installing the example plugin examples/echo-harness"
  pip_install --no-deps -e examples/echo-harness
  done_in "$started"
fi

step "checking the install"
if [ "$LEVEL" = dev ]; then
  .venv/bin/python -c "import clawharness, echo_harness, temporalio, psycopg"
  touch "$STAMP_DEV" "$STAMP_CORE"
else
  .venv/bin/python -c "import clawharness"
  touch "$STAMP_CORE"
fi
echo "      $(.venv/bin/clawharness --version) ready in .venv"
