#!/usr/bin/env bash
# Scale-out on one machine, offline: a Temporal dev server, a scripted model, two
# `clawharness worker`s and a front (`clawharness agent`), sharing your PostgreSQL.
#
#   bash examples/cluster-local/run.sh [POSTGRESQL_URL]
#
# The URL (default $CLAWHARNESS_PG_URL, else postgresql://postgres@127.0.0.1:5432/postgres)
# gets a schema of its own, dropped at the end; everything else lives in a temp dir.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash scripts/setup.sh > /dev/null
bin="$PWD/.venv/bin"
pg="${1:-${CLAWHARNESS_PG_URL:-postgresql://postgres@127.0.0.1:5432/postgres}}"
dir="$(mktemp -d)"
schema="cluster_example_$$"
pids=()

pg_run() { "$bin/python" -c 'import sys, psycopg
with psycopg.connect(sys.argv[1], autocommit=True) as c: c.execute(sys.argv[2])' "$pg" "$1"; }
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2> /dev/null || true; done
  wait 2> /dev/null || true
  pg_run "DROP SCHEMA IF EXISTS $schema CASCADE" || true
  rm -rf "$dir"
}
trap cleanup EXIT
free_port() { "$bin/python" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
wait_for() {  # wait_for FILE TEXT WHAT
  for _ in $(seq 600); do grep -q "$2" "$1" 2> /dev/null && return 0; sleep 0.1; done
  echo "$3 did not start:" >&2; cat "$1" >&2; exit 1
}

pg_run "CREATE SCHEMA $schema"
temporal_port="$(free_port)"
model_port="$(free_port)"

echo "== the Temporal dev server on 127.0.0.1:$temporal_port (in memory)"
# the transfer-queue setting is the one docs/scale-out.md asks of every Temporal server
"$bin/temporal" server start-dev --ip 127.0.0.1 --port "$temporal_port" --headless \
  --log-level error \
  --dynamic-config-value history.transferProcessorMaxPollRPS=1000 > "$dir/temporal.log" 2>&1 &
pids+=($!)

echo "== a scripted model on 127.0.0.1:$model_port"
cat > "$dir/script.json" <<'JSON'
{"responses": [{"match": ".", "repeat": true, "text": "Answered by a worker."}]}
JSON
"$bin/clawharness" model-server --script "$dir/script.json" --port "$model_port" \
  > "$dir/model.log" 2>&1 &
pids+=($!)
wait_for "$dir/model.log" listening "the model server"

cat > "$dir/config.json" <<JSON
{
  "models": {"providers": {"scripted": {
    "baseUrl": "http://127.0.0.1:$model_port/v1", "api": "openai-responses",
    "apiKey": "offline", "models": [{"id": "demo-model"}]}}},
  "agents": {"defaults": {"model": "scripted/demo-model", "workspace": "$dir/workspace"}},
  "store": {"url": "$pg?options=-csearch_path%3D$schema"},
  "cluster": {"url": "temporal://127.0.0.1:$temporal_port"}
}
JSON
export CLAWHARNESS_STATE_DIR="$dir/state"
ch() { "$bin/clawharness" "$@" --config "$dir/config.json"; }

wait_port() {  # the dev server takes a few seconds to listen
  "$bin/python" -c 'import socket, sys, time
deadline = time.monotonic() + 60
while socket.socket().connect_ex(("127.0.0.1", int(sys.argv[1]))) != 0:
    if time.monotonic() > deadline:
        sys.exit("the Temporal dev server did not start")
    time.sleep(0.1)' "$1"
}
wait_port "$temporal_port"

declare -A worker_pid
for id in w1 w2; do
  echo "== clawharness worker --worker-id $id"
  "$bin/clawharness" worker --config "$dir/config.json" --worker-id "$id" --json \
    > "$dir/$id.out" 2> "$dir/$id.log" &
  worker_pid[$id]=$!
  pids+=($!)
  wait_for "$dir/$id.out" ready "worker $id"  # its JSON line once it polls
done

echo "== clawharness cluster status"
ch cluster status
turn() {  # one turn of session `demo`; prints the reply and the worker that ran it
  ch agent --session demo -m "$1" --json | "$bin/python" -c 'import json, sys
turn = json.load(sys.stdin)
print("%s  (%s, run by worker %s)" % (turn["text"], turn["terminal"], turn["cluster"]["worker"]))
open(sys.argv[1], "w").write(turn["cluster"]["worker"])' "$dir/last-worker"
}
echo "== three turns of one session, one at a time, each run by a worker"
for message in "first turn" "second turn" "third turn"; do turn "$message"; done
ran_on="$(cat "$dir/last-worker")"
echo "== worker $ran_on is killed (SIGKILL); the session's next turn runs on the other"
kill -KILL "${worker_pid[$ran_on]}"
wait "${worker_pid[$ran_on]}" 2> /dev/null || true
turn "fourth turn"
echo "== the session's transcript, in PostgreSQL"
ch sessions show demo
