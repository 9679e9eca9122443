#!/usr/bin/env bash
# A/B of two release binaries of axiom-server (e.g. a branch point's and a
# branch's, side by side), rounds interleaved (A, B, A, B, ...): wrk req/s and
# server CPU per request (utime+stime from /proc over each run), which is
# steadier than req/s on a shared 2-core machine. scripts/bench-compare.sh
# measures against the Hummingbird peer instead.
# usage: scripts/bench-ab.sh A_BINARY B_BINARY PATH [ROUNDS=3] [SECONDS=8]
#   PATH may contain {product}: a product created in each server first.
set -euo pipefail
. "$(dirname "$0")/load-test-env.sh"   # config/README.md's load-test settings
A=$1 B=$2 PATHSPEC=$3 ROUNDS=${4:-3} DUR=${5:-8}
TICK=$(getconf CLK_TCK)
start() { # binary dir -> "pid port"
  local port; port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
  AXIOM_ADMIN_EMAIL=root@example.com AXIOM_ADMIN_PASSWORD='a very long secret' AXIOM_LOG_LEVEL=warning \
    "$1" --port "$port" --database "$2/axiom.db" >"$2/log" 2>&1 &
  local pid=$!
  for _ in $(seq 1 100); do curl -sf "http://127.0.0.1:$port/health" >/dev/null && break; sleep 0.1; done
  echo "$pid $port"
}
product() { # port -> id
  local token
  token=$(curl -sf -H 'Content-Type: application/json' -d '{"email":"root@example.com","password":"a very long secret"}' "http://127.0.0.1:$1/sessions" | python3 -c 'import sys,json; print(json.load(sys.stdin)["token"])')
  curl -sf -H 'Content-Type: application/json' -H "Authorization: Bearer $token" \
    -d '{"sku":"BENCH-1","name":"Bench kettle","description":"A kettle for benchmarks","price":{"amount":2999,"currency":"USD"},"stock":1000}' \
    "http://127.0.0.1:$1/products" | python3 -c 'import sys,json; print(json.load(sys.stdin)["id"])'
}
cpu() { awk '{print $14+$15}' "/proc/$1/stat"; }
DA=$(mktemp -d) DB=$(mktemp -d)
read -r PA PORTA < <(start "$A" "$DA")
read -r PB PORTB < <(start "$B" "$DB")
trap 'kill $PA $PB 2>/dev/null; wait $PA $PB 2>/dev/null; rm -rf "$DA" "$DB"' EXIT
PATHA=${PATHSPEC//\{product\}/$(product "$PORTA")}
PATHB=${PATHSPEC//\{product\}/$(product "$PORTB")}
run() { # pid port path label
  local before after out reqs rps
  before=$(cpu "$1")
  out=$(wrk -t2 -c64 -d"${DUR}s" "http://127.0.0.1:$2$3")
  after=$(cpu "$1")
  reqs=$(echo "$out" | awk '/requests in/{print $1}')
  rps=$(echo "$out" | awk '/Requests\/sec/{print $2}')
  python3 -c "print('$4 req/s %9.0f  cpu/req %6.2f us' % ($rps, ($after-$before)/$TICK*1e6/$reqs))"
}
for r in $(seq 1 "$ROUNDS"); do
  run "$PA" "$PORTA" "$PATHA" "A"
  run "$PB" "$PORTB" "$PATHB" "B"
done
