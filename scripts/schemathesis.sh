#!/usr/bin/env bash
# Property-based API tests: schemathesis generates requests from openapi.yaml
# against a real server (debug build unless AXIOM_BIN is set) on a fresh
# SQLite file, with every check, and fails on any 5xx or any response the
# document does not describe. It runs signed in: scripts/schemathesis_seed.py
# bootstraps an admin, registers a customer, seeds a product and an order,
# and writes the tokens and ids into this run's copy of schemathesis.toml
# (customer token by default, the admin's on admin routes), so the routes
# behind authentication get generated cases, not only 401s.
#
# usage: scripts/schemathesis.sh [MAX_EXAMPLES]   (default 50 per operation)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/load-test-env.sh   # config/README.md's load-test settings
MAX_EXAMPLES=${1:-50}
command -v schemathesis >/dev/null || python3 -m pip install -q schemathesis
BIN=${AXIOM_BIN:-}
if [ -z "$BIN" ]; then
  swift build --product axiom-server >/dev/null
  BIN=$(swift build --show-bin-path)/axiom-server
fi
WORK=$(mktemp -d)
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
ADMIN_EMAIL=admin@schemathesis.test
ADMIN_PASSWORD=schemathesis-admin-1
# A webhook secret, so the webhook checks what schemathesis sends (400)
# rather than answering every delivery 503.
AXIOM_PAYMENT_WEBHOOK_SECRET=schemathesis-webhook-secret \
"$BIN" --port "$PORT" --database "$WORK/axiom.db" --log-level warning \
  --admin-email "$ADMIN_EMAIL" --admin-password "$ADMIN_PASSWORD" >"$WORK/server.log" 2>&1 &
SERVER=$!
trap 'kill $SERVER 2>/dev/null; wait $SERVER 2>/dev/null; rm -rf "$WORK"' EXIT
for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$PORT/ready" >/dev/null && break; sleep 0.1; done
python3 scripts/schemathesis_seed.py "http://127.0.0.1:$PORT" "$ADMIN_EMAIL" "$ADMIN_PASSWORD" "$WORK"
ADMIN_OPERATIONS=$(cat "$WORK/admin-operations.regex")
run() {  # run NAME FILTER...
  local name=$1
  shift
  schemathesis --config-file "$WORK/schemathesis.toml" run openapi.yaml --url "http://127.0.0.1:$PORT" --checks all \
    --max-examples "$MAX_EXAMPLES" --seed 20261122 --workers 1 --no-color "$@" >"$WORK/$name.log" 2>&1
}
# One worker: with two, hypothesis parsing lambdas from two threads trips a
# CPython 3.11 AST recursion-depth check ("AST constructor recursion depth
# mismatch"), a crash of the tool, not a finding. A crash inside schemathesis
# itself is not a finding about the API either: run once more. A reported failure
# ("Failures:") never gets a second chance.
run_checked() {  # run_checked NAME FILTER...
  local status=0
  run "$@" || status=$?
  if [ $status -ne 0 ] && ! grep -q "^Failures:" "$WORK/$1.log"; then
    echo "schemathesis errored without a finding; running it again" >&2
    status=0
    run "$@" || status=$?
  fi
  cat "$WORK/$1.log"
  return $status
}
# The customer's operations first, then the admin's: an admin's generated
# PATCH /users/{id} can suspend the seeded customer (the stateful phase finds
# its id), which revokes the customer's token for everything after it.
status=0
run_checked customer --exclude-operation-id-regex "$ADMIN_OPERATIONS" || status=$?
run_checked admin --include-operation-id-regex "$ADMIN_OPERATIONS" || status=$?
kill -0 $SERVER  # the server must have survived everything
exit $status
