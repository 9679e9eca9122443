#!/usr/bin/env bash
# Data-scale benchmark: seeds a database (scripts/seed-scale.sh), starts the
# release build on it (127.0.0.1, a free port) and reports
#   - start-up: seconds from exec to the first 200 from /ready;
#   - RSS after start-up and after each wrk run (VmRSS of the process);
#   - wrk (2 threads, 16 connections, --latency): req/s, p50, p99 of
#       GET /products/{id}, ids uniform over every seeded product;
#       GET /products?q=… , varied words and prefixes (bench/search.lua);
#       GET /orders as 16 signed-in seeded users (bench/orders.lua);
#       PUT /cart/items/{id} as those users (bench/cart_put.lua).
# usage: scripts/bench-scale.sh [--products N] [--users N] [--orders N]
#                               [--reads-duration S] [--duration S] [--seeded DIR]
# --seeded DIR measures DIR/axiom.db as scripts/seed-scale.sh left it in DIR
# (seed 1,000,000 products once, measure more than once; the file is used
# in place and keeps the sessions the run signs in).
# Defaults: 100000 products, 100 users, 1000 orders, reads 60 s, others 20 s.
# AXIOM_BINARY=path measures that binary instead of building the release one.
# Run it on a quiet machine: wrk and the server share its cores.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/load-test-env.sh   # config/README.md's load-test settings

PRODUCTS=100000 USERS=100 ORDERS=1000 READS=60 DURATION=20 SEEDED=
while [ $# -gt 0 ]; do
  case $1 in
    --products) PRODUCTS=$2; shift 2 ;;
    --users) USERS=$2; shift 2 ;;
    --orders) ORDERS=$2; shift 2 ;;
    --reads-duration) READS=$2; shift 2 ;;
    --duration) DURATION=$2; shift 2 ;;
    --seeded) SEEDED=$2; shift 2 ;;
    *) echo "usage: $0 [--products N] [--users N] [--orders N] [--reads-duration S] [--duration S]" >&2; exit 2 ;;
  esac
done
[ "$USERS" -ge 16 ] || { echo "bench-scale: needs --users 16 or more (signed-in wrk users)" >&2; exit 2; }
command -v wrk >/dev/null || scripts/setup.sh --tests
if [ -z "${AXIOM_BINARY:-}" ]; then
  swift build -c release --product axiom-server >/dev/null
  export AXIOM_BINARY=.build/release/axiom-server
fi

WORK=${SEEDED:-$(mktemp -d)}
SERVER=
cleanup() {
  if [ -n "$SERVER" ]; then kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true; fi
  [ -n "$SEEDED" ] || rm -rf "$WORK"
}
trap cleanup EXIT

if [ -n "$SEEDED" ]; then
  PRODUCTS=$(wc -l <"$WORK/product_ids.txt") USERS=$(wc -l <"$WORK/user_emails.txt") ORDERS=$(wc -l <"$WORK/order_ids.txt")
else
  scripts/seed-scale.sh "$WORK/axiom.db" --products "$PRODUCTS" --users "$USERS" --orders "$ORDERS" --out "$WORK"
fi
echo "database: $(du -m "$WORK/axiom.db" | cut -f1) MiB" >&2

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
URL="http://127.0.0.1:$PORT"
started=$(date +%s.%N)
"$AXIOM_BINARY" --host 127.0.0.1 --port "$PORT" --database "$WORK/axiom.db" --log-level warning >>"$WORK/server.log" 2>&1 &
SERVER=$!
ready=
for _ in $(seq 1 60000); do
  if curl -sf -o /dev/null "$URL/ready"; then ready=$(date +%s.%N); break; fi
  kill -0 "$SERVER" 2>/dev/null || break
  sleep 0.01
done
[ -n "$ready" ] || { echo "bench-scale: the server did not get ready" >&2; cat "$WORK/server.log" >&2; exit 1; }
rss() { awk '/^VmRSS/ { printf "%.0f MiB", $2 / 1024 }' "/proc/$SERVER/status"; }

password=$(cat "$WORK/password.txt")
export AXIOM_SHOPPER_TOKENS="$WORK/tokens.txt"
head -n 16 "$WORK/user_emails.txt" | while read -r email; do
  curl -sf -X POST "$URL/sessions" -H 'Content-Type: application/json' \
    -d "{\"email\":\"$email\",\"password\":\"$password\"}" | python3 -c 'import json,sys; print(json.load(sys.stdin)["token"])'
done >"$AXIOM_SHOPPER_TOKENS"
export AXIOM_PRODUCT_IDS="$WORK/product_ids.txt" AXIOM_SEARCH_TERMS="$WORK/search_terms.txt"

# One wrk run → "req/s p50 p99".
measure() {
  local seconds=$1 script=$2
  wrk -t2 -c16 -d"${seconds}s" --latency -s "$script" "$URL" | awk '
    /Requests\/sec/ { rps = $2 }
    $1 == "50%" { p50 = $2 }
    $1 == "99%" { p99 = $2 }
    /Non-2xx/ { bad = $NF }
    END { printf "%8.0f req/s  p50 %-9s p99 %-9s%s", rps, p50, p99, bad ? "  non-2xx " bad : "" }'
}

echo "products $PRODUCTS, users $USERS, orders $ORDERS"
printf 'start-up to /ready 200: %.2f s\n' "$(echo "$ready - $started" | bc)"
echo "RSS after start-up:     $(rss)"
echo "GET /products/{id}:     $(measure "$READS" bench/product.lua)   RSS after: $(rss)"
echo "GET /products?q=…:      $(measure "$DURATION" bench/search.lua)   RSS after: $(rss)"
echo "GET /orders:            $(measure "$DURATION" bench/orders.lua)   RSS after: $(rss)"
echo "PUT /cart/items/{id}:   $(measure "$DURATION" bench/cart_put.lua)   RSS after: $(rss)"
