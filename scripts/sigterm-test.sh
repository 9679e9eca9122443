#!/usr/bin/env bash
# SIGTERM under load: wrk reads products while signed-in shoppers write
# their carts; SIGTERM arrives mid-run. Checks that in-flight requests
# complete (no truncated response), the process exits 0 within the shutdown
# deadline, and after a restart on the same database every acknowledged
# cart write is there.
#
# usage: scripts/sigterm-test.sh [RUNS]      (default 3)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/load-test-env.sh   # config/README.md's load-test settings
RUNS=${1:-3}
SHOPPERS=24 DEADLINE=10
command -v wrk >/dev/null || scripts/setup.sh --tests
swift build -c release --product axiom-server >/dev/null
BIN=.build/release/axiom-server
export AXIOM_ADMIN_EMAIL=admin@example.com AXIOM_ADMIN_PASSWORD='sigterm test admin'
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_ready() { for _ in $(seq 1 200); do curl -sf "$1/ready" >/dev/null && return 0; sleep 0.05; done; return 1; }

failures=0
for run in $(seq 1 "$RUNS"); do
  WORK=$(mktemp -d)
  PORT=$(free_port) URL=http://127.0.0.1:$PORT
  $BIN --port "$PORT" --database "$WORK/axiom.db" --shutdown-deadline $DEADLINE --log-level notice >"$WORK/server.log" 2>&1 &
  SERVER=$!
  wait_ready "$URL" || { echo "run $run: server did not become ready"; cat "$WORK/server.log"; exit 1; }
  python3 scripts/sigterm_driver.py setup "$URL" "$AXIOM_ADMIN_EMAIL" "$AXIOM_ADMIN_PASSWORD" "$WORK/state.json" $SHOPPERS
  PRODUCT=$(python3 -c "import json; print(json.load(open('$WORK/state.json'))['product'])")

  wrk -t2 -c32 -d8s "$URL/products/$PRODUCT" >"$WORK/wrk.txt" 2>&1 &
  WRK=$!
  python3 scripts/sigterm_driver.py write "$URL" "$WORK/state.json" 8 >"$WORK/writers.txt" 2>&1 &
  WRITERS=$!
  sleep "$(python3 -c 'import random; print(round(random.uniform(1.5, 4.0), 2))')"
  started=$(date +%s.%N)
  kill -TERM "$SERVER"
  set +e
  wait "$SERVER"; status=$?
  set -e
  elapsed=$(python3 -c "print(f'{$(date +%s.%N) - $started:.2f}')")
  wait "$WRITERS" || true
  wait "$WRK" || true

  $BIN --port "$PORT" --database "$WORK/axiom.db" --log-level warning >>"$WORK/restart.log" 2>&1 &
  SERVER=$!
  wait_ready "$URL" || { echo "run $run: restart did not become ready"; exit 1; }
  verify=$(python3 scripts/sigterm_driver.py verify "$URL" "$WORK/state.json") && verified=0 || verified=1
  kill -TERM "$SERVER"; wait "$SERVER" || true

  reads=$(awk '/requests in/ {print $1}' "$WORK/wrk.txt")
  echo "run $run: exit status $status after ${elapsed}s (deadline ${DEADLINE}s); wrk $reads reads; $(cat "$WORK/writers.txt"); $verify"
  ok=1
  [ "$status" -eq 0 ] || ok=0
  python3 -c "import sys; sys.exit(0 if $elapsed <= $DEADLINE + 1 else 1)" || ok=0
  grep -q "truncated" "$WORK/writers.txt" && grep -q " 0 truncated, 0 non-2xx" "$WORK/writers.txt" || ok=0
  [ "$verified" -eq 0 ] || ok=0
  if [ "$ok" -eq 1 ]; then rm -rf "$WORK"; else echo "run $run FAILED; kept $WORK"; failures=$((failures + 1)); fi
done
echo "$((RUNS - failures)) of $RUNS runs passed"
[ "$failures" -eq 0 ]
