#!/usr/bin/env bash
# POST /checkout by buyers the server already holds, as in a shop: a buyer
# has touched the cart (added a line, looked at it) before checking out.
# scripts/bench.sh checkout gives each of 40,000 buyers one checkout as the
# first request of a fresh session, so every checkout reads the buyer's
# session, user and cart from storage (issue 12's working sets hold 10,000
# each); this one measures the checkout alone.
#
# Seeds 9,000 buyers (BENCH_BUYERS; the 256 shoppers too, all within the
# default bounds), starts the server with scripts/bench.sh --keep, sends
# each buyer's GET /cart once, then runs wrk (2 threads, 64 connections,
# 2 s, fewer checkouts than buyers) on bench/checkout.lua and prints
# checkouts/s and the server's CPU per checkout.
#
# usage: scripts/bench-checkout-warm.sh [--root DIR]
#   --root DIR: seed and serve with DIR's scripts/bench.sh (another checkout
#   of this repository, e.g. a worktree of an older commit), so that two
#   builds are compared with their own seeding. BENCH_BINARY=path serves
#   that binary. The machine is shared: alternate two builds (A B B A).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/load-test-env.sh   # config/README.md's load-test settings
HERE=$PWD
ROOT=$PWD
if [ "${1:-}" = "--root" ]; then ROOT=$(cd "$2" && pwd); shift 2; fi
[ $# -eq 0 ] || { sed -n 2,19p "$0" >&2; exit 2; }
command -v wrk >/dev/null || scripts/setup.sh --tests

log=$(mktemp)
(cd "$ROOT" && BENCH_BUYERS=${BENCH_BUYERS:-9000} exec scripts/bench.sh --keep) >"$log" 2>&1 &
RUNNER=$!
SERVER=
cleanup() {
  [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null
  wait "$RUNNER" 2>/dev/null || true
  rm -f "$log"
}
trap cleanup EXIT
for _ in $(seq 1 600); do
  grep -q "until interrupted" "$log" && break
  kill -0 "$RUNNER" 2>/dev/null || { cat "$log" >&2; exit 1; }
  sleep 0.5
done
grep -q "until interrupted" "$log" || { echo "bench-checkout-warm: the server did not start" >&2; cat "$log" >&2; exit 1; }
eval "$(grep '^  export' "$log")"
SERVER=$(grep -o '(pid [0-9]*' "$log" | tr -dc 0-9)
URL=$(grep -o 'serving http://[0-9.:]*' "$log" | cut -d' ' -f2)

# One GET /cart a buyer, on one kept-alive connection.
python3 - "$URL" "$AXIOM_BUYER_TOKENS" <<'PY'
import http.client, sys, urllib.parse
url = urllib.parse.urlparse(sys.argv[1])
connection = http.client.HTTPConnection(url.hostname, url.port)
carts = 0
for token in open(sys.argv[2]):
    connection.request("GET", "/cart", headers={"Authorization": "Bearer " + token.strip()})
    response = connection.getresponse()
    response.read()
    carts += response.status == 200
print(f"buyers touched: {carts}")
PY

before=$(awk '{print $14 + $15}' "/proc/$SERVER/stat")
out=$(cd "$HERE" && WRK_THREADS=2 wrk -t2 -c64 -d2s --latency -s bench/checkout.lua "$URL")
after=$(awk '{print $14 + $15}' "/proc/$SERVER/stat")
echo "$out" | awk -v t=$((after - before)) -v hz="$(getconf CLK_TCK)" '
  /requests in/ { n = $1 }
  /Requests\/sec/ { rps = $2 }
  $1 == "99%" { p99 = $2 }
  /Non-2xx/ { bad = $NF }
  END { printf "warm checkout: %s checkouts/s, p99 %s, cpu %.1f us/checkout%s\n", rps, p99, t / hz / n * 1e6,
               bad ? "  non-2xx " bad " (more checkouts than buyers: fewer seconds or more BENCH_BUYERS)" : "" }'
