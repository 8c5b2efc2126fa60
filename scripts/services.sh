#!/usr/bin/env bash
# Make sure the PostgreSQL server the store tests use is up (this machine kind runs it;
# start it if it stopped). Tests skip nothing: a missing server fails them.
set -uo pipefail
if command -v pg_isready >/dev/null 2>&1 && ! pg_isready -q -h 127.0.0.1 -p 5432; then
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -1)" main start || true
  fi
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
fi
exit 0
